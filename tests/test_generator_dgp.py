"""Statistical tests: the DGP is what it claims, with tolerances that cannot pass by accident.

Tolerances are stated beside each check; most are four binomial or sampling standard
errors at the sample size used.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LinearRegression
from sklearn.metrics import roc_auc_score

from conftest import cohort, slow_except
from icgbench.contract.vocabulary import (
    HOST_TRAITS,
    KCCS,
    MODALITIES,
    STATES,
    feature_columns,
    kcc_assay_column,
)
from icgbench.generator import all_variants, get_variant, prior_direction, simulate
from icgbench.generator.dynamics import simulate_dynamics
from icgbench.generator.interventions import INTERVENTIONS, scale_matrix
from icgbench.generator.population import sample_population
from icgbench.generator.reference import cohort_mechanism, dynamics_constants
from icgbench.generator.streams import stream

VARIANTS = [v.name for v in all_variants()]
N = 3000  # subjects per cohort in these tests: 1800 train, 600 test, 600 target


def test_same_inputs_give_identical_tables():
    a = simulate("partial_observability", 11, n_subjects=60)
    b = simulate("partial_observability", 11, n_subjects=60)
    assert a.tables.keys() == b.tables.keys()
    for name in a.tables:
        assert a.tables[name].equals(b.tables[name]), name


def test_different_seeds_differ():
    a = simulate("linear_lowhet", 1, n_subjects=60)
    b = simulate("linear_lowhet", 2, n_subjects=60)
    for name in ("subjects", "observations", "test_outcomes", "kcc_activations", "graph",
                 "prior_graph"):
        assert not a.tables[name].equals(b.tables[name]), name
    for name in ("interventions", "nodes", "structural_prior"):
        assert a.tables[name].equals(b.tables[name]), name


def test_first_subjects_do_not_depend_on_cohort_size():
    small = simulate("nonlinear_mixhost", 5, sizes={"train": 40, "test": 5, "target_test": 5})
    large = simulate("nonlinear_mixhost", 5, sizes={"train": 90, "test": 9, "target_test": 7})
    for name in ("subjects", "host_latents", "kcc_activations", "train_states"):
        s, big = small.tables[name], large.tables[name]
        head = big.filter(np.isin(big["subject_id"].to_numpy(zero_copy_only=False),
                                  s["subject_id"].to_numpy(zero_copy_only=False)))
        assert s.equals(head), name


def test_streams_are_independent_per_purpose():
    a = stream("abcdef012345", 3, "train", "dose").standard_normal(5)
    r = stream("abcdef012345", 3, "train", "host")
    r.standard_normal(1000)
    b = stream("abcdef012345", 3, "train", "dose").standard_normal(5)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, stream("abcdef012345", 3, "test", "dose").standard_normal(5))


@pytest.mark.parametrize("name", VARIANTS)
def test_event_rate_is_in_band_and_true_risk_predicts_event(name):
    # documented band: train event rate 0.30 +/- 0.08 (the intercept is solved for 0.30 on
    # a 4,000-subject reference population; binomial se at n=1800 is 0.011)
    c = cohort(name, 1, N)
    train = c.tables["train_outcomes"]["event"].to_numpy()
    assert 0.22 <= train.mean() <= 0.38
    held = c.tables["test_outcomes"].to_pandas()
    src = held[held.split == "test"]
    assert 0.15 <= src.event.mean() <= 0.45  # both classes well represented
    assert roc_auc_score(src.event, src.true_risk) > 0.70
    assert ((held.true_risk >= 0) & (held.true_risk <= 1)).all()


def _subject_modality_masked(c, modality: str) -> np.ndarray:
    m = c.tables["masks"].to_pandas()
    return (~m.groupby("subject_id")[modality].any()).to_numpy()


def test_partial_observability_masks_sixty_percent_of_subjects():
    c = cohort("partial_observability", 1, N)
    se = np.sqrt(0.6 * 0.4 / N)
    masked = {}
    for modality in ("transcriptomic", "epigenomic", "mutational"):
        masked[modality] = _subject_modality_masked(c, modality)
        assert abs(masked[modality].mean() - 0.60) < 4 * se, (modality, masked[modality].mean())
    none_seen = np.logical_and.reduce([np.asarray(m) for m in masked.values()]).mean()
    assert abs(none_seen - 0.6**3) < 4 * np.sqrt(0.216 * 0.784 / N)  # independent per modality


@pytest.mark.parametrize("name", [v for v in VARIANTS if v != "partial_observability"])
def test_other_variants_mask_only_dropped_visits(name):
    c = cohort(name, 1, N)
    m = c.tables["masks"].to_pandas().set_index(["subject_id", "visit_month"])
    modalities = m[list(MODALITIES)]
    assert (modalities.all(axis=1) == modalities.any(axis=1)).all()  # dropped whole or not
    dropped = ~modalities.any(axis=1)
    assert not dropped.xs(0, level="visit_month").any()  # baseline is always observed
    later = dropped[dropped.index.get_level_values("visit_month") > 0]
    rate = get_variant(name).visit_dropout_rate
    assert abs(later.mean() - rate) < 4 * np.sqrt(rate * (1 - rate) / len(later))


def test_masked_cells_are_null_and_observed_cells_are_not():
    c = cohort("partial_observability", 1, N)
    obs = c.tables["observations"].to_pandas()
    m = c.tables["masks"].to_pandas().set_index(["subject_id", "visit_month"])
    obs = obs.set_index(["subject_id", "visit_month"]).loc[m.index]
    for modality, columns in feature_columns().items():
        values = obs[list(columns)]
        assert (values.isna().all(axis=1) == ~m[modality]).all()
        assert (values.notna().all(axis=1) == m[modality]).all()


def _linear_r2_of_omics_on_states(name: str) -> float:
    c = cohort(name, 1, N)
    obs = c.tables["observations"].to_pandas()
    st = c.tables["train_states"].to_pandas().rename(columns={"month": "visit_month"})
    merged = obs.merge(st, on=["subject_id", "visit_month"])
    cols = [*feature_columns()["transcriptomic"], *feature_columns()["epigenomic"]]
    merged = merged.dropna(subset=cols)
    x = merged[list(STATES)].to_numpy()
    return float(np.mean([LinearRegression().fit(x, merged[c]).score(x, merged[c])
                          for c in cols]))


def test_nonlinear_obs_defeats_a_linear_map_from_states_to_omics():
    linear = _linear_r2_of_omics_on_states("linear_lowhet")
    nonlinear = _linear_r2_of_omics_on_states("nonlinear_obs")
    assert linear > 0.30
    assert nonlinear < linear - 0.08, (linear, nonlinear)


def test_high_heterogeneity_widens_host_spread_and_low_heterogeneity_targets_spread_wider():
    low = cohort("linear_lowhet", 1, N).tables["host_latents"].to_pandas()
    high = cohort("nonlinear_mixhost", 1, N).tables["host_latents"].to_pandas()
    ids = low.subject_id.str[:2]
    source_low, source_high = low[ids != "TG"], high[high.subject_id.str[:2] != "TG"]
    for trait in HOST_TRAITS:
        ratio = source_high[trait].std() / source_low[trait].std()
        assert ratio > 1.8, (trait, ratio)
    for trait in ("repair_capacity", "immune_surveillance", "baseline_proliferation"):
        source, target = low[ids != "TG"][trait], low[ids == "TG"][trait]
        assert target.std() > 2.5 * source.std(), trait  # outside the training support
        assert abs(target.mean() - source.mean()) < 0.5 * target.std(), trait
        assert stats.ks_2samp(source, target).pvalue < 1e-6, trait


@pytest.mark.parametrize("name", ["linear_lowhet", "misspecified_signs", "misspecified_signs_v2"])
@pytest.mark.parametrize("seed", [0, 1])
def test_true_intervention_effects_follow_the_dgp_signs(name, seed):
    """The family's signs are coherent with the prior, so every path from a state to the
    event carries the prior's sign, except from the states the cohort reverses: each
    intervention moves the true risk the prior's way unless it scales a reversed state."""
    c = cohort(name, seed, N)
    flipped = set(cohort_mechanism(get_variant(name), seed).flipped)
    assert len(flipped) == get_variant(name).n_flips
    effects = c.tables["intervention_effects"].to_pandas().set_index("intervention")
    cf = c.tables["counterfactual_risks"].to_pandas()
    cf = cf[cf.split == "test"]
    for do, targets in INTERVENTIONS.items():
        prior = prior_direction(do)
        true_mean = float((cf[f"risk__{do}"] - cf["risk"]).mean())
        expect = -prior if flipped & set(targets) else prior
        assert np.sign(true_mean) == expect, (do, true_mean)
        assert effects.loc[do, "dgp_direction"] == expect
        assert effects.loc[do, "prior_direction"] == prior
        assert abs(true_mean) > 0.002  # responsive, not a coin flip around zero


def _run(v, seed, pop, scales):
    mechanism = cohort_mechanism(v, seed)
    scale, centre, _ = dynamics_constants(v, mechanism, v.months)
    return simulate_dynamics(v, seed, pop, v.months, (v.months,), scales, scale, mechanism,
                             clone_centre=centre)


def test_each_block_draws_its_own_dynamics():
    """The block index enters every stream of the recurrence: one population run as block 0
    and as block 1 gets other dose pulses, noise and frailty (a cohort larger than one
    block would otherwise repeat its first block's subjects' histories)."""
    v = get_variant("linear_lowhet")
    pop = sample_population(v, 2, "train", 40)
    mechanism = cohort_mechanism(v, 2)
    scale, centre, _ = dynamics_constants(v, mechanism, v.months)
    runs = [simulate_dynamics(v, 2, pop, v.months, (v.months,), np.ones((1, len(STATES))),
                              scale, mechanism, block, centre) for block in (0, 1)]
    assert not np.allclose(runs[0].states, runs[1].states)
    assert not np.allclose(runs[0].hazard_sum, runs[1].hazard_sum)
    again = simulate_dynamics(v, 2, pop, v.months, (v.months,), np.ones((1, len(STATES))),
                              scale, mechanism, 1, centre)
    np.testing.assert_array_equal(again.hazard_sum, runs[1].hazard_sum)


def test_identity_intervention_reproduces_the_factual_risk_exactly():
    v = get_variant("nonlinear_mixhost")
    pop = sample_population(v, 3, "test", 200)
    scales = np.vstack([scale_matrix(list(INTERVENTIONS)), np.ones((1, len(STATES)))])
    traj = _run(v, 3, pop, scales)
    assert np.array_equal(traj.hazard_sum[0], traj.hazard_sum[-1])
    assert not np.array_equal(traj.hazard_sum[0], traj.hazard_sum[1])


def _end_states(v, pop, scales=None):
    scales = np.ones((1, len(STATES))) if scales is None else scales
    return _run(v, 0, pop, scales).states[-1]


def _descendants(edges, node):
    children = {}
    for s, t, *_ in edges:
        children.setdefault(s, set()).add(t)
    seen, todo = set(), [node]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


@pytest.mark.parametrize("name", ["linear_lowhet", "nonlinear_mixhost", "misspecified_signs_v2"])
def test_published_graph_is_the_structure_the_simulator_runs(name):
    """Perturbing a node changes exactly the states the cohort's graph says descend from
    it (seed 0's graph, the one the runs below simulate)."""
    v = get_variant(name)
    edges = cohort_mechanism(v, 0).edges()
    pop = sample_population(v, 0, "test", 300)
    base = _end_states(v, pop)
    for j, state in enumerate(STATES):
        scales = np.ones((1, len(STATES)))
        scales[0, j] = 1.3
        changed = {s for i, s in enumerate(STATES)
                   if i != j and not np.array_equal(_end_states(v, pop, scales)[i], base[i])}
        assert changed == _descendants(edges, state) - {"event"}, state
    for k, kcc in enumerate(KCCS):
        act = pop.activation.copy()
        act[:, k] = np.clip(act[:, k] + 0.2, 0, 1)
        bumped = dataclasses.replace(pop, activation=act)
        after = _end_states(v, bumped)
        changed = {s for i, s in enumerate(STATES) if not np.array_equal(after[i], base[i])}
        assert changed == _descendants(edges, kcc_assay_column(kcc)) - {"event"}, kcc


def _roots_match(cohorts: list) -> set[str]:
    """Assert the shipped roots of ``cohorts`` are what brentq solves now; their keys."""
    from icgbench.generator.reference import solve_roots, solved_roots

    fresh = {k: float.fromhex(v) for variant, seed in cohorts
             for k, v in solve_roots(variant, cohort_mechanism(variant, seed),
                                     variant.months).items()}
    shipped = {k: float.fromhex(v) for k, v in solved_roots().items()}
    assert fresh.keys() <= shipped.keys()
    for key, root in fresh.items():
        assert abs(shipped[key] - root) <= 1e-12 + 4 * np.finfo(float).eps * abs(root), key
    return set(fresh)


@pytest.mark.slow
def test_shipped_roots_are_what_brentq_solves_now() -> None:
    """solved_roots.json (read so generation need not import scipy.optimize) holds, for every
    cohort of the frozen open tiers at its variant's follow-up, the roots brentq finds now,
    to brentq's own accuracy (xtol 1e-12 plus 4 ulp relative). Not bit for bit: numpy's
    vectorised exp and log give last-bit differences between CPUs (AVX2 against AVX-512),
    which move a solved root by an ulp or two. That is why the roots ship: the release reads
    these bits on every CPU (`freeze --check` holds with numpy's AVX-512 paths on and off)."""
    from icgbench.generator.reference import frozen_cohorts, solved_roots

    assert _roots_match(frozen_cohorts()) == set(solved_roots())  # and nothing stale ships


@pytest.mark.parametrize("cohorts", slow_except(["one"], ["one", "small tier"]))
def test_the_small_tiers_roots_are_what_brentq_solves_now(cohorts) -> None:
    """The fast cases of the test above: one cohort of the small tier (target spread and
    intercept solved again: the solver's code, which shipped roots bypass, is exercised),
    then each of its cohorts (one per variant)."""
    from icgbench.generator.reference import frozen_cohorts

    _roots_match([(variant, seed) for variant, seed in frozen_cohorts() if seed == 0
                  and (cohorts != "one" or variant.name == "partial_observability")])


def test_the_shipped_effects_name_exactly_the_frozen_cohorts() -> None:
    """published_effects.json holds one entry per frozen cohort, at its tier's size, and
    nothing stale (a changed variant hash or tier size leaves no entry behind)."""
    from icgbench.generator.reference import frozen_cohorts
    from icgbench.model_free.donors import _published_size, effects_key, shipped_effects

    assert set(shipped_effects()) == {effects_key(v, s, *_published_size(v, s))
                                      for v, s in frozen_cohorts()}


@pytest.mark.drift
@pytest.mark.parametrize("cohorts", slow_except(["one"], ["one", "all"]))
def test_the_shipped_effects_are_what_simulation_gives_now(cohorts) -> None:
    """The shipped published effects (read so that simulating one cohort need not simulate
    its variant's other frozen cohorts) are the ones simulated now, bit for bit: they are
    rounded to the published decimals. The fast case checks one cohort, CI all of them."""
    from icgbench.generator.reference import frozen_cohorts
    from icgbench.model_free.donors import published_effects, simulate_published_effects

    chosen = frozen_cohorts() if cohorts == "all" else [(get_variant("linear_lowhet"), 1)]
    for variant, seed in chosen:
        assert published_effects(variant, seed) == simulate_published_effects(variant, seed)


def test_the_target_site_proxy_calibration_is_the_same_in_every_block():
    """Without the lab's per-reading noise, a target block's host proxies are an exact affine
    map (gain, offset per proxy) of the same subjects' proxies read at the source site; the
    map is the target site's calibration, one per cohort: the same in every block."""
    v = dataclasses.replace(get_variant("partial_observability"), target_lab_noise_sd=0.0)
    maps = []
    for block in range(3):
        target = sample_population(v, 4, "target_test", 50, block=block)
        source = sample_population(v, 4, "target_test", 50, block=block, domain="source")
        fitted = []
        for j in range(target.proxies.shape[1]):
            gain, offset = np.polyfit(source.proxies[:, j], target.proxies[:, j], 1)
            np.testing.assert_allclose(gain * source.proxies[:, j] + offset,
                                       target.proxies[:, j], atol=1e-9)
            fitted.append((gain, offset))
        maps.append(np.array(fitted))
    assert np.abs(np.log(maps[0][:, 0])).max() > 0.05  # a calibration, not the identity
    for other in maps[1:]:
        np.testing.assert_allclose(other, maps[0], rtol=1e-9, atol=1e-12)
    first = [sample_population(v, 4, "target_test", 50, block=b).host[0] for b in range(2)]
    assert not np.array_equal(*first)  # while every block holds other subjects


def test_every_variant_simulates_its_committed_small_cohort() -> None:
    """The fast suite's share of the drift check: each variant's small-tier cohort,
    simulated now, has the content digest the committed descriptor gives every table of
    the DGP (the files' bytes and the panel's table are `make test-drift`'s, through
    `freeze --check`). Any change to the generator's output, in any variant's code path,
    fails here."""
    from pathlib import Path

    from icgbench import contract
    from icgbench.release import encode
    from icgbench.release.descriptor import load_descriptor
    from icgbench.release.tiers import TIERS

    tier = TIERS["small"]
    root = Path(__file__).resolve().parents[1]
    committed = {(r.variant, r.seed, r.table): r.content_digest
                 for r in load_descriptor(root / tier.descriptor_path).resources
                 if r.format == "parquet"}
    checked = 0
    for variant in all_variants():
        for seed in tier.seeds:
            simulated = simulate(variant, seed, sizes=dict(tier.sizes), months=tier.months)
            for table, data in simulated.tables.items():
                schema = contract.table_schema(table)
                digest = encode.content_digest(encode.conform(data, schema, table), schema)
                assert digest == committed[(variant.name, seed, table)], (variant.name, table)
                checked += 1
    assert checked == len([k for k in committed if k[2] != "model_free_scores"])
