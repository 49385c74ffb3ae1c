"""The figures of what the board ranks (bench/ranking_figures.py), on the committed board:
the pairwise matrix says what the board's paired tests say, and the page shows the three
figures first, with captions that count the models they show."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import ROOT
from icgbench.bench import ranking_figures
from icgbench.leaderboard.ranking import floors_of, rank_overall
from icgbench.leaderboard.store import load_board
from icgbench.leaderboard.uncertainty import separable


@pytest.fixture(scope="module")
def board():
    return load_board(ROOT / "leaderboard", new_tier=None).entries


def test_the_pairwise_matrix_is_the_boards_paired_tests(board):
    rows, shares = ranking_figures._ranked(board, 12)
    signs = ranking_figures.pairwise_signs(rows, shares)
    assert np.array_equal(signs, -signs.T) and not signs.diagonal().any()
    for i, a in enumerate(rows):
        for j, b in enumerate(rows):
            if i < j:
                apart = separable(shares[(a.model, a.package_version)],
                                  shares[(b.model, b.package_version)])
                assert (signs[i, j] != 0) == apart, (a.model, b.model)
                if apart:  # the board's order: the higher mean is above
                    assert (signs[i, j] > 0) == (a.mean > b.mean), (a.model, b.model)
    ranked = [r.model for r in rank_overall(board, floors=floors_of(board))
              if r.place is not None]
    assert [r.model for r in rows] == list(dict.fromkeys(ranked))[:12]


def test_the_figures_are_drawn_as_png(board, tmp_path):
    paths = ranking_figures.ranking_figures(board, tmp_path, 4)
    assert [p.name for p in paths] == list(ranking_figures.FIGURES)
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 10_000
