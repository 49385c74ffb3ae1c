"""The family of mechanisms: every cohort draws its own graph, the docs only the family.

Release 4.0.0 had one graph for every cohort, printed in the docs, so a graph transcribed
from them scored like the oracle. These tests hold the opposite: graphs (and the reversed
signs of the misspecified variants) differ between cohorts and tiers, follow the family's
documented rules, and appear in truth tables only.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, slow_except
from icgbench.api.tables import load_table, tier_descriptor
from icgbench.contract.vocabulary import OUTCOME_NODE, STATES
from icgbench.generator import all_variants, get_variant
from icgbench.generator import mechanism as mech
from icgbench.generator.family import (
    ACCUMULATING,
    KCC_SPREAD,
    SPREAD,
    UNDRIVEN,
    candidates,
    coherent_sign,
    draw_mechanism,
    edge_probabilities,
    is_exposure_input,
    prior_graph,
)
from icgbench.generator.reference import cohort_mechanism

VARIANTS = [v.name for v in all_variants()]


def _graph(variant: str, seed: int, tier: str) -> frozenset[tuple[str, str]]:
    g = load_table(variant, "graph", seed, tier, role="truth")
    return frozenset(zip(g.source, g.target, strict=True))


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_cohort_of_the_release_has_its_own_graph(variant):
    seeds = {t: [c["seed"] for c in tier_descriptor(t).cohorts() if c["variant"] == variant]
             for t in ("small", "full")}
    graphs = [_graph(variant, s, t) for t, ss in seeds.items() for s in ss]
    assert len(graphs) == 1 + 60  # the small tier's seed 0, the full tier's seeds 1-60
    assert len(set(graphs)) == len(graphs)  # every seed and both tiers differ


def test_the_published_graph_is_the_drawn_mechanism():
    for variant in ("linear_lowhet", "misspecified_signs_v2"):
        edges = cohort_mechanism(get_variant(variant), 0).edges()
        g = load_table(variant, "graph", 0, "small", role="truth")
        assert list(zip(g.source, g.target, g.sign, strict=True)) == [
            (s, t, sign) for s, t, _, sign, _ in edges]


@pytest.mark.parametrize("variant", ["linear_lowhet", "misspecified_signs_v2"])
def test_every_draw_follows_the_documented_rules(variant):
    v = get_variant(variant)
    family = {(c.node, c.target): c for c in candidates()}
    for seed in range(40):
        m = draw_mechanism(v, seed)
        edges = m.edges()
        assert {(s, t) for s, t, *_ in edges} <= set(family)  # nothing outside the family
        raised = {t for s, t, kind, sign, _ in edges if kind != "state_outcome" and sign > 0}
        assert set(STATES) - {UNDRIVEN} <= raised  # every state but one has a driver
        assert {s for s, t, *_ in edges if t == OUTCOME_NODE} == set(STATES)
        for s, t, kind, sign, weight in edges:
            expected = family[(s, t)].sign
            if kind != "kcc_state" and s in m.flipped:
                expected = -expected  # a reversed state's every outgoing edge is negated
            assert sign == expected, (s, t)
            if kind == "state_state" and t in ACCUMULATING:
                assert sign > 0
            if kind != "state_outcome":  # the nominal weight times a draw from the spread
                c = family[(s, t)]
                low, high = KCC_SPREAD if is_exposure_input(c) else SPREAD
                assert low * c.nominal - 1e-6 <= abs(weight) <= high * c.nominal + 1e-6
        assert len(m.flipped) == v.n_flips
        assert set(m.flipped) <= set(v.flip_candidates)


def test_crosstalk_signs_are_coherent_with_the_prior():
    for c in candidates():
        if c.kind == "state_state":
            assert c.sign == coherent_sign(c.source, c.target)


def test_graphs_vary_in_size_and_content_across_draws():
    v = get_variant("nonlinear_mixhost")
    sizes = [len(draw_mechanism(v, s).edges()) for s in range(60)]
    assert min(sizes) < max(sizes)
    shares = np.mean([[1.0 if (c.node, c.target) in {(a, b) for a, b, *_ in
                                                      draw_mechanism(v, s).edges()} else 0.0
                       for c in candidates()] for s in range(60)], axis=0)
    mechanism_edges = [p for c, p in zip(candidates(), shares, strict=True)
                       if c.group != "outcome"]
    assert max(mechanism_edges) < 0.75  # no mechanism edge is (almost) certain


@pytest.mark.parametrize("variant", ["misspecified_signs", "misspecified_signs_v2"])
def test_which_signs_are_reversed_is_drawn_per_cohort(variant):
    v = get_variant(variant)
    assert len(v.flip_candidates) >= 3
    drawn = {cohort_mechanism(v, s).flipped for s in range(12)}
    assert len(drawn) > 1
    assert {s for d in drawn for s in d} <= set(v.flip_candidates)
    effects = load_table(variant, "intervention_effects", 0, "small", role="truth")
    assert (effects.dgp_direction != effects.prior_direction).any()


def test_the_prior_graph_is_a_noisy_view_of_the_family_not_of_the_graph():
    v = get_variant("linear_lowhet")
    skeleton = {(c.node, c.target) for c in candidates() if c.group == "skeleton"}
    for seed in range(10):
        listed = {(s, t) for s, t, *_ in prior_graph(v, seed)}
        truth = {(s, t) for s, t, *_ in draw_mechanism(v, seed).edges()}
        assert listed != truth
        assert 0 < len(skeleton - listed) < len(skeleton)  # missing skeleton edges
        assert any((t, s) in skeleton for s, t in listed if (s, t) not in skeleton) or (
            listed - skeleton - {(s, OUTCOME_NODE) for s in STATES})  # reversed or spurious
    published = load_table("linear_lowhet", "prior_graph", 0, "small")
    assert list(zip(published.source, published.target, strict=True)) == [
        (s, t) for s, t, *_ in prior_graph(v, 0)]


def _info(variant: str) -> tuple[str, dict]:
    run = [sys.executable, "-m", "icgbench", "bench", "info", variant]
    text = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    data = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True,
                                     check=True).stdout)
    return text, data


def test_bench_info_prints_the_candidates_and_the_count_never_a_cohorts_draw():
    text, data = _info("misspecified_signs_v2")
    v = get_variant("misspecified_signs_v2")
    assert data["sign_reversals"] == {
        "count": 2, "candidates": [{"state": s, "prior_sign": mech.PRIOR_SIGNS[s]}
                                   for s in v.flip_candidates]}
    assert "each cohort reverses 2 of" in text
    assert "truth tables only" in text
    assert "flipped" not in json.dumps(data)


def test_the_docs_describe_the_family_not_a_realized_graph():
    """No graph of the release is listed in the docs: no cohort's edge set appears as a
    table of edges (docs/dgp.md prints the family's candidates, with their groups)."""
    dgp = (ROOT / "docs" / "dgp.md").read_text(encoding="utf-8")
    for variant in ("linear_lowhet", "misspecified_signs"):
        edges = _graph(variant, 0, "small")
        mechanism_edges = {(s, t) for s, t in edges if t != OUTCOME_NODE}
        rows = {(s, t) for s, t in mechanism_edges if f"`{s}` | `{t}`" in dgp}
        candidates_listed = {(c.node, c.target) for c in candidates()
                             if f"`{c.node}` | `{c.target}`" in dgp}
        assert rows <= candidates_listed  # whatever is listed is listed as a candidate
    assert "## The family of causal graphs" in dgp


@pytest.mark.parametrize("draws", slow_except([2_000], [2_000, 20_000]))
def test_the_closed_form_edge_probabilities_are_the_recipes(draws):
    """edge_probabilities (the panel's ``family`` answer) against draws of the recipe
    without reversals: within sampling error (5 standard errors); 20,000 draws in CI."""
    from icgbench.generator.family import present_candidates

    family = candidates()
    rng = np.random.default_rng(np.random.SeedSequence(42))
    counts = np.zeros(len(family))
    for _ in range(draws):
        for i in present_candidates(family, rng):
            counts[i] += 1
    p = edge_probabilities()
    for c, n in zip(family, counts, strict=True):
        expected = p[(c.node, c.target)]
        se = max(np.sqrt(expected * (1 - expected) / draws), 1e-9)
        assert abs(n / draws - expected) <= 5 * se, (c.node, c.target)
