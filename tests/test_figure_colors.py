"""One colour per model in every figure and on the page; figures drawn from the board list
exactly what they draw, a submitted model included."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from icgbench.bench import plots, ranking_figures
from icgbench.leaderboard.page import build_page
from icgbench.leaderboard.store import load_board, write_board
from icgbench.models import DECLARATIONS
from icgbench.models.colors import NEUTRAL, model_colors

ROOT = Path(__file__).resolve().parents[1]


def test_every_competitor_has_its_own_colour_and_references_are_grey():
    colours = model_colors(DECLARATIONS)
    competitors = [m for m in DECLARATIONS if m not in NEUTRAL]
    assert len({colours[m] for m in competitors}) == len(competitors)
    assert not {colours[m] for m in competitors} & set(NEUTRAL.values())
    for m, grey in NEUTRAL.items():
        r, g, b = (int(grey[i:i + 2], 16) for i in (1, 3, 5))
        assert colours[m] == grey and r == g == b  # a neutral grey


def test_a_models_colour_does_not_depend_on_what_else_is_drawn():
    everyone = model_colors([*DECLARATIONS, "zeta", "alpha"])
    assert model_colors(["mbcnet_boosted"]) == {"mbcnet_boosted": everyone["mbcnet_boosted"]}
    assert model_colors(["random", "alpha", "zeta"]) == {
        m: everyone[m] for m in ("random", "alpha", "zeta")}
    assert everyone["alpha"] != everyone["zeta"]


def test_a_twelfth_competitor_takes_the_second_palette_not_the_first_colour(monkeypatch):
    """Past the first palette a competitor takes the second one, ahead of contributions: no
    two models of a board share a colour while the second palette lasts."""
    from icgbench.models import colors

    more = [*DECLARATIONS, "twelfth_model", "thirteenth_model"]
    monkeypatch.setattr(colors, "MODELS", more)
    drawn = model_colors([*more, "alpha"])
    competitors = [m for m in more if m not in NEUTRAL]
    assert drawn["twelfth_model"] == colors.EXTRA[0]
    assert drawn["thirteenth_model"] == colors.EXTRA[1] and drawn["alpha"] == colors.EXTRA[2]
    assert len({drawn[m] for m in [*competitors, "alpha"]}) == len(competitors) + 1


@pytest.fixture(scope="module")
def board_with_a_submission(tmp_path_factory) -> Path:
    """The committed board plus one submitted model (a renamed copy of a reference's
    entries, so it scores like one)."""
    folder = tmp_path_factory.mktemp("board")
    entries = load_board(ROOT / "leaderboard", new_tier=None).entries
    mine = [dataclasses.replace(e, model_name="my_model", package_version="1.0.0")
            for e in entries if e.model_name == "mbcnet_boosted"]
    mine = [dataclasses.replace(e, submission_path=e.canonical_path) for e in mine]
    write_board(folder, "full", [*entries, *mine])
    return folder


@pytest.mark.slow
def test_the_board_figures_list_exactly_the_models_they_draw(board_with_a_submission,
                                                            tmp_path, monkeypatch):
    legends: dict[str, list[str]] = {}
    colours: dict[str, dict[str, str]] = {}
    real_save = plots._save

    def capture(fig, path):
        texts = [t.get_text() for legend in [*fig.legends, *(
            ax.get_legend() for ax in fig.axes if ax.get_legend())] for t in legend.texts]
        legends[path.name] = texts
        colours[path.name] = {c.get_label(): c.patches[0].get_facecolor() for ax in fig.axes
                              for c in ax.containers if hasattr(c, "patches") and c.patches}
        return real_save(fig, path)

    monkeypatch.setattr(plots, "_save", capture)
    entries = load_board(board_with_a_submission, new_tier=None).entries
    drawn = plots.board_figures(entries, [], tmp_path, limit=12)
    assert [p.name for p in drawn] == list(plots.BOARD_FIGURES)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in drawn)
    bars = legends["scores_by_variant.png"]
    assert "my_model" in bars and "random" in bars
    structure_only = {"correlation", "panel_regression", "pc", "ges", "direct_lingam",
                      "pcmci_plus"}
    assert not structure_only & set(bars)  # no headline bar: not listed
    assert not structure_only & set(legends["auroc_vs_r2.png"])
    expected = model_colors(bars)
    for model, rgba in colours["scores_by_variant.png"].items():
        hex_colour = "#" + "".join(f"{round(c * 255):02X}" for c in rgba[:3])
        assert hex_colour == expected[model], model


@pytest.mark.slow
def test_the_page_shows_each_model_in_its_figure_colour(board_with_a_submission):
    page = build_page(board_with_a_submission, None, with_oracle=False)
    rules = dict(re.findall(r"\.(c\d+)\{background:(#[0-9A-F]{6})\}", page.html))
    for model in ("mbcnet_boosted", "my_model", "random"):
        found = set(re.findall(rf'<span class="swatch (c\d+)"></span>{model}'
                               r'(?:</td>| <|<span class="v-inline">)', page.html))
        assert len(found) == 1, (model, found)
        cls = found.pop()
        assert rules[cls] == model_colors([model])[model], model
    assert 'id="figure-scores_by_variant"' in page.html
    assert "drawn from this board" in page.html


def test_a_board_whose_models_draw_no_bar_renders_without_those_figures(tmp_path):
    """Structure-only models have no headline bar, no AUROC point and no transfer gap: the
    page leaves the three board figures out instead of failing."""
    entries = [e for e in load_board(ROOT / "leaderboard", new_tier=None).entries
               if e.model_name == "correlation"]
    write_board(tmp_path / "board", "full", entries)
    assert plots.board_figures(entries, [], tmp_path / "figures") == []
    page = build_page(tmp_path / "board", None, with_oracle=False)
    assert "figure-scores_by_variant" not in page.html and page.entries == len(entries)


@pytest.mark.slow
def test_bench_plots_draws_a_boards_figures_from_the_command_line(tmp_path, capsys):
    """On one cohort's entries: the reference lines grade the oracle and the ceiling on
    every cohort a board holds (about 20 s for the committed board's 30)."""
    from icgbench.cli import main

    board = tmp_path / "board"
    write_board(board, "full", [e for e in load_board(ROOT / "leaderboard", new_tier=None
                                                      ).entries
                                if (e.variant_name, e.seed) == ("linear_lowhet", 1)])
    out = tmp_path / "figures"
    assert main(["bench", "plots", "--dir", str(board), "--outdir", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(
        (*ranking_figures.FIGURES, *plots.BOARD_FIGURES))
    assert f"to {out}" in capsys.readouterr().out
    assert main(["bench", "plots", "--dir", str(tmp_path / "none"), "--outdir",
                 str(out)]) == 2


def _lab(color: str) -> tuple[float, float, float]:
    """CIELAB (D65) of a hex colour."""
    rgb = [int(color[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92 for c in rgb]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_a_contributions_colour_is_far_from_every_reference_colour():
    """Release 5.0 drew a new model in #77aadd beside mbcnet_v0_1's #56b4e9 (CIELAB distance
    9.7): every contribution colour now keeps 25 from the registry's and the reference
    lines' and from the other contributions', and shows on white."""
    import itertools
    import math

    from icgbench.models.colors import EXTRA, NEUTRAL, PALETTE

    for extra in EXTRA:
        assert 30 <= _lab(extra)[0] <= 80, extra
        for other in (*PALETTE, *NEUTRAL.values()):
            assert math.dist(_lab(extra), _lab(other)) >= 25, (extra, other)
    for a, b in itertools.combinations(EXTRA, 2):
        assert math.dist(_lab(a), _lab(b)) >= 25, (a, b)
