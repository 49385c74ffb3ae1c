"""Other cohorts' truth, as the copying answers read it: graphs and average effects.

An answer that copies another cohort's truth reads what the open tiers publish: every other
frozen cohort's true graph, and the test-split average effects (``intervention_effects``'
``mean_effect``) of the other frozen cohorts of the same variant. The effects ship in
``published_effects.json``, so that grading one cohort's panel need not simulate the test
split of every other frozen cohort of its variant; ``python -m icgbench.model_free.shipped
--effects`` rewrites it, and a test simulates them again.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Any

from icgbench.generator import mechanism as mech
from icgbench.generator.blocks import add_in_order, split_blocks
from icgbench.generator.interventions import intervention_names
from icgbench.generator.reference import frozen_cohorts
from icgbench.generator.simulator import simulate_block, visit_months
from icgbench.generator.variants import Variant
from icgbench.model_free.answers import Donors

#: ``"<variant_hash>/<seed>/<months>/<n_test>"`` -> {intervention: effect}.
PUBLISHED_EFFECTS = "published_effects.json"


@functools.lru_cache(maxsize=2048)
def published_effects(variant: Variant, seed: int) -> dict[str, float]:
    """A frozen cohort's published test-split average effects (its ``intervention_effects``
    ``mean_effect``), simulated at its own tier's size: what an answer that copies another
    cohort's truth reads. Read from the shipped file when it holds them."""
    months, n_test = _published_size(variant, seed)
    stored = shipped_effects().get(effects_key(variant, seed, months, n_test))
    return dict(stored) if stored is not None else simulate_published_effects(variant, seed)


def simulate_published_effects(variant: Variant, seed: int) -> dict[str, float]:
    """:func:`published_effects` simulated now (the shipped file's source)."""
    months, n_test = _published_size(variant, seed)
    sizes = {"train": 0, "test": n_test, "target_test": 0}
    sums = add_in_order([simulate_block(variant, seed, b, months, visit_months(variant, months)
                                        ).effect_sums() for b in split_blocks(sizes)])
    return {n: round(float(s / n_test), mech.PUBLISHED_DECIMALS)
            for n, s in zip(intervention_names(), sums, strict=True)}


def _published_size(variant: Variant, seed: int) -> tuple[int, int]:
    """(follow-up months, test subjects) of the frozen tier that holds ``seed``."""
    from icgbench.release.tiers import TIERS

    tier = next(t for t in TIERS.values() if seed in t.seeds)
    return tier.months or variant.months, tier.sizes["test"]


def effects_key(variant: Variant, seed: int, months: int, n_test: int) -> str:
    """The key of one cohort's effects in the shipped file."""
    return f"{variant.variant_hash}/{seed}/{months}/{n_test}"


@functools.cache
def shipped_effects() -> dict[str, dict[str, float]]:
    """The shipped file's content (see PUBLISHED_EFFECTS)."""
    text = resources.files(__package__).joinpath(PUBLISHED_EFFECTS).read_text(encoding="utf-8")
    return json.loads(text)


def write_published_effects(cohorts: list[tuple[Variant, int]]) -> Path:
    """Simulate the given frozen cohorts' published effects and rewrite the shipped file
    with exactly theirs."""
    from icgbench.io.atomic import write_text

    effects = {effects_key(v, seed, *_published_size(v, seed)):
               simulate_published_effects(v, seed) for v, seed in cohorts}
    path = Path(__file__).with_name(PUBLISHED_EFFECTS)
    write_text(path, json.dumps(effects, indent=1, sort_keys=True) + "\n")
    return path


def donors(variant: Variant, seed: Any) -> Donors:
    """The other frozen cohorts' truth a copying answer reads: every other frozen cohort's
    graph, and the test-split average effects of the other frozen cohorts of the variant
    (``seed`` names the cohort left out)."""
    others = [(v, s) for v, s in frozen_cohorts() if (v.name, s) != (variant.name, seed)]
    return Donors(graphs=tuple(graph(v, s) for v, s in others),
                  effects=tuple(published_effects(v, s) for v, s in others
                                if v.name == variant.name))


@functools.lru_cache(maxsize=2048)
def graph(variant: Variant, seed: int) -> frozenset[tuple[str, str]]:
    """The cohort's true edges (its ``graph`` table's: rescaling the outcome weights, which
    :func:`~icgbench.generator.reference.cohort_mechanism` adds, changes no edge)."""
    from icgbench.generator.family import draw_mechanism

    return frozenset((e[0], e[1]) for e in draw_mechanism(variant, seed).edges())
