"""Answers an attacker who reads the source would try, graded per variant and category.

A normalized 0 means "no better than reading the code": every answer built without a model
must score at most 0.02 in every variant x category, pooled as the board pools (the mean
over the variant's cohorts normalized, :func:`icgbench.tasks.normalized.mean_normalized`).
The attacks (``icgbench bench attacks``; ``tests/test_attacks.py`` holds them to it):

- **every answer of the panel** as it is (``model_free_scores``: its rule, its combinations,
  the two decoders, each fixed reversal guess, the chance level);
- **the best answer on the other cohorts**: per cohort and metric, the answer with the best
  mean score over the variant's other cohorts (their truth is public in the open tiers);
- **the best answer on the cohort's own train split**: per cohort and metric, the answer
  whose train score (``model_free_scores.selection``) is best;
- **the best fixed answer in hindsight**: per variant and metric, the answer with the best
  mean score over all of the variant's cohorts, the graded one included;
- **a reversal guessed at random** on each cohort (a misspecified variant's candidates),
  over many draws: the mean, the 95th percentile and the largest;
- **combinations outside the panel** (:data:`EXTRA`): weighted rank-averages, a fixed guess
  averaged with the mutation count, shrunk decoders;
- **the composite**: per category the best of the above, ``overall`` their mean.

Each fitted reference of the board must also be apart from the composite: separable from
it overall (the board's paired test on the same cohorts), or, where its overall is not,
separable above it on one variant and below it on another (:func:`apart`). The second is
a model whose overall sums a real gain and a real loss, not one no better than reading
the code: since data release 7.1.0, mbcnet_v0_1, which learns effects from associations,
wins on the misspecified variants and loses on ``hidden_confounding``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from icgbench.tasks import CATEGORIES

Cohort = tuple[str, int]
Part = tuple[str, str]
#: How far above the floor an answer without a model may score in any variant x category.
TOLERANCE = 0.02
#: Draws of the random reversal guess.
DRAWS = 2000
STREAM = 20261202


@dataclass(frozen=True)
class CohortPanel:
    """One cohort's panel: every answer's score per normalized metric, the floor and the
    reachable ceiling."""

    cohort: Cohort
    values: dict[str, dict[Part, float]]
    floor: dict[Part, float]
    ceiling: dict[Part, float]
    selections: dict[str, dict[Part, float]]


def load(tier: str, root: Path | None = None) -> list[CohortPanel]:
    """Every cohort's panel of a tier, from its ``model_free_scores`` and its truth."""
    from icgbench.api.tables import load_arrow, tier_descriptor
    from icgbench.io.progress import track
    from icgbench.scorer.truth import load_truth
    from icgbench.tasks import TASKS
    from icgbench.tasks.normalized import ceilings

    d = tier_descriptor(tier, root)
    out = []
    cohorts = d.cohorts()
    for c in track(cohorts, len(cohorts), "reading every cohort's panel"):
        truth = load_truth(d, c["variant"], c["seed"]).truth
        ceiling = {(t, m): v for t, task in TASKS.items() if task.normalized
                   for m, v in ceilings(task, truth).items() if v is not None}
        values: dict[str, dict[Part, float]] = {}
        selections: dict[str, dict[Part, float]] = {}
        floor = {}
        for (task, metric), (value, _) in truth.panel.items():
            floor[(task, metric)] = value
        for row in load_arrow(c["variant"], "model_free_scores", c["seed"], tier,
                              role="truth", root=root).to_pylist():
            values.setdefault(row["answer"], {})[(row["task"], row["metric"])] = row["value"]
            if row["selection"] is not None:
                selections.setdefault(row["answer"], {})[(row["task"], row["metric"])] = (
                    row["selection"])
        out.append(CohortPanel((c["variant"], c["seed"]), values, floor, ceiling,
                               selections))
    return out


def pooled(scores: Mapping[Cohort, Mapping[Part, float]], panels: Sequence[CohortPanel]
           ) -> dict[str, float | None]:
    """Each category's normalized mean over ``panels``' cohorts of an answer's ``scores``
    (a metric it has no score for on a cohort counts as the floor there)."""
    from icgbench.tasks.normalized import higher_is_better, mean_normalized, parts_of_categories

    out: dict[str, float | None] = {}
    for category, parts in parts_of_categories().items():
        values = []
        for part in parts:
            triples = [(scores.get(p.cohort, {}).get(part), p.floor[part], p.ceiling[part])
                       for p in panels if part in p.floor and part in p.ceiling]
            if not any(scores.get(p.cohort, {}).get(part) is not None for p in panels):
                continue
            value = mean_normalized(triples, higher_is_better(part))
            if value is not None:
                values.append(value)
        out[category] = math.fsum(values) / len(values) if values else None
    return out


def _by_variant(panels: Sequence[CohortPanel]) -> dict[str, list[CohortPanel]]:
    out: dict[str, list[CohortPanel]] = {}
    for p in panels:
        out.setdefault(p.cohort[0], []).append(p)
    return out


def _best(candidates: Mapping[str, float], part: Part) -> str:
    from icgbench.tasks.normalized import higher_is_better

    sign = 1 if higher_is_better(part) else -1
    return max(candidates, key=lambda a: (sign * candidates[a], -list(candidates).index(a)))


def _chosen_on(panels: Sequence[CohortPanel], part: Part) -> str | None:
    """The answer with the best mean over ``panels`` (answers present on all of them)."""
    answers = [a for a in panels[0].values if part in panels[0].values[a]
               and all(part in p.values.get(a, {}) for p in panels)]
    if not answers:
        return None
    return _best({a: statistics.fmean(p.values[a][part] for p in panels) for a in answers},
                 part)


def answer_attacks(panels: Sequence[CohortPanel]) -> dict[str, dict[Cohort, dict[Part, float]]]:
    """Every panel answer as an attack (its scores by cohort)."""
    out: dict[str, dict[Cohort, dict[Part, float]]] = {}
    for p in panels:
        for answer, values in p.values.items():
            out.setdefault(f"answer {answer}", {})[p.cohort] = dict(values)
    return out


def hindsight_attacks(panels: Sequence[CohortPanel]) -> dict[str, dict[Cohort, dict[Part, float]]]:
    """The best answer on the variant's other cohorts, and on all of them."""
    other: dict[Cohort, dict[Part, float]] = {}
    every: dict[Cohort, dict[Part, float]] = {}
    for mine in _by_variant(panels).values():
        parts = {part for p in mine for a in p.values.values() for part in a}
        for part in parts:
            fixed = _chosen_on(mine, part)
            for p in mine:
                if fixed is not None:
                    every.setdefault(p.cohort, {})[part] = p.values[fixed][part]
                rest = [q for q in mine if q is not p]
                chosen = _chosen_on(rest, part) if rest else None
                if chosen is not None:
                    other.setdefault(p.cohort, {})[part] = p.values[chosen][part]
    own: dict[Cohort, dict[Part, float]] = {}
    for p in panels:
        parts = {part for a in p.selections.values() for part in a}
        for part in parts:
            candidates = {a: v[part] for a, v in p.selections.items() if part in v}
            best = max(candidates, key=lambda a: (candidates[a], -list(candidates).index(a)))
            own.setdefault(p.cohort, {})[part] = p.values[best][part]
    return {"best on the other cohorts": other, "best fixed answer in hindsight": every,
            "best on the cohort's own train split": own}


def random_guesses(panels: Sequence[CohortPanel], draws: int = DRAWS
                   ) -> dict[str, dict[str, dict[str, float]]]:
    """A reversal guessed at random on each cohort, ``draws`` times: per variant and
    category, the mean, the 95th percentile and the largest pooled normalized score."""
    from icgbench.model_free.answers import GUESS_PREFIX

    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(STREAM)))
    out: dict[str, dict[str, dict[str, float]]] = {}
    for variant, mine in _by_variant(panels).items():
        guesses = sorted(a for a in mine[0].values if a.startswith(GUESS_PREFIX))
        if not guesses:
            continue
        results: dict[str, list[float]] = {}
        for _ in range(draws):
            picks = rng.integers(0, len(guesses), len(mine))
            scores = {p.cohort: p.values[guesses[k]] for p, k in zip(mine, picks, strict=True)}
            for category, value in pooled(scores, mine).items():
                if value is not None:
                    results.setdefault(category, []).append(value)
        out[variant] = {c: {"mean": statistics.fmean(v), "p95": float(np.quantile(v, 0.95)),
                            "max": max(v)} for c, v in results.items()}
    return out


#: Combinations outside the panel: name -> a function of the cohort's answers (by name)
#: and its inputs, giving a prediction (or None where it does not apply).
Extra = Callable[[Mapping[str, Any], Any], Any]


def _weighted_ranks(weights: Mapping[str, float]) -> Extra:
    def combine(made: Mapping[str, Any], inputs: Any) -> Any:
        from icgbench.model_free.answers import Prediction, ranks

        total = math.fsum(weights.values())
        return Prediction(risk={s: sum(w * ranks(made[a].risk[s]) for a, w in weights.items())
                                / total for s in inputs.ids})
    return combine


def _guess_with_count(made: Mapping[str, Any], inputs: Any) -> Any:
    """The first fixed guess's risk rank-averaged with the mutation count."""
    from icgbench.model_free.answers import GUESS_PREFIX, Prediction, ranks

    guesses = sorted(a for a in made if a.startswith(GUESS_PREFIX))
    if not guesses:
        return None
    g, count = made[guesses[0]], made["mutation_count"]
    return Prediction(risk={s: (ranks(g.risk[s]) + ranks(count.risk[s])) / 2
                            for s in inputs.ids})


def _shrunk(alpha: float) -> Extra:
    def combine(made: Mapping[str, Any], inputs: Any) -> Any:
        from icgbench.model_free.answers import Prediction

        mean = inputs.train_end.mean(axis=0)
        states = made["decoder_train_prior"].states
        return Prediction(states={s: alpha * x + (1 - alpha) * mean for s, x in states.items()})
    return combine


def _face_value(made: Mapping[str, Any], inputs: Any) -> Any:
    """The decoder with the documented loadings taken at face value (no spread, no cross
    loadings), and the prior's equation on it."""
    from dataclasses import replace

    from icgbench.generator.measurement import documented_loadings, family_mean
    from icgbench.model_free.answers import _from_states, decoded_states

    model = replace(family_mean(inputs.variant), loadings=documented_loadings())
    return _from_states(inputs, {s: decoded_states(inputs, s, model=model) for s in inputs.ids})


EXTRA: dict[str, Extra] = {
    "the decoder with the documented loadings at face value": _face_value,
    "weighted ranks: 2 mutation_count + decoder_train_prior + dose_assays":
        _weighted_ranks({"mutation_count": 2.0, "decoder_train_prior": 1.0,
                         "dose_assays": 1.0}),
    "weighted ranks: 2 decoder_train_prior + mutation_count":
        _weighted_ranks({"decoder_train_prior": 2.0, "mutation_count": 1.0}),
    "a fixed reversal guess with the mutation count": _guess_with_count,
    "decoder_train_prior shrunk 0.85 to the train mean": _shrunk(0.85),
    "decoder_train_prior shrunk 0.75 to the train mean": _shrunk(0.75),
    "decoder_train_prior shrunk 0.95 to the train mean": _shrunk(0.95),
}


def extra_attacks(tier: str, root: Path | None = None
                  ) -> dict[str, dict[Cohort, dict[Part, float]]]:
    """:data:`EXTRA` graded on every cohort of the tier, as the scorer grades."""
    from icgbench.api.tables import load_table, tier_descriptor
    from icgbench.bench.model_free import PUBLIC
    from icgbench.generator import get_variant
    from icgbench.io.progress import track
    from icgbench.model_free.answers import blocks, made
    from icgbench.model_free.donors import donors
    from icgbench.model_free.inputs import PanelInputs
    from icgbench.model_free.panel import _graded
    from icgbench.scorer.truth import load_truth

    d = tier_descriptor(tier, root)
    out: dict[str, dict[Cohort, dict[Part, float]]] = {}
    cohorts = d.cohorts()
    for c in track(cohorts, len(cohorts), "grading combinations outside the panel"):
        variant, seed = c["variant"], c["seed"]
        tables = {t: load_table(variant, t, seed, tier, role="public", root=root)
                  for t in PUBLIC}
        inputs = PanelInputs.from_tables(get_variant(variant), tables)
        answers = made(inputs, donors(get_variant(variant), seed))
        truth = load_truth(d, variant, seed).truth
        for name, combine in EXTRA.items():
            prediction = combine(answers, inputs)
            if prediction is not None:
                out.setdefault(name, {})[(variant, seed)] = _graded(
                    blocks(inputs, prediction), truth)
    return out


def worst(attacks: Mapping[str, Mapping[Cohort, Mapping[Part, float]]],
          panels: Sequence[CohortPanel]) -> dict[str, dict[str, tuple[float, str]]]:
    """Per variant and category: the highest pooled score of any attack, and which."""
    out: dict[str, dict[str, tuple[float, str]]] = {}
    for variant, mine in _by_variant(panels).items():
        for name, scores in attacks.items():
            for category, value in pooled(scores, mine).items():
                if value is None:
                    continue
                best = out.setdefault(variant, {}).get(category)
                if best is None or value > best[0]:
                    out[variant][category] = (value, name)
    return out


def composite(attacks: Mapping[str, Mapping[Cohort, Mapping[Part, float]]],
              panels: Sequence[CohortPanel]) -> dict[Cohort, dict[Part, float]]:
    """Per variant and category, the best attack's scores: one submission per cohort."""
    from icgbench.tasks.normalized import parts_of_categories

    parts = parts_of_categories()
    best = worst(attacks, panels)
    out: dict[Cohort, dict[Part, float]] = {}
    for variant, mine in _by_variant(panels).items():
        for category, (_, name) in best.get(variant, {}).items():
            for p in mine:
                for part in parts[category]:
                    value = attacks[name].get(p.cohort, {}).get(part)
                    if value is not None:
                        out.setdefault(p.cohort, {})[part] = value
    return out


def composite_shares(scores: Mapping[Cohort, Mapping[Part, float]],
                     panels: Sequence[CohortPanel]) -> tuple[float, dict[Cohort, float]]:
    """The composite's ``overall`` over every cohort and its per-cohort shares, as the
    board computes them (:func:`icgbench.tasks.normalized.aggregate`)."""
    from icgbench.tasks.normalized import aggregate

    bounds = {p.cohort: {part: (p.floor[part], p.ceiling[part]) for part in p.floor
                         if part in p.ceiling} for p in panels}
    cohorts = sorted(bounds)
    agg = aggregate(scores, bounds, cohorts, set(CATEGORIES))
    return agg.overall, agg.contributions["overall"]


def separability(board: Path, shares: Mapping[Cohort, float]) -> list[dict[str, Any]]:
    """Each complete model of the board: its ``overall``, the p-value of its paired test
    against the composite's shares, and per variant the mean difference of the shares and
    its p-value."""
    from icgbench.leaderboard.ranking import floors_of, normalized_with_shares
    from icgbench.leaderboard.store import load_board
    from icgbench.leaderboard.uncertainty import paired_p

    entries = load_board(board, new_tier=None).entries
    rows, model_shares = normalized_with_shares(entries, None, floors_of(entries))
    out = []
    for r in rows:
        if r.place is None or r.partial:
            continue
        mine = model_shares[(r.model, r.package_version)]
        per_variant = {}
        for variant in dict.fromkeys(v for v, _ in sorted(mine)):
            a = {c: x for c, x in mine.items() if c[0] == variant and c in shares}
            b = {c: shares[c] for c in a}
            per_variant[variant] = {
                "difference": statistics.fmean(a[c] - b[c] for c in a) if a else 0.0,
                "p_value": paired_p(a, b)}
        out.append({"model": f"{r.model} {r.package_version}", "overall": r.mean or 0.0,
                    "p_value": paired_p(mine, shares), "per_variant": per_variant})
    return out


def apart(row: Mapping[str, Any], alpha: float = 0.05) -> bool:
    """Whether a :func:`separability` row is apart from the composite (see the module):
    separable overall, or separable above it on one variant and below it on another."""
    if row["p_value"] is not None and row["p_value"] < alpha:
        return True
    signs = {math.copysign(1.0, v["difference"]) for v in row["per_variant"].values()
             if v["p_value"] is not None and v["p_value"] < alpha}
    return signs == {1.0, -1.0}


def report(tier: str, root: Path | None = None, board: Path | None = None,
           draws: int = DRAWS) -> dict[str, Any]:
    """Every attack of the module on ``tier`` (see the module), as JSON-ready data."""
    panels = load(tier, root)
    attacks = {**answer_attacks(panels), **hindsight_attacks(panels),
               **extra_attacks(tier, root)}
    by_variant = _by_variant(panels)
    best = worst(attacks, panels)
    scores = composite(attacks, panels)
    overall, shares = composite_shares(scores, panels)
    per_variant = {v: pooled({c: s for c, s in scores.items() if c[0] == v}, mine)
                   for v, mine in by_variant.items()}
    out: dict[str, Any] = {
        "tier": tier, "cohorts": len(panels), "attacks": len(attacks),
        "tolerance": TOLERANCE,
        "worst": {v: {c: {"score": s, "attack": a} for c, (s, a) in cats.items()}
                  for v, cats in best.items()},
        "random_guesses": random_guesses(panels, draws),
        "composite": {"overall": overall, "per_variant": {
            v: {**cats, "overall": math.fsum(x or 0.0 for x in cats.values()) / len(CATEGORIES)}
            for v, cats in per_variant.items()}},
    }
    if board is not None:
        out["separable"] = [{**row, "apart": apart(row)}
                            for row in separability(board, shares)]
    return out
