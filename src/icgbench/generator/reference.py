"""Per-cohort constants solved on a fixed reference population.

latent_risk standardises each state by its end-of-follow-up mean and sd, and the hazard
intercept is solved so the source domain's mean event probability equals the variant's
``target_prevalence``. All are computed once per (variant, mechanism, months) on a
reference population of the variant drawn from its own stream and run through the
cohort's mechanism, so they depend on the cohort's graph but never on its size or its
subjects.

Every average here is a correctly rounded sum (``math.fsum``), not numpy's reduction: the
order in which numpy adds depends on the CPU's vector width, and a last-bit difference in
these constants is a different published file.

The roots are found with scipy's ``brentq``. For every registered variant at its own
follow-up they are also shipped, solved ahead, in ``solved_roots.json``, and generation
reads them from there. That makes the release's constants the same bits on every CPU:
the simulation's vectorised exp and log differ in the last bit between CPUs (numpy's
AVX2 and AVX-512 paths), which moves a freshly solved root by an ulp or two. It also saves
importing scipy.optimize (about half a second, more than simulating 20,000 subjects). A
test solves them again and requires agreement to brentq's accuracy; ``python -m
icgbench.generator.shipped --roots`` rewrites the file for every cohort of the frozen tiers
(with a data version bump only: on another CPU the bits may move). ``--effects`` rewrites
``published_effects.json`` (:data:`~icgbench.generator.simulator.PUBLISHED_EFFECTS`: the
frozen cohorts' published effects, which the model-free panel of every cohort reads).
Other cohorts and follow-ups are solved at run time.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from dataclasses import replace
from importlib import resources
from pathlib import Path

import numpy as np

from icgbench.contract.vocabulary import STATES
from icgbench.generator.dynamics import (
    RiskScale,
    Trajectories,
    event_probability,
    expected_event_probability,
    simulate_dynamics,
)
from icgbench.generator.family import Mechanism, draw_mechanism
from icgbench.generator.mechanism import LATENT_RISK_SD, PUBLISHED_DECIMALS
from icgbench.generator.population import Population, sample_population
from icgbench.generator.streams import Seed
from icgbench.generator.variants import Variant

REFERENCE_SIZE = 4000
REFERENCE_SEED = 0
REFERENCE_SPLIT = "reference"


def _reference_run(variant: Variant, mechanism: Mechanism, months: int,
                   scale: RiskScale | None) -> Trajectories:
    """The reference population's factual run (cached population, own stream)."""
    pop = _reference_population(variant)
    factual = np.ones((1, len(STATES)))
    return simulate_dynamics(variant, REFERENCE_SEED, pop, months, (months,), factual, scale,
                             mechanism, clone_centre=clone_centre(variant, mechanism, months))


@functools.lru_cache(maxsize=64)
def clone_centre(variant: Variant, mechanism: Mechanism, months: int) -> float:
    """Where clone selection centres its parents: the sum over the clone's parents of the
    parent's weight times its average over the reference population and months 1..M (a run
    with no centre: no state reads the clone, so its parents do not depend on it), to the
    published precision."""
    parents = mechanism.parents("clone_fraction")
    if not parents:
        return 0.0
    pop = _reference_population(variant)
    run = simulate_dynamics(variant, REFERENCE_SEED, pop, months, tuple(range(1, months + 1)),
                            np.ones((1, len(STATES))), None, mechanism)
    total = math.fsum(w * _average(run.states[:, STATES.index(p), :].ravel())
                      for p, w in parents.items())
    return float(_published(total))


def exact_mean(rows: np.ndarray) -> np.ndarray:
    """Mean of each row of a 2-D array from a correctly rounded sum: the same bits on any CPU."""
    rows = np.asarray(rows, dtype=np.float64)
    return np.array([math.fsum(row) for row in rows]) / rows.shape[1]


def exact_sd(rows: np.ndarray) -> np.ndarray:
    """Population sd (ddof=0) of each row of a 2-D array, as CPU-independent as exact_mean."""
    rows = np.asarray(rows, dtype=np.float64)
    centred = rows - exact_mean(rows)[:, None]
    return np.sqrt(exact_mean(centred * centred))


def _average(values: np.ndarray) -> float:
    return float(exact_mean(np.asarray(values, dtype=np.float64)[None, :])[0])


@functools.lru_cache(maxsize=64)
def _reference_population(variant: Variant) -> Population:
    return sample_population(variant, REFERENCE_SEED, REFERENCE_SPLIT, REFERENCE_SIZE)


@functools.lru_cache(maxsize=64)
def _reference_end_states(variant: Variant, mechanism: Mechanism, months: int) -> np.ndarray:
    """End-of-follow-up states (S, n) of the reference population."""
    return _reference_run(variant, mechanism, months, None).states[-1]


SOLVED_ROOTS = "solved_roots.json"
#: The roots each cohort ships.
ROOT_NAMES = ("intercept", "log_target_spread")

#: A function whose root on [-30, 30] is one of the DGP's constants.
Gap = Callable[[float], float]


@functools.cache
def solved_roots() -> dict[str, str]:
    """The shipped roots: ``"<variant_hash>/<mechanism digest>/<months>/<root>"`` -> the
    root as a hex float."""
    text = resources.files(__package__).joinpath(SOLVED_ROOTS).read_text(encoding="utf-8")
    return json.loads(text)


def solve(gap: Gap) -> float:
    """The root of ``gap`` on [-30, 30], as the DGP defines it (scipy's brentq)."""
    from scipy.optimize import brentq

    return float(brentq(gap, -30.0, 30.0, xtol=1e-12))


def _root(gap: Gap, variant: Variant, mechanism: Mechanism, months: int, what: str) -> float:
    stored = solved_roots().get(root_key(variant, mechanism, months, what))
    return float.fromhex(stored) if stored is not None else solve(gap)


def root_key(variant: Variant, mechanism: Mechanism, months: int, what: str) -> str:
    """The key of one root in ``solved_roots.json``."""
    return f"{variant.variant_hash}/{mechanism.digest()}/{months}/{what}"


def _unit_scale(variant: Variant, mechanism: Mechanism, months: int) -> RiskScale:
    end = _reference_end_states(variant, mechanism, months)
    sd = exact_sd(end)
    return RiskScale(mean=exact_mean(end), sd=np.where(sd > 0, sd, 1.0), intercept=0.0)


def _intercept_gap(variant: Variant, mechanism: Mechanism, months: int, unit: RiskScale
                   ) -> Gap:
    hazard = _reference_run(variant, mechanism, months, unit).hazard_sum[0]

    def gap(b0: float) -> float:
        return _average(event_probability(hazard, b0)) - variant.target_prevalence

    return gap


def _published(x: np.ndarray | float) -> np.ndarray:
    return np.round(np.asarray(x, dtype=np.float64), PUBLISHED_DECIMALS)


@functools.lru_cache(maxsize=64)
def reference_scale(variant: Variant, mechanism: Mechanism, months: int) -> RiskScale:
    """Standardisation and intercept of latent_risk for one cohort's mechanism and
    follow-up."""
    unit = _unit_scale(variant, mechanism, months)
    intercept = _root(_intercept_gap(variant, mechanism, months, unit), variant, mechanism,
                      months, "intercept")
    return replace(unit, intercept=intercept)


def dynamics_constants(variant: Variant, mechanism: Mechanism, months: int
                       ) -> tuple[RiskScale, float, float]:
    """What a cohort's simulation needs from the reference populations: the risk scale,
    the clone centre and the target domain's host spread."""
    return (reference_scale(variant, mechanism, months),
            clone_centre(variant, mechanism, months),
            target_spread(variant, mechanism, months))


def expected_auroc(risk: np.ndarray) -> float:
    """The AUROC the event probabilities ``risk`` have in expectation over the events: each
    (case, control) pair weighted by p_i (1 - p_j), ties counting one half. A smooth
    function of the risks, unlike the AUROC of one draw of the events."""
    p = np.sort(np.asarray(risk, dtype=np.float64))
    q = 1.0 - p
    _, start, count = np.unique(p, return_index=True, return_counts=True)
    lower = np.repeat(np.concatenate([[0.0], np.cumsum(q)])[start], count)  # at lower risk
    tied = np.repeat(np.add.reduceat(q, start), count) - q  # the others at the same risk
    cases = math.fsum(p * (lower + 0.5 * tied))
    return cases / (math.fsum(p) * math.fsum(q) - math.fsum(p * q))


REFERENCE_TARGET_SPLIT = "reference_target"


def _reachable_risk(variant: Variant, mechanism: Mechanism, months: int, pop: Population
                    ) -> np.ndarray:
    scale = reference_scale(variant, mechanism, months)
    run = simulate_dynamics(variant, REFERENCE_SEED, pop, months, (months,),
                            np.ones((1, len(STATES))), scale, mechanism,
                            clone_centre=clone_centre(variant, mechanism, months))
    return expected_event_probability(run.state_hazard[0], scale.intercept, variant.frailty_sd)


def _spread_gap(variant: Variant, mechanism: Mechanism, months: int) -> Gap:
    source = expected_auroc(_reachable_risk(variant, mechanism, months,
                                            _reference_population(variant)))

    def gap(log_spread: float) -> float:
        pop = sample_population(variant, REFERENCE_SEED, REFERENCE_TARGET_SPLIT,
                                REFERENCE_SIZE, target_spread=math.exp(log_spread),
                                domain="target")
        return expected_auroc(_reachable_risk(variant, mechanism, months, pop)) - source

    return gap


@functools.lru_cache(maxsize=64)
def target_spread(variant: Variant, mechanism: Mechanism, months: int) -> float:
    """How many times wider than the source the target domain's hosts spread, solved per
    cohort so that the reachable risk ranks the target's reference population as well as
    the source's (equal expected AUROC), within ``variant.target_host_sd_bounds`` (the
    bound nearer to equality where none reaches it), to 6 decimals.

    Wider hosts spread the risk (easier to rank), the target's other exposures and the
    graph change how much: a fixed multiplier left the true risk's own gap anywhere between
    -0.13 and +0.04 from cohort to cohort."""
    low, high = (math.log(b) for b in variant.target_host_sd_bounds)
    gap = _spread_gap(variant, mechanism, months)
    key = root_key(variant, mechanism, months, "log_target_spread")
    stored = solved_roots().get(key)
    root = float.fromhex(stored) if stored is not None else _bounded_root(gap, low, high)
    return float(_published(math.exp(root)))


def _bounded_root(gap: Gap, low: float, high: float) -> float:
    """The root of ``gap`` on [low, high], or the end nearer to zero without one."""
    from scipy.optimize import brentq

    at_low, at_high = gap(low), gap(high)
    if at_low * at_high > 0:
        return low if abs(at_low) <= abs(at_high) else high
    return float(brentq(gap, low, high, xtol=1e-9))


def solve_roots(variant: Variant, mechanism: Mechanism, months: int) -> dict[str, str]:
    """The roots of one cohort's mechanism and follow-up solved now, never read from the
    file."""
    unit = _unit_scale(variant, mechanism, months)
    intercept = solve(_intercept_gap(variant, mechanism, months, unit))
    low, high = (math.log(b) for b in variant.target_host_sd_bounds)
    spread = _bounded_root(_spread_gap(variant, mechanism, months), low, high)
    return dict(zip((root_key(variant, mechanism, months, what) for what in ROOT_NAMES),
                    (intercept.hex(), spread.hex()), strict=True))


@functools.lru_cache(maxsize=256)
def cohort_mechanism(variant: Variant, seed: Seed) -> Mechanism:
    """The mechanism of cohort (variant, seed): the family's draw (:mod:`.family`) with its
    latent_risk coefficients rescaled so that latent_risk at the end of follow-up has sd
    ``LATENT_RISK_SD`` on the reference population (to the published precision).

    However many states act on the event and with whatever drawn weights, every cohort's
    risk is then about equally spread, so the frailty weighs the same in every cohort.
    """
    drawn = _confounder_in_units(variant, draw_mechanism(variant, seed))
    unit = _unit_scale(variant, drawn, variant.months)
    end = _reference_end_states(variant, drawn, variant.months)
    z = (end - unit.mean[:, None]) / unit.sd[:, None]
    beta = np.asarray(drawn.risk_beta)
    latent = np.zeros(z.shape[1])
    for j in range(len(STATES)):  # a fixed order of additions: the same bits on every CPU
        latent += beta[j] * z[j]
    factor = LATENT_RISK_SD / float(exact_sd(latent[None, :])[0])
    return replace(drawn, risk_beta=tuple(float(b) for b in _published(beta * factor)))


def _confounder_in_units(variant: Variant, drawn: Mechanism) -> Mechanism:
    """The drawn confounder gains made monthly pushes on the states' own scale: the step
    that shifts the state at the end of follow-up on the reference population by ``gain``
    times its sd there without the confounder, per sd of the hidden factor (the shift a unit
    step gives is measured on the same population: retention and repair vary by subject)."""
    if not drawn.confounded:
        return drawn
    without = replace(drawn, confounded=())
    end = _reference_end_states(variant, without, variant.months)
    sd = exact_sd(end)
    unit = replace(drawn, confounded=tuple((s, 1.0, h) for s, _, h in drawn.confounded))
    moved = _reference_end_states(variant, unit, variant.months) - end
    pushes = []
    for state, gain, hazard in drawn.confounded:
        j = STATES.index(state)
        per_step = float(exact_sd(moved[j:j + 1])[0])
        pushes.append((state, float(_published(gain * sd[j] / per_step)), hazard))
    return replace(drawn, confounded=tuple(pushes))


def write_solved_roots(cohorts: list[tuple[Variant, int]]) -> Path:
    """Solve the given cohorts (variant, seed) at their variant's follow-up and rewrite the
    shipped file with exactly their roots. A root already shipped keeps its shipped bits
    (solved on another CPU it can move in the last bits, and a frozen cohort would change):
    a release that adds cohorts solves only theirs."""
    from icgbench.io.atomic import write_text

    shipped = solved_roots()
    roots = {}
    for variant, seed in cohorts:
        mechanism = cohort_mechanism(variant, seed)
        keys = [root_key(variant, mechanism, variant.months, what) for what in ROOT_NAMES]
        if all(k in shipped for k in keys):
            roots.update({k: shipped[k] for k in keys})
        else:
            roots.update(solve_roots(variant, mechanism, variant.months))
    path = Path(__file__).with_name(SOLVED_ROOTS)
    write_text(path, json.dumps(roots, indent=1, sort_keys=True) + "\n")
    return path


def frozen_cohorts() -> list[tuple[Variant, int]]:
    """Every (variant, seed) of the release's frozen open tiers."""
    from icgbench.generator.variants import all_variants
    from icgbench.release.tiers import TIERS

    return [(v, seed) for tier in TIERS.values() for v in all_variants() for seed in tier.seeds]

