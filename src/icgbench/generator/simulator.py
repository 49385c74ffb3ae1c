"""``simulate``: one cohort (variant, seed) with every public table and its ground truth."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from icgbench.contract.vocabulary import (
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
from icgbench.generator import mechanism as mech
from icgbench.generator.blocks import BLOCK_SIZE, Block, add_in_order, split_blocks
from icgbench.generator.dynamics import (
    Trajectories,
    event_probability,
    expected_event_probability,
    simulate_dynamics,
)
from icgbench.generator.family import Mechanism, prior_graph
from icgbench.generator.interventions import (
    INTERVENTIONS,
    intervention_names,
    prior_direction,
    scale_matrix,
)
from icgbench.generator.observation import Observations, observe
from icgbench.generator.population import Population, sample_population
from icgbench.generator.prior import prior_signs, prior_weights
from icgbench.generator.reference import cohort_mechanism, dynamics_constants
from icgbench.generator.streams import Seed, stream
from icgbench.generator.variants import Variant, get_variant
from icgbench.io.arrow import array, masked, numbered, repeated, strings, table, validity_of


@dataclass(frozen=True)
class BlockResult:
    """Everything simulated for one block of a split, before it is laid out as tables."""

    split: str
    ids: pa.Array  # strings
    population: Population
    trajectories: Trajectories
    risk: np.ndarray  # (runs, n): factual first, then one row per intervention
    reachable: np.ndarray  # (runs, n): risk with the frailty integrated out
    event: np.ndarray
    observations: Observations

    def effect_sums(self) -> np.ndarray:
        """Per intervention, the block's sum of (intervened - factual) risk (held-out
        splits only; empty for train)."""
        return np.array([np.add.reduce(self.risk[r] - self.risk[0])
                         for r in range(1, self.risk.shape[0])])


@dataclass(frozen=True)
class Cohort:
    """One simulated cohort: its variant, seed, sizes and tables (name -> Arrow table)."""

    variant: Variant
    seed: Seed
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


def simulate_block(
    variant: Variant, seed: Seed, block: Block, months: int, visits: tuple[int, ...]
) -> BlockResult:
    """Simulate one block of subjects (:mod:`.blocks`): it needs no other block."""
    split, n = block.split, block.n
    mechanism = cohort_mechanism(variant, seed)
    scale, centre, spread = dynamics_constants(variant, mechanism, months)
    pop = sample_population(variant, seed, split, n, block.index, target_spread=spread)
    names = [] if split == "train" else intervention_names()
    record = tuple(sorted(set(visits) | {months}))
    traj = simulate_dynamics(variant, seed, pop, months, record, scale_matrix(names), scale,
                             mechanism, block.index, centre)
    risk = event_probability(traj.hazard_sum, scale.intercept)
    reachable = expected_event_probability(traj.state_hazard, scale.intercept,
                                           variant.frailty_sd)
    event = stream(variant.variant_hash, seed, split, "event", block.index).random(n) < risk[0]
    obs = observe(variant, seed, pop, traj, scale, visits, block.index)
    ids = numbered(SPLIT_ID_PREFIX[split], block.start + 1, block.stop + 1)
    return BlockResult(split, ids, pop, traj, risk, reachable, event, obs)


def check_request(variant: Variant, seed: Seed, sizes: dict[str, int], months: int) -> None:
    """Raise ValueError for a seed, size or follow-up no cohort can have."""
    if isinstance(seed, int) and seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    if months < 1:
        raise ValueError(f"months must be at least 1, got {months}")
    for split in SPLITS:
        if sizes.get(split, 0) < 1:
            raise ValueError(f"split {split!r} needs at least one subject, got {sizes.get(split)}")


def visit_months(variant: Variant, months: int) -> tuple[int, ...]:
    """The variant's visits within a follow-up of ``months``."""
    return tuple(m for m in variant.visit_months if m <= months)


def simulate(
    variant: Variant | str,
    seed: Seed,
    *,
    n_subjects: int | None = None,
    sizes: dict[str, int] | None = None,
    months: int | None = None,
    block_size: int = BLOCK_SIZE,
) -> Cohort:
    """Simulate one cohort of ``variant`` with ``seed``, in memory.

    ``sizes`` ({split: n}) or ``n_subjects`` (split 60/20/20) override the variant's
    default sizes; ``months`` overrides its follow-up (visits beyond it are dropped). The
    cohort is simulated block by block (:mod:`.blocks`); :mod:`.shards` writes one too large
    to hold in memory.
    """
    if isinstance(variant, str):
        variant = get_variant(variant)
    months = variant.months if months is None else months
    if sizes is None:
        sizes = split_sizes(variant, n_subjects)
    check_request(variant, seed, sizes, months)
    visits = visit_months(variant, months)
    parts = [simulate_block(variant, seed, b, months, visits)
             for b in split_blocks(sizes, block_size)]
    effects = {split: add_in_order([p.effect_sums() for p in parts if p.split == split])
               for split in HELD_OUT}
    tables = {**subject_tables(parts), **cohort_tables(variant, seed, months, effects,
                                                        {s: sizes[s] for s in HELD_OUT})}
    return Cohort(variant, seed, months, dict(sizes), {t: tables[t] for t in TABLE_ORDER})


# --- table layout ------------------------------------------------------------------------


def _concat(parts: list[BlockResult], get) -> np.ndarray:
    return np.concatenate([get(p) for p in parts])


def _ids(parts: list[BlockResult]) -> pa.Array:
    return pa.concat_arrays([p.ids for p in parts])


def _constant(parts: list[BlockResult], value_of, rows=lambda p: len(p.ids)) -> pa.Array:
    """A string column holding ``value_of(block)`` on each of the block's ``rows(block)``
    rows."""
    return pa.concat_arrays([repeated(value_of(p), rows(p)) for p in parts])


def _round(values: np.ndarray, decimals: int = mech.PUBLISHED_DECIMALS) -> np.ndarray:
    """Published precision: the release states numbers to a fixed number of decimals."""
    return np.round(values, decimals)


def _subjects(parts: list[BlockResult]) -> pa.Table:
    cols: dict[str, object] = {
        "subject_id": _ids(parts),
        "split": _constant(parts, lambda p: p.split),
        "domain": _constant(parts, lambda p: SPLIT_DOMAIN[p.split]),
        "age": _concat(parts, lambda p: p.population.age.astype(np.int64)),
        "sex": strings(["M", "F"]).take(array(
            _concat(parts, lambda p: p.population.female.astype(np.int64)))),
        "archetype": strings(list(ARCHETYPES)).take(array(
            _concat(parts, lambda p: p.population.archetype_index.astype(np.int64)))),
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
    return table(cols)


def _repeat(ids: pa.Array, times: int) -> pa.Array:
    """Each id repeated ``times`` times."""
    return ids.take(array(np.repeat(np.arange(len(ids), dtype=np.int64), times)))


def _observations(parts: list[BlockResult]) -> tuple[pa.Table, pa.Table]:
    features = feature_columns()
    nm = len(MODALITIES)
    ids = pa.concat_arrays([_repeat(p.ids, len(p.observations.visit_months)) for p in parts])
    months = np.concatenate(
        [np.tile(np.array(p.observations.visit_months), len(p.ids)) for p in parts]
    )
    observed = np.concatenate([p.observations.observed.reshape(-1, nm) for p in parts])
    # one contiguous row per feature: every column is then a plain slice
    blocks = {
        "transcriptomic": np.concatenate(
            [p.observations.transcriptomic.reshape(_rows(p), -1) for p in parts]).T.copy(),
        "epigenomic": np.concatenate(
            [p.observations.epigenomic.reshape(_rows(p), -1) for p in parts]).T.copy(),
        "mutational": np.concatenate(
            [p.observations.signatures.reshape(_rows(p), -1) for p in parts]).T.copy(),
    }
    counts = np.concatenate([p.observations.mutation_count.reshape(-1) for p in parts])
    obs: dict[str, pa.Array] = {"subject_id": ids, "visit_month": array(months)}
    for mi, modality in enumerate(MODALITIES):
        validity = validity_of(~observed[:, mi])
        for j, column in enumerate(features[modality]):
            values = counts if column == "mut_total_count" else blocks[modality][j]
            obs[column] = masked(values, validity)
    masks: dict[str, object] = {"subject_id": ids, "visit_month": array(months)}
    for mi, modality in enumerate(MODALITIES):
        masks[modality] = observed[:, mi]
    return table(obs), table(masks)


def _rows(p: BlockResult) -> int:
    """Number of (subject, visit) rows of one split."""
    return len(p.ids) * len(p.observations.visit_months)


def _states(parts: list[BlockResult], truth: bool) -> pa.Table:
    """The states at every recorded month; the truth (held-out splits) also has the split
    and latent_risk, which the public train table leaves out: it is a function of the
    cohort's outcome weights, which a public column must never hand out."""
    cols: dict[str, object] = {
        "subject_id": pa.concat_arrays([_repeat(p.ids, len(p.trajectories.months))
                                        for p in parts]),
        "split": _constant(parts, lambda p: p.split,
                           lambda p: len(p.ids) * len(p.trajectories.months)),
        "month": np.concatenate([np.tile(np.array(p.trajectories.months), len(p.ids))
                                 for p in parts]),
    }
    for j, s in enumerate(STATES):
        cols[s] = _round(np.concatenate([p.trajectories.states[:, j, :].T.reshape(-1)
                                         for p in parts]))
    cols[RISK_STATE] = _round(np.concatenate([p.trajectories.latent_risk.T.reshape(-1)
                                              for p in parts]))
    if not truth:
        del cols["split"], cols[RISK_STATE]
    return table(cols)


def _structural_prior() -> pa.Table:
    """The prior per state: its sign and nominal weight (the equation built from them is
    calibrated on the public train tables, :mod:`.prior`)."""
    return table({"state": list(STATES), "prior_sign": prior_signs(),
                  "prior_weight": prior_weights()})


#: Tables with a row per subject (or subject-visit), built from any run of blocks.
TRAIN_TABLES = ("train_outcomes", "train_states")
HELD_OUT_TABLES = ("test_outcomes", "test_states", "counterfactual_risks", "reachable_risks")
#: Tables of the cohort as a whole (small): the registry, the priors, the graph, the effects.
COHORT_TABLES = ("interventions", "structural_prior", "prior_graph", "nodes",
                 "intervention_effects", "graph", "hidden_confounders")
#: The order of ``Cohort.tables``: every table the DGP writes (the release adds the
#: model-free panel's scores, :mod:`icgbench.model_free`, which grade these).
TABLE_ORDER = ("subjects", "observations", "masks", "train_outcomes", "train_states",
               "interventions", "structural_prior", "prior_graph", "nodes", "test_outcomes",
               "test_states", "kcc_activations", "host_latents", "counterfactual_risks",
               "reachable_risks", "intervention_effects", "graph", "hidden_confounders")
HELD_OUT = ("test", "target_test")


def _split_column(parts: list[BlockResult]) -> pa.Array:
    return _constant(parts, lambda p: p.split)


def subject_tables(parts: list[BlockResult]) -> dict[str, pa.Table]:
    """The per-subject tables of a run of blocks, in release order; a table none of the
    blocks has rows for (e.g. ``test_outcomes`` of train blocks) is left out."""
    train = [p for p in parts if p.split == "train"]
    held_out = [p for p in parts if p.split in HELD_OUT]
    obs, masks = _observations(parts)
    tables = {"subjects": _subjects(parts), "observations": obs, "masks": masks}
    if train:
        tables["train_outcomes"] = table(
            {"subject_id": _ids(train),
             "event": _concat(train, lambda p: p.event.astype(np.int64))})
        tables["train_states"] = _states(train, truth=False)
    if held_out:
        tables["test_outcomes"] = table({
            "subject_id": _ids(held_out),
            "split": _split_column(held_out),
            "event": _concat(held_out, lambda p: p.event.astype(np.int64)),
            "true_risk": _round(_concat(held_out, lambda p: p.risk[0])),
        })
        tables["test_states"] = _states(held_out, truth=True)
    tables["kcc_activations"] = table(
        {"subject_id": _ids(parts)}
        | {k: _round(_concat(parts, lambda p, j=j: p.population.activation[:, j]))
           for j, k in enumerate(KCCS)})
    tables["host_latents"] = table(
        {"subject_id": _ids(parts)}
        | {t: _round(_concat(parts, lambda p, j=j: p.population.host[:, j]))
           for j, t in enumerate(HOST_TRAITS)}
        | {FRAILTY: _round(_concat(parts, lambda p: p.trajectories.frailty))})
    if held_out:
        tables["counterfactual_risks"] = _risk_table(held_out, lambda p: p.risk)
        tables["reachable_risks"] = _risk_table(held_out, lambda p: p.reachable)
    return tables


def _risk_table(held_out: list[BlockResult], runs) -> pa.Table:
    """Per held-out subject, one risk per run (``runs(block)`` is (runs, n): factual first,
    then one row per intervention)."""
    columns: dict[str, object] = {
        "subject_id": _ids(held_out),
        "split": _split_column(held_out),
        "risk": _round(_concat(held_out, lambda p: runs(p)[0])),
    }
    for r, name in enumerate(intervention_names(), start=1):
        columns[f"risk__{name}"] = _round(_concat(held_out, lambda p, r=r: runs(p)[r]))
    return table(columns)


def cohort_tables(variant: Variant, seed: Seed, months: int,
                  effect_sums: dict[str, np.ndarray], held_out_sizes: dict[str, int]
                  ) -> dict[str, pa.Table]:
    """The cohort-level tables; ``effect_sums`` is, per held-out split, each intervention's
    sum of risk changes over the split's subjects (added in block order)."""
    names = intervention_names()
    mean = {s: effect_sums[s] / held_out_sizes[s] for s in HELD_OUT}
    effects = {
        "intervention": names,
        "prior_direction": [prior_direction(n) for n in names],
        "dgp_direction": [int(np.sign(m)) for m in mean["test"]],
        "mean_effect": [round(float(m), mech.PUBLISHED_DECIMALS) for m in mean["test"]],
        "mean_effect_target": [round(float(m), mech.PUBLISHED_DECIMALS)
                               for m in mean["target_test"]],
    }
    registry = [(n, s, sc) for n in names for s, sc in INTERVENTIONS[n].items()]
    mechanism: Mechanism = cohort_mechanism(variant, seed)
    edges = mechanism.edges()
    prior_edges = prior_graph(variant, seed)
    nodes = mech.graph_nodes()
    return {
        "interventions": table(
            {
                "intervention": [r[0] for r in registry],
                "state": [r[1] for r in registry],
                "scale": [r[2] for r in registry],
                "prior_direction": [prior_direction(r[0]) for r in registry],
            }
        ),
        "structural_prior": _structural_prior(),
        "prior_graph": table({"source": [e[0] for e in prior_edges],
                              "target": [e[1] for e in prior_edges],
                              "kind": [e[2] for e in prior_edges],
                              "sign": [e[3] for e in prior_edges]}),
        "nodes": table({"node": [n for n, _ in nodes], "kind": [k for _, k in nodes]}),
        "intervention_effects": table(effects),
        "graph": table(
            {
                "source": [e[0] for e in edges],
                "target": [e[1] for e in edges],
                "kind": [e[2] for e in edges],
                "sign": [e[3] for e in edges],
                "weight": [e[4] for e in edges],
            }
        ),
        "hidden_confounders": _hidden_confounders(mechanism),
    }


def _hidden_confounders(mechanism: Mechanism) -> pa.Table:
    """Each state a hidden factor confounds (no rows where none is): the factor's monthly
    push on it, in its risk-raising direction, its log-hazard coefficient through no state,
    and the state's causal sign on the event (:mod:`.family`)."""
    beta = dict(zip(STATES, mechanism.risk_beta, strict=True))
    rows = mechanism.confounded
    return table({
        "state": strings([s for s, _, _ in rows]),
        "state_step": np.array([step for _, step, _ in rows], dtype=np.float64),
        "hazard_coefficient": np.array([h for _, _, h in rows], dtype=np.float64),
        "causal_sign": np.array([np.sign(beta[s]) for s, _, _ in rows], dtype=np.int64),
    })
