"""Ranking over seeds and the page's values and order, on hand-made entries.

Three seeds of model ``alpha`` (AUROC 0.6, 0.7, 0.9) and two of ``beta`` (0.8, 0.8):
alpha's mean is 2.2 / 3 = 0.7333..., its sample std sqrt(((-0.4/3)^2 + (-0.1/3)^2 +
(0.5/3)^2) / 2) = sqrt(0.42 / 18) = 0.152752...; the population std (dividing by 3)
would be 0.124721... Beta ranks first (0.8 > 0.733) on AUROC, where higher is better,
and last on Brier, where lower is better.
"""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path

import pytest

from icgbench.cli import main
from icgbench.leaderboard import LeaderboardEntry
from icgbench.leaderboard.board import rank
from icgbench.leaderboard.page import build_page
from icgbench.leaderboard.store import json_text

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "schemas" / "examples" / "leaderboard-entry.json").read_text())
ALPHA_STD = math.sqrt(0.42 / 18)


def _entry(model: str, seed: int, auroc: float, brier: float) -> LeaderboardEntry:
    doc = copy.deepcopy(EXAMPLE)
    doc.update(model_name=model, seed=seed, scores={"risk_prediction": {
        "auroc": auroc, "auprc": 0.5, "brier": brier, "ece": 0.1}},
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


def test_rank_gives_the_mean_and_the_sample_std_over_seeds():
    alpha, = [r for r in rank(ENTRIES, "linear_lowhet", "risk_prediction", "auroc", True)
              if r.model == "alpha"]
    assert alpha.seeds == 3
    assert alpha.mean == pytest.approx(2.2 / 3, abs=1e-15)
    assert alpha.std == pytest.approx(ALPHA_STD, abs=1e-15)
    assert abs(alpha.std - 0.1247219) > 0.02  # not the population std


def test_rank_order_follows_the_metric_direction():
    by_auroc = rank(ENTRIES, "linear_lowhet", "risk_prediction", "auroc", True)
    by_brier = rank(ENTRIES, "linear_lowhet", "risk_prediction", "brier", False)
    assert [r.model for r in by_auroc] == ["beta", "alpha"]
    assert [r.model for r in by_brier] == ["alpha", "beta"]
    beta = by_auroc[0]
    assert beta.std == 0.0 and beta.seeds == 2


def test_show_prints_the_order_and_the_values(board, capsys):
    assert main(["leaderboard", "show", "--dir", str(board), "--task", "risk_prediction"]) == 0
    out = capsys.readouterr().out
    auroc = out[out.index("auroc"):]
    assert re.search(r" 1\. beta .* 0\.8000 \[0\.8000, 0\.8000\] ± 0\.0000", auroc)
    # t(0.975, 2) = 4.3027: 0.7333 -/+ 4.3027 * 0.1528 / sqrt(3)
    assert re.search(r"2\. alpha .* 0\.7333 \[0\.3539, 1\.1128\] ± 0\.1528", auroc)


def test_the_page_shows_each_models_mean_interval_and_seeds_in_rank_order(board):
    html = build_page(board, None, with_oracle=False).pages["linear_lowhet.html"]
    table = html[html.index('data-task="risk_prediction"'):]
    table = table[:table.index("</table>")]
    assert '<th data-higher="true" class="ranked" title="this table is ranked by auroc">' in (
        table)
    rows = re.findall(r"<tr[^>]*>\s*<td class=\"text\"><span class=\"swatch c\d+\"></span>"
                      r"(\w+)(.*?)</tr>", table, re.S)
    assert [model for model, _ in rows] == ["beta", "alpha"]
    cells = {model: re.findall(r"<td data-value=\"([^\"]*)\"(?: class=\"ranked\")?>([^<]*)"
                               r"(?:<span class=\"ci\">([^<]*)</span>)?</td>", body)
             for model, body in rows}
    alpha_auroc, beta_auroc = cells["alpha"][0], cells["beta"][0]
    assert float(alpha_auroc[0]) == pytest.approx(2.2 / 3, rel=1e-9)  # the sort key, 9 digits
    assert alpha_auroc[1].strip() == "0.733" and alpha_auroc[2] == "[0.354, 1.113]"
    assert beta_auroc[1].strip() == "0.800" and beta_auroc[2] == "[0.800, 0.800]"
    assert cells["alpha"][-1][1] == "3" and cells["beta"][-1][1] == "2"  # seeds
    # beta and alpha share 2 cohorts whose paired gaps differ: not separable, a tie
    assert rows[1][1].startswith(' <span class="tied"')


def test_no_oracle_leaves_the_reference_rows_out(tmp_path):
    from leaderboard_helpers import submission_file

    folder = tmp_path / "board"
    assert main(["leaderboard", "add", str(submission_file(tmp_path, "random", "linear_lowhet")),
                 "--dir", str(folder), "--tier", "small"]) == 0
    with_oracle = build_page(folder, None, with_oracle=True)
    without = build_page(folder, None, with_oracle=False)
    assert with_oracle.oracle_rows > 0 and without.oracle_rows == 0
    assert re.search(r'<span class="swatch c\d+"></span>oracle</td>', with_oracle.html)
    assert "oracle</td>" not in without.html
    assert main(["leaderboard", "render", "--dir", str(folder), "--outdir", str(tmp_path / "s"),
                 "--no-oracle"]) == 0
    assert "oracle</td>" not in (tmp_path / "s" / "index.html").read_text()


def _shown(capsys, *argv: str) -> list[str]:
    from icgbench.cli import main

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


def test_show_ranks_each_task_by_its_headline_and_shows_language_and_notes(capsys):
    lines = _shown(capsys)
    assert "linear_lowhet / intervention_conformity: responsive_dgp_conformity (higher is " \
           "better)" in lines
    transfer = _section(lines, "linear_lowhet / cross_host_generalization: auroc_target "
                               "(higher is better)")
    values = [float(r.split()[3]) for r in transfer]
    assert values == sorted(values, reverse=True) and len(values) >= 2
    assert all("[Python]" in r and "reference model" in r for r in transfer)


def test_show_ranks_by_a_chosen_metric_in_its_direction(capsys):
    lines = _shown(capsys, "--metric", "ece")
    (title,) = [line for line in lines if " / " in line]
    assert title == "linear_lowhet / risk_prediction: ece (lower is better)"
    values = [float(r.split()[3]) for r in _section(lines, title)]
    assert values == sorted(values)


def test_a_transfer_gap_is_listed_never_ranked(capsys):
    """A model with no skill has no gap: random's gap is about 0, below every model that
    learned something. The gap metrics are descriptive, so ``show --metric transfer_gap``
    lists them without ranks, and the task ranks by auroc_target, where random is last."""
    lines = _shown(capsys, "--metric", "transfer_gap")
    (title,) = [line for line in lines if " / " in line]
    assert title == ("linear_lowhet / cross_host_generalization: transfer_gap (descriptive, "
                     "not ranked)")
    rows = _section(lines, title)
    assert rows and all(r.split()[0] == "-." for r in rows)
    assert [r.split()[1] for r in rows] == sorted(r.split()[1] for r in rows)  # by name


def _transfer(model: str, source: float, target: float) -> LeaderboardEntry:
    doc = copy.deepcopy(EXAMPLE)
    doc.update(model_name=model, seed=0, scores={"cross_host_generalization": {
        "auroc_source": source, "auroc_target": target, "transfer_gap": source - target,
        "excess_transfer_gap": 0.0}},
        submission_path=f"submissions/{model}/0.1.0/linear_lowhet__seed0.json.gz")
    return LeaderboardEntry.from_dict(doc)


def test_random_cannot_top_the_transfer_ranking_with_the_smallest_gap():
    from icgbench.leaderboard.page import _rows

    entries = [_transfer("random", 0.49, 0.51), _transfer("fitted", 0.80, 0.74)]
    rows = _rows(entries, [], "linear_lowhet", "cross_host_generalization", set())
    assert [r["model"] for r in rows] == ["fitted", "random"]


def test_show_refuses_an_unknown_metric(capsys):
    from icgbench.cli import main

    assert main(["leaderboard", "show", "--metric", "accuracy"]) == 2
    assert "recorded: ate_mae, auprc, auroc" in capsys.readouterr().err


def test_hostile_notes_are_shown_on_one_short_line():
    from icgbench.cli.leaderboard import NOTE_CHARS, one_line

    shown = one_line("line one\nline two\x1b[31m red\x07" + "x" * 10_000)
    assert shown.startswith("line one line two [31m red")
    assert len(shown) == NOTE_CHARS and shown.endswith("…")
    assert all(c.isprintable() for c in shown)


def test_the_page_orders_transfer_rows_by_the_target_not_the_source():
    from icgbench.leaderboard.page import _rows

    entries = [_transfer("overfit", 0.95, 0.55), _transfer("robust", 0.75, 0.72)]
    rows = _rows(entries, [], "linear_lowhet", "cross_host_generalization", set())
    assert [r["model"] for r in rows] == ["robust", "overfit"]


def test_each_table_highlights_the_metric_it_is_ranked_by_not_its_first_column():
    """Interventions rank by responsive_dgp_conformity and transfer by auroc_target, neither
    of which is the table's first column."""
    from icgbench.tasks import TASKS

    page = build_page(ROOT / "leaderboard", None, with_oracle=False).pages[
        "misspecified_signs.html"]
    for task in ("risk_prediction", "intervention_conformity", "cross_host_generalization"):
        table = page[page.index(f'data-task="{task}"'):]
        head = table[:table.index("</thead>")]
        ranked = re.findall(r'<th data-higher="\w+" class="ranked" title="this table is '
                            r'ranked by (\w+)">', head)
        assert ranked == [TASKS[task].ranking_metric.name], (task, ranked)
