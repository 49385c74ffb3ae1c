"""``simulate``: one cohort (variant, seed) with every public table and its ground truth."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from icgbench.generator import mechanism as mech
from icgbench.generator.dynamics import Trajectories, event_probability, simulate_dynamics
from icgbench.generator.interventions import (
    INTERVENTIONS,
    intervention_names,
    prior_direction,
    scale_matrix,
)
from icgbench.generator.observation import Observations, observe
from icgbench.generator.population import Population, sample_population
from icgbench.generator.prior import PriorEquation
from icgbench.generator.reference import prior_equation, reference_scale
from icgbench.generator.streams import stream
from icgbench.generator.variants import Variant, get_variant
from icgbench.vocabulary import (
    ARCHETYPES,
    FRAILTY,
    HOST_TRAITS,
    KCCS,
    MODALITIES,
    PROXIED_TRAITS,
    RISK_STATE,
    SPLIT_DOMAIN,
    SPLIT_ID_PREFIX,
    SPLITS,
    STATES,
    feature_columns,
    kcc_assay_column,
    mixture_column,
    proxy_column,
)


@dataclass(frozen=True)
class SplitResult:
    """Everything simulated for one split, before it is laid out as tables."""

    split: str
    ids: np.ndarray
    population: Population
    trajectories: Trajectories
    risk: np.ndarray  # (runs, n): factual first, then one row per intervention
    event: np.ndarray
    observations: Observations


@dataclass(frozen=True)
class Cohort:
    """One simulated cohort: its variant, seed, sizes and tables (name -> Arrow table)."""

    variant: Variant
    seed: int
    months: int
    sizes: dict[str, int]
    tables: dict[str, pa.Table] = field(repr=False)


def split_sizes(variant: Variant, n_subjects: int | None) -> dict[str, int]:
    """Sizes per split: the variant's defaults, or ``n_subjects`` divided 60/20/20."""
    if n_subjects is None:
        return {"train": variant.n_train, "test": variant.n_test, "target_test": variant.n_target}
    if n_subjects < len(SPLITS):
        raise ValueError(f"n_subjects must be at least {len(SPLITS)}, got {n_subjects}")
    test = max(1, round(0.2 * n_subjects))
    target = max(1, round(0.2 * n_subjects))
    return {"train": n_subjects - test - target, "test": test, "target_test": target}


def _simulate_split(
    variant: Variant, seed: int, split: str, n: int, months: int, visits: tuple[int, ...]
) -> SplitResult:
    scale = reference_scale(variant, months)
    beta = mech.risk_coefficients(variant.flipped_signs)
    pop = sample_population(variant, seed, split, n)
    names = [] if split == "train" else intervention_names()
    record = tuple(sorted(set(visits) | {months}))
    traj = simulate_dynamics(variant, seed, pop, months, record, scale_matrix(names), scale, beta)
    risk = event_probability(traj.hazard_sum, scale.intercept)
    event = stream(variant.variant_hash, seed, split, "event").random(n) < risk[0]
    obs = observe(variant, seed, pop, traj, scale, visits)
    ids = np.array([f"{SPLIT_ID_PREFIX[split]}{i:06d}" for i in range(1, n + 1)], dtype=object)
    return SplitResult(split, ids, pop, traj, risk, event, obs)


def simulate(
    variant: Variant | str,
    seed: int,
    *,
    n_subjects: int | None = None,
    sizes: dict[str, int] | None = None,
    months: int | None = None,
) -> Cohort:
    """Simulate one cohort of ``variant`` with ``seed``.

    ``sizes`` ({split: n}) or ``n_subjects`` (split 60/20/20) override the variant's
    default sizes; ``months`` overrides its follow-up (visits beyond it are dropped).
    """
    if isinstance(variant, str):
        variant = get_variant(variant)
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    months = variant.months if months is None else months
    if months < 1:
        raise ValueError(f"months must be at least 1, got {months}")
    if sizes is None:
        sizes = split_sizes(variant, n_subjects)
    for split in SPLITS:
        if sizes.get(split, 0) < 1:
            raise ValueError(f"split {split!r} needs at least one subject, got {sizes.get(split)}")
    visits = tuple(m for m in variant.visit_months if m <= months)
    parts = [_simulate_split(variant, seed, s, sizes[s], months, visits) for s in SPLITS]
    tables = _tables(variant, parts, months)
    return Cohort(variant, seed, months, dict(sizes), tables)


# --- table layout ------------------------------------------------------------------------


def _concat(parts: list[SplitResult], get) -> np.ndarray:
    return np.concatenate([get(p) for p in parts])


def _round(values: np.ndarray, decimals: int = mech.PUBLISHED_DECIMALS) -> np.ndarray:
    """Published precision: the release states numbers to a fixed number of decimals."""
    return np.round(values, decimals)


def _subjects(parts: list[SplitResult]) -> pa.Table:
    cols: dict[str, object] = {
        "subject_id": _concat(parts, lambda p: p.ids),
        "split": _concat(parts, lambda p: np.full(len(p.ids), p.split, dtype=object)),
        "domain": _concat(
            parts, lambda p: np.full(len(p.ids), SPLIT_DOMAIN[p.split], dtype=object)
        ),
        "age": _concat(parts, lambda p: p.population.age.astype(np.int64)),
        "sex": _concat(parts, lambda p: np.where(p.population.female, "F", "M").astype(object)),
        "archetype": _concat(
            parts, lambda p: np.array(ARCHETYPES, dtype=object)[p.population.archetype_index]
        ),
        "dose": _round(_concat(parts, lambda p: p.population.dose)),
    }
    measured = mech.OBSERVATION_DECIMALS
    for j, a in enumerate(ARCHETYPES):
        cols[mixture_column(a)] = _round(_concat(parts, lambda p, j=j: p.population.mixture[:, j]))
    for j, k in enumerate(KCCS):
        cols[kcc_assay_column(k)] = _round(
            _concat(parts, lambda p, j=j: p.population.assay[:, j]), measured
        )
    for j, t in enumerate(PROXIED_TRAITS):
        cols[proxy_column(t)] = _round(
            _concat(parts, lambda p, j=j: p.population.proxies[:, j]), measured
        )
    return pa.table(cols)


def _repeat(ids: np.ndarray, times: int) -> pa.Array:
    """Each id repeated ``times`` times, as an Arrow string array (cheaper than objects)."""
    return pa.array(ids, type=pa.string()).take(np.repeat(np.arange(len(ids)), times))


def _observations(parts: list[SplitResult]) -> tuple[pa.Table, pa.Table]:
    features = feature_columns()
    nm = len(MODALITIES)
    ids = pa.concat_arrays([_repeat(p.ids, len(p.observations.visit_months)) for p in parts])
    months = np.concatenate(
        [np.tile(np.array(p.observations.visit_months), len(p.ids)) for p in parts]
    )
    observed = np.concatenate([p.observations.observed.reshape(-1, nm) for p in parts])
    blocks = {
        "transcriptomic": np.concatenate(
            [p.observations.transcriptomic.reshape(_rows(p), -1) for p in parts]
        ),
        "epigenomic": np.concatenate(
            [p.observations.epigenomic.reshape(_rows(p), -1) for p in parts]
        ),
        "mutational": np.concatenate(
            [p.observations.signatures.reshape(_rows(p), -1) for p in parts]
        ),
    }
    counts = np.concatenate([p.observations.mutation_count.reshape(-1) for p in parts])
    obs: dict[str, pa.Array] = {"subject_id": ids, "visit_month": pa.array(months)}
    for mi, modality in enumerate(MODALITIES):
        hidden = ~observed[:, mi]
        for j, column in enumerate(features[modality]):
            values = counts if column == "mut_total_count" else blocks[modality][:, j]
            obs[column] = pa.array(values, mask=hidden)
    masks: dict[str, object] = {"subject_id": ids, "visit_month": pa.array(months)}
    for mi, modality in enumerate(MODALITIES):
        masks[modality] = observed[:, mi]
    return pa.table(obs), pa.table(masks)


def _rows(p: SplitResult) -> int:
    """Number of (subject, visit) rows of one split."""
    return len(p.ids) * len(p.observations.visit_months)


def _states(parts: list[SplitResult], with_split: bool) -> pa.Table:
    cols: dict[str, list[np.ndarray]] = {"subject_id": [], "split": [], "month": []}
    for name in (*STATES, RISK_STATE):
        cols[name] = []
    for p in parts:
        t = p.trajectories
        n, nt = len(p.ids), len(t.months)
        cols["subject_id"].append(np.repeat(p.ids, nt))
        cols["split"].append(np.full(n * nt, p.split, dtype=object))
        cols["month"].append(np.tile(np.array(t.months), n))
        for j, s in enumerate(STATES):
            cols[s].append(_round(t.states[:, j, :].T.reshape(-1)))
        cols[RISK_STATE].append(_round(t.latent_risk.T.reshape(-1)))
    out = {k: np.concatenate(v) for k, v in cols.items()}
    if not with_split:
        del out["split"]
    return pa.table(out)


def _structural_prior(equation: PriorEquation) -> pa.Table:
    """The prior per state, with its risk equation (constants repeated on every row).

    The equation is defined by the published values, which are already at the release's
    published precision (see :func:`.reference.prior_equation`).
    """
    n = len(STATES)
    return pa.table(
        {
            "state": list(STATES),
            "prior_sign": equation.signs.astype(np.int64),
            "prior_weight": equation.weights,
            "reference_mean": equation.mean,
            "reference_sd": equation.sd,
            "intercept": np.full(n, equation.intercept),
            "hazard_scale": np.full(n, equation.hazard_scale),
            "months": np.full(n, equation.months, dtype=np.int64),
        }
    )


def _tables(variant: Variant, parts: list[SplitResult], months: int) -> dict[str, pa.Table]:
    by_split = {p.split: p for p in parts}
    train, held_out = by_split["train"], [by_split["test"], by_split["target_test"]]
    names = intervention_names()
    obs, masks = _observations(parts)

    cf: dict[str, object] = {
        "subject_id": _concat(held_out, lambda p: p.ids),
        "split": _concat(held_out, lambda p: np.full(len(p.ids), p.split, dtype=object)),
        "risk": _round(_concat(held_out, lambda p: p.risk[0])),
    }
    for r, name in enumerate(names, start=1):
        cf[f"risk__{name}"] = _round(_concat(held_out, lambda p, r=r: p.risk[r]))

    def mean_effect(p: SplitResult, r: int) -> float:
        return float(np.mean(p.risk[r] - p.risk[0]))

    effects = {
        "intervention": names,
        "prior_direction": [prior_direction(n) for n in names],
        "dgp_direction": [int(np.sign(mean_effect(by_split["test"], r)))
                          for r in range(1, len(names) + 1)],
        "mean_effect": [round(mean_effect(by_split["test"], r), mech.PUBLISHED_DECIMALS)
                        for r in range(1, len(names) + 1)],
        "mean_effect_target": [round(mean_effect(by_split["target_test"], r),
                                     mech.PUBLISHED_DECIMALS)
                               for r in range(1, len(names) + 1)],
    }
    registry = [(n, s, sc) for n in names for s, sc in INTERVENTIONS[n].items()]
    edges = mech.true_edges(variant.flipped_signs)
    nodes = mech.graph_nodes()
    return {
        "subjects": _subjects(parts),
        "observations": obs,
        "masks": masks,
        "train_outcomes": pa.table(
            {"subject_id": train.ids, "event": train.event.astype(np.int64)}
        ),
        "train_states": _states([train], with_split=False),
        "interventions": pa.table(
            {
                "intervention": [r[0] for r in registry],
                "state": [r[1] for r in registry],
                "scale": [r[2] for r in registry],
                "prior_direction": [prior_direction(r[0]) for r in registry],
            }
        ),
        "structural_prior": _structural_prior(prior_equation(variant, months)),
        "nodes": pa.table({"node": [n for n, _ in nodes], "kind": [k for _, k in nodes]}),
        "test_outcomes": pa.table(
            {
                "subject_id": _concat(held_out, lambda p: p.ids),
                "split": _concat(held_out, lambda p: np.full(len(p.ids), p.split, dtype=object)),
                "event": _concat(held_out, lambda p: p.event.astype(np.int64)),
                "true_risk": _round(_concat(held_out, lambda p: p.risk[0])),
            }
        ),
        "test_states": _states(held_out, with_split=True),
        "kcc_activations": pa.table(
            {"subject_id": _concat(parts, lambda p: p.ids)}
            | {k: _round(_concat(parts, lambda p, j=j: p.population.activation[:, j]))
               for j, k in enumerate(KCCS)}
        ),
        "host_latents": pa.table(
            {"subject_id": _concat(parts, lambda p: p.ids)}
            | {t: _round(_concat(parts, lambda p, j=j: p.population.host[:, j]))
               for j, t in enumerate(HOST_TRAITS)}
            | {FRAILTY: _round(_concat(parts, lambda p: p.trajectories.frailty))}
        ),
        "counterfactual_risks": pa.table(cf),
        "intervention_effects": pa.table(effects),
        "graph": pa.table(
            {
                "source": [e[0] for e in edges],
                "target": [e[1] for e in edges],
                "kind": [e[2] for e in edges],
                "sign": [e[3] for e in edges],
                "weight": [e[4] for e in edges],
            }
        ),
    }
