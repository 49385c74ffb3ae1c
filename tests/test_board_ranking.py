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
    assert re.search(r"1\. beta .* 0\.8000 ± 0\.0000", auroc)
    assert re.search(r"2\. alpha .* 0\.7333 ± 0\.1528", auroc)


def test_the_page_shows_each_models_mean_std_and_seeds_in_rank_order(board):
    html = build_page(board, None, with_oracle=False).html
    table = html[html.index('data-task="risk_prediction"'):]
    table = table[:table.index("</table>")]
    rows = re.findall(r"<tr[^>]*>\s*<td class=\"text\">(\w+)</td>(.*?)</tr>", table, re.S)
    assert [model for model, _ in rows] == ["beta", "alpha"]
    cells = {model: re.findall(r"<td data-value=\"([^\"]*)\">([^<]*)(?:<span class=\"std\">"
                               r"± ([^<]*)</span>)?</td>", body) for model, body in rows}
    alpha_auroc, beta_auroc = cells["alpha"][0], cells["beta"][0]
    assert float(alpha_auroc[0]) == pytest.approx(2.2 / 3, abs=1e-15)  # the sort key
    assert alpha_auroc[1].strip() == "0.733" and alpha_auroc[2] == "0.153"
    assert beta_auroc[1].strip() == "0.800" and beta_auroc[2] == ""  # a zero spread is not shown
    assert cells["alpha"][-1][1] == "3" and cells["beta"][-1][1] == "2"  # seeds


def test_no_oracle_leaves_the_reference_rows_out(tmp_path):
    from leaderboard_helpers import submission_file

    folder = tmp_path / "board"
    assert main(["leaderboard", "add", str(submission_file(tmp_path, "random", "linear_lowhet")),
                 "--dir", str(folder), "--tier", "small"]) == 0
    with_oracle = build_page(folder, None, with_oracle=True)
    without = build_page(folder, None, with_oracle=False)
    assert with_oracle.oracle_rows > 0 and without.oracle_rows == 0
    assert '<td class="text">oracle</td>' in with_oracle.html
    assert '<td class="text">oracle</td>' not in without.html
    assert main(["leaderboard", "render", "--dir", str(folder), "--out", str(tmp_path / "s"),
                 "--no-oracle"]) == 0
    assert '<td class="text">oracle</td>' not in (tmp_path / "s" / "index.html").read_text()
