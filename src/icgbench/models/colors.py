"""One colour per model, the same in every figure and on the leaderboard page.

The registry's competitors take fixed colours from a colour-blind-safe qualitative palette
(Okabe and Ito's, completed with Paul Tol's muted scheme), in registry order, so
``mbcnet_boosted`` is the same orange everywhere. The reference lines are neutral: greys,
drawn hatched or dashed, never a palette colour (``random`` the light grey floor,
``ceiling`` and ``oracle`` darker). A model not in the registry (a submitted one) takes a
colour from a second palette, by its place among the board's other such names in sorted
order, so a board always draws the same way. The second palette keeps a distance of at
least 25 in CIELAB from every registry and reference colour and between its own colours,
with a lightness between 30 and 80 so that it shows on white (``tests/test_figure_colors``);
a contribution's bars and points also have a black outline. Past its nine colours, the
palette repeats with the outline dashed.
"""

from __future__ import annotations

from collections.abc import Iterable

from icgbench.models import DECLARATIONS as MODELS

#: The registry's competitors, in order (11 today); a twelfth and later take EXTRA first.
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#882255",
           "#44AA99", "#999933", "#332288", "#DDCC77")
#: Models outside the registry (contributions), in sorted order.
EXTRA = ("#EE3377", "#66CC00", "#A6611A", "#E41A1C", "#984EA3", "#33A02C", "#FB8072",
         "#FF00FF", "#B2182B")
#: Reference lines: neutral greys.
NEUTRAL = {"random": "#A6A6A6", "ceiling": "#5F5F5F", "oracle": "#1A1A1A"}


def is_reference(model: str) -> bool:
    """A reference line (drawn in a neutral style, never ranked)."""
    return model in NEUTRAL


def is_contribution(model: str) -> bool:
    """A model outside the registry (drawn from the second palette, outlined)."""
    return model not in MODELS and model not in NEUTRAL


def model_colors(models: Iterable[str]) -> dict[str, str]:
    """The colour of each of ``models`` (hex)."""
    names = list(dict.fromkeys(models))
    competitors = [m for m in MODELS if m not in NEUTRAL]
    others = sorted(m for m in names if m not in MODELS and m not in NEUTRAL)
    overflow = max(0, len(competitors) - len(PALETTE))  # competitors past PALETTE take EXTRA
    out = {}
    for m in names:
        if m in NEUTRAL:
            out[m] = NEUTRAL[m]
        elif m in competitors and (i := competitors.index(m)) < len(PALETTE):
            out[m] = PALETTE[i]
        elif m in competitors:
            out[m] = EXTRA[(i - len(PALETTE)) % len(EXTRA)]
        else:
            out[m] = EXTRA[(overflow + others.index(m)) % len(EXTRA)]
    return out
