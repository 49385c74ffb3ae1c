"""pcmci_plus: PCMCI+ from tigramite on the visits, a longitudinal structure baseline.

PCMCI+ (Runge 2020; the ``tigramite`` package) with partial-correlation tests (ParCorr,
analytic p-values) on the train subjects' visits: each subject's five visits (months 0, 6,
12, 18, 24) are one short series, the series are stacked with a missing row between
subjects so that no lag crosses from one subject to the next, and links at a lag of one
visit (``tau_max`` 1, six months) and within a visit are searched. Nodes: a state's value
at each visit; a KCC assay's readout, repeated at every visit (it is read once, before
follow-up); the outcome, known only at the last visit (missing before). Background
knowledge, through tigramite's link assumptions, is the temporal order the correlation
baseline uses: a KCC assay has no parents and acts only within a visit, the outcome has no
children. Tuned for time, not for the truth: ``pc_alpha`` 0.001 (about 12,000 lagged
samples; 0.01 gave the same best F1 on the cohorts tried and took 1.5 times as long),
conditioning sets of at most two contemporaneous nodes (``max_conds_dim``) and no
collider-orientation tests (``contemp_collider_rule="none"``; the default "majority" rule
took 95 s on a full-tier cohort and gave the same best F1), so a 3,000-subject cohort fits
in under 30 s on one core. Scores: a link found and oriented i -> j (at lag one visit, or
within a visit) scores 2, a contemporaneous link left unoriented or conflicting 1 in both
directions, each plus its largest |MCI partial correlation|; a pair the tests removed
scores 0.1 times that value in each direction the assumptions allow, so the ranking goes on
past the significant links. Install with ``pip install 'icgbench[discovery]'``. Submits
structure_recovery only.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from icgbench.errors import UsageError
from icgbench.models.base import CohortData, ReferenceModel, rounded
from icgbench.models.node_values import node_kinds, visit_panel

PC_ALPHA = 0.001
TAU_MAX = 1
MAX_CONDS_DIM = 2
COLLIDER_RULE = "none"
TIE_BREAK = 0.1
MISSING = 999.0  # tigramite's missing flag (the standardised values stay far below it)

LinkAssumptions = dict[int, dict[tuple[int, int], str]]


def link_assumptions(kinds: list[str]) -> LinkAssumptions:
    """Which links tigramite may test: KCC assays exogenous and within-visit, outcome a sink.

    ``kinds[i]`` is node i's kind (kcc_assay, state, outcome). A state may depend on any
    state one visit earlier (itself included) and on any other state, KCC assay or (never)
    the outcome within a visit; the outcome on states at its visit and one visit earlier,
    and on KCC assays. Contemporaneous entries are written in both directions, as tigramite
    requires.
    """
    kcc = [i for i, k in enumerate(kinds) if k == "kcc_assay"]
    states = [i for i, k in enumerate(kinds) if k == "state"]
    outcome = [i for i, k in enumerate(kinds) if k == "outcome"]
    links: LinkAssumptions = {j: {} for j in range(len(kinds))}
    for j in states:
        for i in states:
            links[j][(i, -1)] = "-?>"
            if i != j:
                links[j][(i, 0)] = "o?o"
        for k in kcc:
            links[j][(k, 0)] = "-?>"
            links[k][(j, 0)] = "<?-"
    for o in outcome:
        for i in states:
            links[o][(i, -1)] = "-?>"
        for i in [*states, *kcc]:
            links[o][(i, 0)] = "-?>"
            links[i][(o, 0)] = "<?-"
    return links


def stacked_series(panel: np.ndarray) -> np.ndarray:
    """Subjects' standardised visit series end to end, a missing row after each subject."""
    n, _, nodes = panel.shape
    flat = panel.reshape(-1, nodes)
    mean, sd = np.nanmean(flat, axis=0), np.nanstd(flat, axis=0)
    z = (panel - mean) / np.where(sd > 0, sd, 1.0)
    series = np.concatenate([z, np.full((n, 1, nodes), np.nan)], axis=1).reshape(-1, nodes)
    return np.where(np.isnan(series), MISSING, series)


def graph_scores(graph: np.ndarray, values: np.ndarray, links: LinkAssumptions,
                 tie_break: float = TIE_BREAK) -> tuple[list[int], list[int], list[float]]:
    """Directed-pair scores from PCMCI+'s ``graph`` and ``val_matrix`` (node x node x lag)."""
    source, target, score = [], [], []
    n = graph.shape[0]
    for i in range(n):
        for j in range(n):
            allowed = [lag for lag in range(graph.shape[2])
                       if i != j and (i, -lag) in links[j] and links[j][(i, -lag)] != "<?-"]
            if not allowed:
                continue
            strength = max(abs(float(values[i, j, lag])) for lag in allowed)
            if any(graph[i, j, lag] == "-->" for lag in allowed):
                base = 2.0
            elif graph[i, j, 0] in ("o-o", "x-x"):
                base = 1.0
            else:
                base, strength = 0.0, tie_break * strength
            source.append(i)
            target.append(j)
            score.append(base + strength)
    return source, target, score


def discover(panel: np.ndarray, kinds: list[str]
             ) -> tuple[np.ndarray, np.ndarray, LinkAssumptions]:
    """PCMCI+'s (graph, val_matrix, link assumptions) on a subjects x visits x nodes panel.

    ``kinds[i]`` is node i's kind (kcc_assay, state, outcome); see ``link_assumptions``.
    """
    from tigramite.data_processing import DataFrame
    from tigramite.independence_tests.parcorr import ParCorr
    from tigramite.pcmci import PCMCI

    links = link_assumptions(kinds)
    frame = DataFrame(stacked_series(panel), missing_flag=MISSING)
    pcmci = PCMCI(dataframe=frame, cond_ind_test=ParCorr(significance="analytic"),
                  verbosity=0)
    with threadpool_limits(limits=1):  # thousands of small regressions: threads only slow
        result = pcmci.run_pcmciplus(
            link_assumptions=links, tau_min=0, tau_max=TAU_MAX, pc_alpha=PC_ALPHA,
            max_conds_dim=MAX_CONDS_DIM, contemp_collider_rule=COLLIDER_RULE)
    return result["graph"], result["val_matrix"], links


class PCMCIPlusModel(ReferenceModel):
    name = "pcmci_plus"
    description = ("PCMCI+ (tigramite, ParCorr, alpha 0.001) on the train subjects' visits, "
                   "lag one visit, KCC assays exogenous and the outcome a sink.")
    blocks = ("structure_recovery",)
    requires = ("tigramite",)
    extra = "discovery"

    def fit(self, data: CohortData) -> None:
        if importlib.util.find_spec("tigramite") is None:
            raise UsageError("the pcmci_plus model needs tigramite: pip install "
                             "'icgbench[discovery]'")
        self.names, _, panel = visit_panel(data)
        kinds = node_kinds()
        self.graph, self.values, self.links = discover(panel, [kinds[n] for n in self.names])

    def predict(self, data: CohortData) -> dict[str, Any]:
        source, target, score = graph_scores(self.graph, self.values, self.links)
        return {"structure_recovery": {"source": [self.names[i] for i in source],
                                       "target": [self.names[j] for j in target],
                                       "score": rounded(np.asarray(score))}}


MODEL = PCMCIPlusModel
