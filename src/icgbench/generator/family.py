"""The family of causal mechanisms, and the draw of one cohort's mechanism from it.

A cohort's causal graph is not a fixed, published structure: it is drawn, from the
cohort's own random stream, out of a family around the qAOP skeleton. The family is
documented (this module is its definition; ``docs/dgp.md`` prints its tables from here)
and the realized graph is a truth table only, so knowing the documentation is not knowing
the answer.

The family's candidate edges (:func:`candidates`) are every edge of the skeleton
(``skeleton``: its KCC -> state inputs and host routes, its AOP state -> state edges) and
every edge it could plausibly have: a KCC acting on any exposure-driven state
(``off_target``) and a state acting on any later state in the AOP's order within a month
(``crosstalk``). A cohort's graph holds:

1. **A driver for every state** (except immune_clearance, which relaxes to the host's
   varying surveillance): one of its candidate parents that raise it (in this cohort,
   reversals included), chosen with
   probability proportional to its group's ``CHOICE_WEIGHT``, so that no state is constant
   or pinned at zero across subjects.
2. **Extra edges**: every other candidate, present with its group's ``EXTRA`` probability.
3. **Every state -> event edge** (``outcome``): every state acts on the risk, with the
   prior's sign unless the cohort flips it.

Weights: a skeleton edge's nominal weight, or the group's typical magnitude for the
others, times a draw: log-uniform from ``KCC_SPREAD`` for a KCC's input to a state's
exposure drive, uniform from ``SPREAD`` for a host route or a state -> state edge; outcome
weights are the prior's nominal ones
times a log-uniform draw from ``OUTCOME_SPREAD``, then rescaled together so that the
cohort's latent risk has a fixed spread (:func:`.reference.cohort_mechanism`). Signs are
coherent with the structural prior: a crosstalk edge from state ``p`` to ``c`` has the
sign ``prior_sign(p) x prior_sign(c)`` (a risk-raising state raises other risk-raising
states), as every skeleton edge does, so on a well-specified variant every path from a
state to the event carries the prior's sign of that state. No edge may lower an
accumulating state (a negative monthly increment pins it at zero): such a candidate is not
in the family, or, where a reversal makes it negative, not drawn in that cohort.

On a misspecified variant the cohort draws *which* states the DGP reverses relative to the
structural prior: ``variant.n_flips`` of ``variant.flip_candidates``, uniformly. A reversed
state has the sign of every edge it sends negated (to the event and to the states it
drives), so its total effect on the risk is the opposite of the prior's, and its outcome
weight is drawn from the upper half of the range (at least the nominal weight): every
reversal matters to the risk. The draw is in
truth tables only (``graph``, ``intervention_effects``); the documentation and ``bench
info`` give the candidates and the count, never a cohort's draw.

The public structural prior of a cohort (table ``prior_graph``) is a noisy view of the
family, drawn from the cohort's own ``prior_graph`` stream and independent of the realized
graph: every outcome edge with the prior's sign; each skeleton edge unless dropped
(``PRIOR_MISSING``), a state -> state one listed reversed with ``PRIOR_REVERSED``; and each
off-target or crosstalk candidate listed with ``PRIOR_SPURIOUS``. It is the literature's
view a modeller starts from, not the answer.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from icgbench.contract.vocabulary import KCCS, OUTCOME_NODE, STATES, kcc_assay_column
from icgbench.generator import mechanism as mech
from icgbench.generator.streams import Seed, stream
from icgbench.generator.variants import Variant

#: Per group: the weight of a candidate when a state's driver is chosen, and the
#: probability that a candidate not chosen is present anyway.
CHOICE_WEIGHT = {"skeleton": 1.5, "off_target": 1.0, "crosstalk": 1.0}
EXTRA = {"skeleton": 0.25, "off_target": 0.08, "crosstalk": 0.12}
#: The range (uniform) a nominal state -> state or host-route weight is multiplied by.
SPREAD = (0.5, 1.5)
#: The range (log-uniform) a KCC's nominal weight in a state's exposure drive is multiplied
#: by: how strongly an exposure's KCC profile drives each state is the cohort's own.
KCC_SPREAD = (0.4, 2.5)
#: The range (log-uniform) a prior's nominal outcome weight is multiplied by: a cohort's
#: effects on risk can be a quarter or four times what the prior says.
OUTCOME_SPREAD = (0.25, 4.0)
#: A hidden confounder's strength (uniform): its push on a confounded state, in the state's
#: sds at the end of follow-up per sd of the factor (:func:`.reference.cohort_mechanism`
#: makes it a monthly step), and its log-hazard coefficient (per sd of the factor, lowering
#: the hazard).
CONFOUNDER_STATE_GAIN = (1.0, 2.0)
CONFOUNDER_HAZARD = (2.0, 3.0)
#: The typical magnitude of an off-target KCC weight (inside the exposure drive, as the
#: skeleton's 0.3-0.8).
OFF_TARGET_WEIGHT = 0.55
#: The typical magnitude of a crosstalk edge into each state (its natural scale differs:
#: accumulating states take small monthly increments, clone selection large ones).
CROSSTALK_SCALE = {
    "ROS": 0.15,
    "immune_clearance": 0.05,
    "inflammation": 0.15,
    "epigenetic_age": 0.02,
    "proliferation": 0.1,
    "mutation_rate": 0.15,
    "driver_count_proxy": 0.03,
    "clone_fraction": 0.5,
}
#: The state that needs no driver: it relaxes to the host's immune surveillance.
UNDRIVEN = "immune_clearance"
#: States that accumulate month over month: no edge may lower them.
ACCUMULATING = ("epigenetic_age", "driver_count_proxy")
#: The public prior graph's noise (see the module's docstring).
PRIOR_MISSING = 0.3
PRIOR_REVERSED = 0.15
PRIOR_SPURIOUS = 0.1

#: Host-routed KCC edges of the skeleton: (KCC, state) -> the route's name.
HOST_ROUTES = {
    (mech.REPAIR_INHIBITION[0], "DNA_adducts"): "repair_adducts",
    (mech.REPAIR_INHIBITION[0], "mutation_rate"): "repair_mutation",
    (mech.IMMUNE_INHIBITION[0], "immune_clearance"): "immune_inhibition",
    (mech.IMMORTALIZATION, "driver_count_proxy"): "immortal_drivers",
    (mech.IMMORTALIZATION, "clone_fraction"): "immortal_selection",
}
HOST_ROUTE_WEIGHT = {
    "repair_adducts": mech.REPAIR_INHIBITION[1],
    "repair_mutation": mech.REPAIR_INHIBITION[1],
    "immune_inhibition": mech.IMMUNE_INHIBITION[1],
    "immortal_drivers": mech.IMMORTALIZATION_DRIVER_GAIN,
    "immortal_selection": mech.IMMORTALIZATION_SELECTION,
}
#: The sign of a host route's effect on its state (immunosuppression lowers clearance).
HOST_ROUTE_SIGN = {"immune_inhibition": -1}


@dataclass(frozen=True)
class Candidate:
    """One edge the family may contain."""

    source: str
    target: str
    kind: str  # kcc_state, state_state, state_outcome
    group: str  # skeleton, off_target, crosstalk, outcome
    nominal: float  # nominal magnitude (outcome: the prior's weight)
    sign: int  # the sign under the structural prior

    @property
    def node(self) -> str:
        """The source as a graph node (a KCC's assay column)."""
        return kcc_assay_column(self.source) if self.kind == "kcc_state" else self.source


def coherent_sign(parent: str, child: str) -> int:
    """The sign of a state -> state edge that agrees with the prior's signs on risk."""
    return mech.PRIOR_SIGNS[parent] * mech.PRIOR_SIGNS[child]


def _kcc_candidates() -> list[Candidate]:
    out = []
    for state in mech.EXPOSURE_DRIVEN:
        canonical = mech.KCC_INPUT[state]
        for kcc in KCCS:
            if kcc in canonical:
                out.append(Candidate(kcc, state, "kcc_state", "skeleton", canonical[kcc], 1))
            elif (kcc, state) not in HOST_ROUTES:
                out.append(Candidate(kcc, state, "kcc_state", "off_target",
                                     OFF_TARGET_WEIGHT, 1))
    for (kcc, state), route in HOST_ROUTES.items():
        out.append(Candidate(kcc, state, "kcc_state", "skeleton", HOST_ROUTE_WEIGHT[route],
                             HOST_ROUTE_SIGN.get(route, 1)))
    return out


def _state_candidates() -> list[Candidate]:
    out = []
    for j, child in enumerate(STATES):
        skeleton = mech.STATE_PARENTS[child]
        for parent in STATES[:j]:
            sign = coherent_sign(parent, child)
            if parent in skeleton:
                w = skeleton[parent]
                assert int(np.sign(w)) == sign, (parent, child)  # the skeleton is coherent
                out.append(Candidate(parent, child, "state_state", "skeleton", abs(w), sign))
            elif not (child in ACCUMULATING and sign < 0):
                out.append(Candidate(parent, child, "state_state", "crosstalk",
                                     CROSSTALK_SCALE[child], sign))
    return out


def _outcome_candidates() -> list[Candidate]:
    return [Candidate(s, OUTCOME_NODE, "state_outcome", "outcome", mech.PRIOR_WEIGHTS[s],
                      mech.PRIOR_SIGNS[s]) for s in STATES]


@lru_cache(maxsize=1)
def candidates() -> tuple[Candidate, ...]:
    """Every edge the family may contain, in a fixed order."""
    return (*_kcc_candidates(), *_state_candidates(), *_outcome_candidates())


@dataclass(frozen=True)
class Mechanism:
    """One cohort's realized mechanism: its edges with signed weights, and its reversals.

    ``kcc_input[state]`` holds the KCC weights inside the state's exposure drive;
    ``host_routes`` the weights of the KCCs acting through host capacity (absent: 0);
    ``state_parents[child]`` the signed parent weights; ``risk_beta`` the signed
    coefficient of each standardised state in latent_risk.
    """

    kcc_input: tuple[tuple[str, tuple[tuple[str, float], ...]], ...]
    host_routes: tuple[tuple[str, float], ...]
    state_parents: tuple[tuple[str, tuple[tuple[str, float], ...]], ...]
    risk_beta: tuple[float, ...]
    flipped: tuple[str, ...]
    #: (state, gain, hazard coefficient) of each state a hidden factor confounds.
    confounded: tuple[tuple[str, float, float], ...] = ()

    def inputs(self, state: str) -> dict[str, float]:
        """KCC -> weight inside ``state``'s exposure drive."""
        return dict(dict(self.kcc_input).get(state, ()))

    def parents(self, state: str) -> dict[str, float]:
        """Parent state -> signed weight of ``state``'s update."""
        return dict(dict(self.state_parents).get(state, ()))

    def route(self, name: str) -> float:
        """The weight of a host route (0.0 where the cohort lacks it)."""
        return dict(self.host_routes).get(name, 0.0)

    def edges(self) -> list[tuple[str, str, str, int, float]]:
        """The true graph over public nodes: (source, target, kind, sign, weight)."""
        out: list[tuple[str, str, str, int, float]] = []
        for state, weights in self.kcc_input:
            out += [(kcc_assay_column(k), state, "kcc_state", 1, w) for k, w in weights]
        for (kcc, state), route in HOST_ROUTES.items():
            w = self.route(route)
            if w:
                out.append((kcc_assay_column(kcc), state, "kcc_state",
                            HOST_ROUTE_SIGN.get(route, 1), w))
        for child, parents in self.state_parents:
            out += [(p, child, "state_state", int(np.sign(w)), abs(w)) for p, w in parents]
        out += [(s, OUTCOME_NODE, "state_outcome", int(np.sign(b)), abs(b))
                for s, b in zip(STATES, self.risk_beta, strict=True) if b]
        return sorted(out, key=_edge_order)

    def digest(self) -> str:
        """First 12 hex characters of SHA-256 over the mechanism's canonical JSON."""
        parts = [self.kcc_input, self.host_routes, self.state_parents, self.risk_beta,
                 self.flipped]
        if self.confounded:  # absent before hidden confounding: earlier digests hold
            parts.append(self.confounded)
        text = json.dumps(parts, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


_NODE_ORDER = {name: i for i, name in enumerate(
    [kcc_assay_column(k) for k in KCCS] + list(STATES) + [OUTCOME_NODE])}


def _edge_order(edge: tuple) -> tuple[int, int]:
    return _NODE_ORDER[edge[0]], _NODE_ORDER[edge[1]]


def _published(x: float) -> float:
    return round(float(x), mech.PUBLISHED_DECIMALS)


def _choose(options: list[int], family: tuple[Candidate, ...], u: float) -> int:
    """One of ``options`` (indices into ``family``), with probability proportional to its
    group's choice weight, by inverting the cumulative weights at ``u``."""
    weights = np.array([CHOICE_WEIGHT[family[i].group] for i in options])
    cumulative = np.cumsum(weights) / weights.sum()
    return options[min(int(np.searchsorted(cumulative, u, side="right")), len(options) - 1)]


def cohort_sign(c: Candidate, flips: tuple[str, ...]) -> int:
    """The candidate's sign in a cohort that reverses the states ``flips``: every edge a
    reversed state sends is negated."""
    return -c.sign if c.kind != "kcc_state" and c.source in flips else c.sign


def eligible(c: Candidate, flips: tuple[str, ...]) -> bool:
    """Whether the candidate may be drawn: not if it would lower an accumulating state."""
    return not (c.kind == "state_state" and c.target in ACCUMULATING
                and cohort_sign(c, flips) < 0)


def present_candidates(family: tuple[Candidate, ...], rng: np.random.Generator,
                       flips: tuple[str, ...] = ()) -> set[int]:
    """Which candidates a draw holds (steps 1-3 of the module's recipe), in a cohort that
    reverses ``flips``; a fixed number of draws whatever is chosen."""
    choice = rng.random(len(STATES))
    extra = rng.random(len(family))
    present = {i for i, c in enumerate(family) if eligible(c, flips) and (
        c.group == "outcome" or extra[i] < EXTRA[c.group])}
    for j, state in enumerate(STATES):
        if state != UNDRIVEN:
            raising = [i for i, c in enumerate(family)
                       if c.target == state and cohort_sign(c, flips) > 0]
            present.add(_choose(raising, family, choice[j]))
    return present


@lru_cache(maxsize=1)
def edge_probabilities() -> dict[tuple[str, str], float]:
    """Each candidate edge's probability of being in a cohort's graph (without reversals,
    which are not public), in closed form from the recipe: chosen as its state's driver
    (its group's choice weight over those of the state's raising candidates), or else
    present with its group's ``EXTRA`` probability; an outcome edge always."""
    family = candidates()
    out = {}
    for c in family:
        if c.group == "outcome":
            out[(c.node, c.target)] = 1.0
            continue
        raising = [o for o in family if o.target == c.target and o.sign > 0
                   and o.group != "outcome"]
        total = sum(CHOICE_WEIGHT[o.group] for o in raising)
        chosen = (CHOICE_WEIGHT[c.group] / total
                  if c.sign > 0 and c.target != UNDRIVEN else 0.0)
        out[(c.node, c.target)] = chosen + (1.0 - chosen) * EXTRA[c.group]
    return out


def draw_mechanism(variant: Variant, seed: Seed) -> Mechanism:
    """The mechanism of cohort (variant, seed), from the cohort's ``mechanism`` stream,
    before its outcome weights are rescaled (:func:`.reference.cohort_mechanism`).

    Weights are rounded to the published precision: the graph table states them exactly.
    """
    family = candidates()
    rng = stream(variant.variant_hash, seed, "cohort", "mechanism")
    flips = _draw_flips(variant, rng)
    present = present_candidates(family, rng, flips)
    magnitude = rng.random(len(family))
    kcc: dict[str, list[tuple[str, float]]] = {}
    routes: dict[str, float] = {}
    parents: dict[str, list[tuple[str, float]]] = {}
    beta = dict.fromkeys(STATES, 0.0)
    for i in sorted(present):
        c = family[i]
        w = _published(c.nominal * _factor(c, magnitude[i], reversed_=c.source in flips))
        sign = cohort_sign(c, flips)
        if c.kind == "kcc_state":
            route = HOST_ROUTES.get((c.source, c.target))
            if route is None:
                kcc.setdefault(c.target, []).append((c.source, w))
            else:
                routes[route] = w
        elif c.kind == "state_state":
            parents.setdefault(c.target, []).append((c.source, sign * w))
        else:
            beta[c.source] = sign * w
    return Mechanism(
        kcc_input=tuple((s, tuple(kcc[s])) for s in STATES if s in kcc),
        host_routes=tuple(sorted(routes.items())),
        state_parents=tuple((s, tuple(parents[s])) for s in STATES if s in parents),
        risk_beta=tuple(beta[s] for s in STATES),
        flipped=flips,
        confounded=_draw_confounded(variant, rng),
    )


def _uniform(bounds: tuple[float, float], u: float) -> float:
    return bounds[0] + (bounds[1] - bounds[0]) * float(u)


def _draw_confounded(variant: Variant, rng: np.random.Generator
                     ) -> tuple[tuple[str, float, float], ...]:
    """``variant.n_confounded`` of its confound candidates with their strengths, in STATES
    order; drawn after every other draw of the stream, and only where the variant has a
    confounder, so no other cohort's mechanism moves."""
    if not variant.n_confounded:
        return ()
    order = rng.permutation(len(variant.confound_candidates))
    chosen = {variant.confound_candidates[i] for i in order[: variant.n_confounded]}
    strengths = rng.random((len(variant.confound_candidates), 2))
    out = []
    for i, state in enumerate(variant.confound_candidates):
        if state in chosen:
            gain = _uniform(CONFOUNDER_STATE_GAIN, strengths[i, 0])
            hazard = _uniform(CONFOUNDER_HAZARD, strengths[i, 1])
            out.append((state, _published(gain), _published(-hazard)))
    return tuple(sorted(out, key=lambda c: STATES.index(c[0])))


def _factor(c: Candidate, u: float, reversed_: bool = False) -> float:
    """The multiplier of a candidate's nominal weight for the uniform draw ``u``: a
    reversed state's outcome weight comes from the upper half of the outcome range (at least
    the prior's nominal weight), so that every reversal matters to the risk."""
    if c.group == "outcome":
        low, high = np.log(OUTCOME_SPREAD[0]), np.log(OUTCOME_SPREAD[1])
        if reversed_:
            low = 0.0
        return float(np.exp(low + (high - low) * u))
    if is_exposure_input(c):
        low, high = np.log(KCC_SPREAD[0]), np.log(KCC_SPREAD[1])
        return float(np.exp(low + (high - low) * u))
    return SPREAD[0] + (SPREAD[1] - SPREAD[0]) * u


def is_exposure_input(c: Candidate) -> bool:
    """Whether the candidate is a KCC's input to a state's exposure drive (not a host
    route)."""
    return c.kind == "kcc_state" and (c.source, c.target) not in HOST_ROUTES


def _draw_flips(variant: Variant, rng: np.random.Generator) -> tuple[str, ...]:
    """``variant.n_flips`` of its flip candidates, in STATES order (one permutation drawn
    whatever the count, so the count never shifts the other draws)."""
    order = rng.permutation(len(variant.flip_candidates))
    chosen = {variant.flip_candidates[i] for i in order[: variant.n_flips]}
    return tuple(s for s in STATES if s in chosen)


def prior_graph(variant: Variant, seed: Seed) -> list[tuple[str, str, str, int]]:
    """The cohort's public prior graph: (source, target, kind, sign), see the module."""
    family = candidates()
    u = stream(variant.variant_hash, seed, "cohort", "prior_graph").random((len(family), 2))
    out = []
    for c, (keep, reverse) in zip(family, u, strict=True):
        if c.group == "outcome":
            out.append((c.node, c.target, c.kind, c.sign))
        elif c.group == "skeleton":
            if keep < PRIOR_MISSING:
                continue
            if c.kind == "state_state" and reverse < PRIOR_REVERSED:
                out.append((c.target, c.node, c.kind, c.sign))
            else:
                out.append((c.node, c.target, c.kind, c.sign))
        elif keep < PRIOR_SPURIOUS:
            out.append((c.node, c.target, c.kind, c.sign))
    return sorted(out, key=_edge_order)
