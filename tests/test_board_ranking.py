"""Ranking like with like: normalized means over every cohort, partial entries apart, raw
metrics on request, places and groups; on hand-made entries and the committed board.

Hand-made: three seeds of ``alpha`` (AUROC, AUPRC and the normalized Spearman's rho 0.6,
0.7, 0.9) and two of ``beta`` (0.8, 0.8), every cohort's floors 0.5 and ceilings 1.0.
Normalized over the three cohorts, alpha gains 0.1 + 0.2 + 0.4 = 0.7 of 1.5: 0.4667; beta
0.3 + 0.3 + 0 (its missing cohort counts as the floor) = 0.6 of 1.5: 0.4, and it is partial
(2 of 3 cohorts): listed after alpha whatever its mean. On the raw AUROC (``--metric
auroc``), the mean over each model's own cohorts: beta 0.8 first, alpha 2.2 / 3 = 0.7333,
sample std sqrt(0.42 / 18).
"""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path

import pytest

from icgbench.cli import main
from icgbench.generator import variant_names
from icgbench.leaderboard import LeaderboardEntry
from icgbench.leaderboard.page import build_page
from icgbench.leaderboard.ranking import rank_category, rank_metric, rank_overall
from icgbench.leaderboard.store import json_text, load_board

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "schemas" / "examples" / "leaderboard-entry.json").read_text())
ALPHA_STD = math.sqrt(0.42 / 18)


def _entry(model: str, seed: int, auroc: float, brier: float) -> LeaderboardEntry:
    doc = copy.deepcopy(EXAMPLE)
    doc.update(model_name=model, seed=seed, scores={"risk_prediction": {
        "auroc": auroc, "auprc": auroc, "brier": brier, "ece": 0.1,
        "spearman_reachable": auroc, "spearman_reachable__floor": 0.5,
        "spearman_reachable__ceiling": 1.0}},
        submission_path=f"submissions/{model}/0.1.0/linear_lowhet__seed{seed}.json.gz")
    return LeaderboardEntry.from_dict(doc)


ENTRIES = [_entry("alpha", 0, 0.6, 0.20), _entry("alpha", 1, 0.7, 0.20),
           _entry("alpha", 2, 0.9, 0.20), _entry("beta", 0, 0.8, 0.25),
           _entry("beta", 1, 0.8, 0.25)]


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hand-made-board")
    (folder / "leaderboard.json").write_text(json_text("full", ENTRIES))
    return folder


def test_a_category_is_normalized_over_every_cohort_and_partial_models_follow():
    alpha, beta = rank_category(ENTRIES, "linear_lowhet", "risk")
    assert (alpha.model, beta.model) == ("alpha", "beta")
    assert alpha.mean == pytest.approx(0.7 / 1.5) and not alpha.partial
    assert beta.mean == pytest.approx(0.6 / 1.5) and beta.partial and beta.seeds == 2
    assert (alpha.place, beta.place) == (1, 2)
    overall = rank_overall(ENTRIES)
    assert [r.model for r in overall] == ["alpha", "beta"]
    assert overall[0].mean == pytest.approx(0.7 / 1.5 / 5)  # four categories not attempted


def test_a_partial_model_never_ranks_above_a_complete_one():
    """beta on cohort 0 only with the best score there (0.95) still follows alpha."""
    entries = [*ENTRIES[:3], _entry("beta", 0, 1.0, 0.1)]
    rows = rank_category(entries, "linear_lowhet", "risk")
    assert [(r.model, r.partial) for r in rows] == [("alpha", False), ("beta", True)]
    assert rows[1].mean < rows[0].mean or rows[1].place == 2


def test_rank_metric_gives_the_mean_and_the_sample_std_over_seeds():
    alpha, = [r for r in rank_metric(ENTRIES, "linear_lowhet", "risk_prediction", "auroc",
                                     True, True) if r.model == "alpha"]
    assert alpha.seeds == 3
    assert alpha.mean == pytest.approx(2.2 / 3, abs=1e-15)
    assert alpha.std == pytest.approx(ALPHA_STD, abs=1e-15)
    assert abs(alpha.std - 0.1247219) > 0.02  # not the population std


def test_rank_metric_order_follows_the_metric_direction():
    by_auroc = rank_metric(ENTRIES, "linear_lowhet", "risk_prediction", "auroc", True, True)
    by_brier = rank_metric(ENTRIES, "linear_lowhet", "risk_prediction", "brier", True, False)
    assert [r.model for r in by_auroc] == ["beta", "alpha"]
    assert [r.model for r in by_brier] == ["alpha", "beta"]
    assert [r.place for r in by_brier] == [1, 2]
    beta = by_auroc[0]
    assert beta.std == 0.0 and beta.seeds == 2


def test_show_ranks_by_the_normalized_category_and_by_a_raw_metric_on_request(board, capsys):
    assert main(["leaderboard", "show", "--dir", str(board), "--task", "risk_prediction"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("linear_lowhet / risk_prediction: normalized risk"):]
    assert re.search(r" 1\. \w+\s+alpha .* 0\.4667 ", table)
    assert re.search(r" 2\. \w+\s+beta .* 0\.4000 .*\(2 cohorts partial\)", table)
    assert main(["leaderboard", "show", "--dir", str(board), "--metric", "auroc"]) == 0
    auroc = capsys.readouterr().out
    assert re.search(r" 1\. \w+\s+beta .* 0\.8000 \[0\.8000, 0\.8000\] ± 0\.0000", auroc)
    # t(0.975, 2) = 4.3027: 0.7333 -/+ 4.3027 * 0.1528 / sqrt(3)
    assert re.search(r"2\. \w+\s+alpha .* 0\.7333 \[0\.3539, 1\.1128\] ± 0\.1528", auroc)


def test_the_page_ranks_each_table_by_the_normalized_category(board):
    html = build_page(board, None, with_oracle=False).pages["linear_lowhet.html"]
    table = html[html.index('data-task="risk_prediction"'):]
    table = table[:table.index("</table>")]
    assert 'class="ranked" title="this table is ranked by the normalized risk score">' in table
    rows = re.findall(r"<tr[^>]*>\s*<td data-value=\"(\d*)\">\d*</td><td class=\"text group\">"
                      r"(\w*)</td>\s*<td class=\"text model\"><span class=\"swatch c\d+\"></span>"
                      r"(\w+)(.*?)</tr>", table, re.S)
    assert [(place, model) for place, _, model, _ in rows] == [("1", "alpha"), ("2", "beta")]
    assert '<span class="partial">partial</span>' in rows[1][3]
    cells = {model: re.findall(r"<td data-value=\"([^\"]*)\"(?: class=\"ranked\")?>([^<]*)"
                               r"(?:<span class=\"ci\">([^<]*)</span>)?</td>", body)
             for _, _, model, body in rows}
    assert float(cells["alpha"][0][0]) == pytest.approx(0.7 / 1.5, rel=1e-9)
    assert cells["alpha"][1][1].strip() == "0.733" and cells["alpha"][1][2] == (
        "[0.354, 1.113]")  # the raw AUROC beside it, with its interval
    assert cells["alpha"][-1][1] == "3" and cells["beta"][-1][1] == "2"  # cohorts


def test_no_oracle_leaves_the_reference_rows_out(tmp_path):
    from leaderboard_helpers import submission_file

    folder = tmp_path / "board"
    assert main(["leaderboard", "add", str(submission_file(tmp_path, "random", "linear_lowhet")),
                 "--dir", str(folder), "--tier", "small"]) == 0
    with_oracle = build_page(folder, None, with_oracle=True)
    without = build_page(folder, None, with_oracle=False)
    assert with_oracle.oracle_rows > 0 and without.oracle_rows == 0
    assert re.search(r'<span class="swatch c\d+"></span>oracle<span class="v-inline">',
                     with_oracle.html)
    assert 'oracle<span class="v-inline">' not in without.html
    assert main(["leaderboard", "render", "--dir", str(folder), "--outdir", str(tmp_path / "s"),
                 "--no-oracle"]) == 0
    assert 'oracle<span class="v-inline">' not in (tmp_path / "s" / "index.html").read_text()


def _shown(capsys, *argv: str) -> list[str]:
    assert main(["leaderboard", "show", "--variant", "linear_lowhet", *argv]) == 0
    return capsys.readouterr().out.splitlines()


def _section(lines: list[str], title: str) -> list[str]:
    start = lines.index(title) + 1
    rows = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        rows.append(line)
    return rows


def test_show_ranks_each_task_by_its_category_and_shows_language_and_notes(capsys):
    lines = _shown(capsys)
    transfer = _section(lines, "linear_lowhet / cross_host_generalization: normalized "
                               "transfer (higher is better)")
    values = [float(r.split()[4]) for r in transfer if not r.strip().startswith("ref")]
    assert values == sorted(values, reverse=True) and len(values) >= 2
    assert all("[Python]" in r and "reference model" in r for r in transfer)


def test_equal_means_share_a_place(capsys):
    """The seed's three MB-CNets share stage 1, so their latent scores are equal: one place,
    one group (identical scores are a tie, not a test)."""
    lines = _shown(capsys)
    latent = _section(lines, "linear_lowhet / latent_recovery: normalized latent (higher is "
                             "better)")
    shared = [r for r in latent if "mbcnet_" in r and "boosted" not in r]
    assert len(shared) == 3
    assert len({r.split()[0] for r in shared}) == 1 and len({r.split()[1] for r in shared}) == 1


def test_a_metric_a_constant_can_win_is_listed_never_ranked(capsys):
    """A constant at the event rate has an ECE of about 0, and one shift along the prior
    conforms fully on a well-specified variant: ``show`` lists them without places."""
    for metric in ("ece", "responsive_dgp_conformity", "transfer_gap"):
        lines = _shown(capsys, "--metric", metric)
        (title,) = [line for line in lines if " / " in line]
        assert title.endswith("(listed, not ranked: a constant can win it)"), title
        rows = _section(lines, title)
        assert rows and all(r.split()[0] in ("-.", "ref.") for r in rows)
        names = [r.split()[1] for r in rows]
        assert names == sorted(names)  # by name


def test_show_metric_overall_prints_the_overall_tables(capsys):
    assert main(["leaderboard", "show", "--metric", "overall"]) == 0
    lines = capsys.readouterr().out.splitlines()
    titles = [line for line in lines if line.startswith("overall")]
    assert titles[0] == "overall over every cohort (higher is better)"
    assert len(titles) == 1 + len(variant_names())  # and one per variant
    assert main(["leaderboard", "show", "--metric", "overall", "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)["tables"]
    assert all(t["title"].startswith("overall") for t in tables)
    assert tables[0]["rows"][0]["place"] == 1 and tables[0]["rows"][0]["group"] == "A"


def _transfer(model: str, source: float, target: float) -> LeaderboardEntry:
    doc = copy.deepcopy(EXAMPLE)
    doc.update(model_name=model, seed=0, scores={"cross_host_generalization": {
        "auroc_source": source, "auroc_target": target, "transfer_gap": source - target,
        "excess_transfer_gap": 0.0, "spearman_reachable_target": target,
        "spearman_reachable_target__floor": 0.6,
        "spearman_reachable_target__ceiling": 0.8}},
        submission_path=f"submissions/{model}/0.1.0/linear_lowhet__seed0.json.gz")
    return LeaderboardEntry.from_dict(doc)


def test_random_cannot_top_the_transfer_ranking_with_the_smallest_gap():
    from icgbench.leaderboard.page import _rows

    entries = [_transfer("random", 0.49, 0.51), _transfer("fitted", 0.80, 0.74)]
    rows = _rows(entries, [], "linear_lowhet", "cross_host_generalization", set())
    assert [r["model"] for r in rows] == ["fitted", "random"]


def test_the_page_orders_transfer_rows_by_the_target_not_the_source():
    from icgbench.leaderboard.page import _rows

    entries = [_transfer("overfit", 0.95, 0.55), _transfer("robust", 0.75, 0.72)]
    rows = _rows(entries, [], "linear_lowhet", "cross_host_generalization", set())
    assert [r["model"] for r in rows] == ["robust", "overfit"]


def test_show_refuses_an_unknown_metric(capsys):
    assert main(["leaderboard", "show", "--metric", "accuracy"]) == 2
    assert "recorded: overall, ate_mae, auprc, auroc" in capsys.readouterr().err


def test_hostile_notes_are_shown_on_one_short_line():
    from icgbench.cli.leaderboard import NOTE_CHARS, one_line

    shown = one_line("line one\nline two\x1b[31m red\x07" + "x" * 10_000)
    assert shown.startswith("line one\\nline two\\x1b[31m red\\x07x")
    assert len(shown) == NOTE_CHARS and shown.endswith("…")
    assert all(c.isprintable() for c in shown)


@pytest.mark.slow
def test_a_model_on_one_variant_of_six_is_listed_as_partial_after_the_complete_ones(
        tmp_path, capsys):
    """Issue 37's case: a copy of the board's best model, renamed, on linear_lowhet's sixty
    cohorts only, with better scores there than anybody: partial, and below every model
    graded on all 360, on the command line, in JSON and on the page."""
    from icgbench.leaderboard.store import write_board

    entries = load_board(ROOT / "leaderboard", new_tier=None).entries
    mine = []
    for e in entries:
        if e.model_name == "mbcnet_boosted" and e.variant_name == "linear_lowhet":
            doc = e.as_dict()
            risk = doc["scores"]["risk_prediction"]
            risk["auroc"] = risk["auprc"] = 1.0  # better than anyone where it is graded
            risk["spearman_reachable"] = risk["spearman_reachable__ceiling"]
            doc.update(model_name="one_variant",
                       submission_path=doc["submission_path"].replace("mbcnet_boosted",
                                                                      "one_variant"))
            mine.append(LeaderboardEntry.from_dict(doc))
    folder = tmp_path / "board"
    write_board(folder, "full", [*entries, *mine])
    rows = [r for r in rank_overall([*entries, *mine]) if r.model != "random"]
    assert rows[-1].model == "one_variant" and rows[-1].partial and rows[-1].seeds == 60
    assert all(not r.partial for r in rows[:-1])
    assert main(["leaderboard", "show", "--dir", str(folder), "--metric", "overall",
                 "--json"]) == 0
    table = json.loads(capsys.readouterr().out)["tables"][0]
    last = [r for r in table["rows"] if not r["reference"]][-1]
    assert (last["model"], last["partial"], last["cohorts"]) == ("one_variant", True, 60)
    html = build_page(folder, None, with_oracle=False).html
    overall = html[html.index('data-task="overall"'):]
    order = re.findall(r'</span>(\w+)(?: <span class="partial">partial</span>)?'
                       r'<span class="v-inline">', overall)
    assert order.index("one_variant") > order.index("panel_regression")


@pytest.mark.slow
def test_the_reference_lines_cover_every_cohort_the_board_holds(tmp_path):
    """The oracle and the ceiling are graded on each cohort with an entry, not the last one."""
    from icgbench.leaderboard.references import oracle_entries
    from icgbench.leaderboard.store import load_board
    from leaderboard_helpers import submission_file

    folder = tmp_path / "board"
    files = [submission_file(tmp_path, "random", v) for v in ("linear_lowhet", "nonlinear_obs")]
    assert main(["leaderboard", "add", *map(str, files), "--dir", str(folder), "--tier",
                 "small"]) == 0
    lines = oracle_entries(load_board(folder, new_tier=None).entries)
    assert sorted((e.variant_name, e.model_name) for e in lines) == [
        (v, m) for v in ("linear_lowhet", "nonlinear_obs") for m in ("ceiling", "oracle")]
