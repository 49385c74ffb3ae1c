"""Sections of hand-written docs that are generated from the code, between markers.

A page keeps its prose; a section that states the code's numbers is replaced, between
``<!-- generated: NAME -->`` and ``<!-- end: NAME -->``, by ``make docs``, and a test
fails when the committed page differs from what the code gives.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from icgbench.generator import all_variants
from icgbench.generator import family as fam
from icgbench.reference import layers
from icgbench.tasks import CATEGORIES, TASKS


def _begin(name: str) -> str:
    return f"<!-- generated: {name} (make docs) -->"


def _end(name: str) -> str:
    return f"<!-- end: {name} -->"


def splice(text: str, name: str, block: str) -> str:
    """``text`` with the section ``name`` replaced by ``block`` (a ValueError without the
    markers)."""
    pattern = re.compile(re.escape(_begin(name)) + r".*?" + re.escape(_end(name)), re.S)
    if not pattern.search(text):
        raise ValueError(f"no section {name!r} (markers {_begin(name)} ... {_end(name)})")
    return pattern.sub(lambda _: f"{_begin(name)}\n{block.rstrip()}\n{_end(name)}", text)


def family_markdown() -> str:
    """The family of causal graphs: its groups, every candidate edge, the reversals."""
    groups = {}
    for c in fam.candidates():
        groups.setdefault(c.group, []).append(c)
    out = ["| group | candidates | driver choice weight | extra probability | weight |",
           "| --- | --- | --- | --- | --- |"]
    weight = {"skeleton": f"nominal x log-uniform{fam.KCC_SPREAD} for a KCC's exposure "
                          f"input, nominal x U{fam.SPREAD} for a host route or a state -> "
                          "state edge",
              "off_target": f"{fam.OFF_TARGET_WEIGHT} x log-uniform{fam.KCC_SPREAD}",
              "crosstalk": f"the child's crosstalk scale x U{fam.SPREAD}",
              "outcome": f"the prior's weight x log-uniform{fam.OUTCOME_SPREAD}, rescaled"}
    for group, members in groups.items():
        choice = fam.CHOICE_WEIGHT.get(group)
        extra = fam.EXTRA.get(group)
        out.append(f"| `{group}` | {len(members)} | {'-' if choice is None else choice} | "
                   f"{'always' if extra is None else extra} | {weight[group]} |")
    out += ["", "Crosstalk scale per child state: " + ", ".join(
        f"`{s}` {v}" for s, v in fam.CROSSTALK_SCALE.items()) + ".", "",
        "Every candidate edge, with its group, its nominal weight and its sign under the "
        "structural prior:", "",
        "| source | target | group | nominal weight | sign |", "| --- | --- | --- | --- | --- |"]
    for c in fam.candidates():
        out.append(f"| `{c.node}` | `{c.target}` | {c.group} | {c.nominal:g} | {c.sign:+d} |")
    out += ["", "Sign reversals (a reversed state has every edge it sends negated):", "",
            "| variant | reversed per cohort | drawn from |", "| --- | --- | --- |"]
    for v in all_variants():
        drawn = ", ".join(f"`{s}`" for s in v.flip_candidates) or "-"
        out.append(f"| `{v.name}` | {v.n_flips} | {drawn} |")
    out += ["", f"The public `prior_graph` of a cohort: every outcome edge; each skeleton edge "
            f"dropped with probability {fam.PRIOR_MISSING}, a state -> state one listed "
            f"reversed with {fam.PRIOR_REVERSED}; each off-target or crosstalk candidate "
            f"listed with {fam.PRIOR_SPURIOUS}."]
    return "\n".join(out)


def categories_markdown() -> str:
    """Per category: its task, the metrics its normalized score averages, their chance
    levels and ceilings (from the task registry)."""
    out = ["| category | task | headline metrics (normalized and averaged) | chance level | "
           "ceiling |", "| --- | --- | --- | --- | --- |"]
    by_category = {t.category: t for t in TASKS.values() if t.normalized}
    for category in CATEGORIES:
        task = by_category[category]
        for part in task.normalized:
            metric = task.metric(part.metric)
            chance = part.floor_text or metric.baseline_text or (
                f"{float(metric.random_baseline):g}"
                if metric.random_baseline is not None and not callable(metric.random_baseline)
                else "the random baseline")
            ceiling = ("the score of the reachable risks (`reachable_risks`)"
                       if task.reachable is not None else f"{metric.best:g} (perfect)")
            out.append(f"| {category} | `{task.name}` | `{part.metric}` "
                       f"({'higher' if metric.higher_is_better else 'lower'} is better) | "
                       f"{chance} | {ceiling} |")
    return "\n".join(out)


def measurement_markdown() -> str:
    """The family of measurement models: its ranges, and the documented loadings."""
    from icgbench.generator import measurement as m
    from icgbench.generator import mechanism as mech

    out = ["| part of a cohort's measurement model | drawn per cohort |", "| --- | --- |",
           f"| a documented loading (table below) | its value x log-uniform"
           f"{m.LOADING_SPREAD} |",
           f"| any other (module, state) loading | present with probability "
           f"{m.CROSS_LOADING_P}: magnitude U{m.CROSS_LOADING_RANGE}, sign + or - |",
           "| each module's noise sd, the subjects' offset sd and gain log-sd | the "
           f"variant's value (`bench info`) x log-uniform{m.NOISE_SPREAD} |",
           f"| each epigenomic module's drift per decade of age (from "
           f"{mech.AGE_CENTER:g} years) | U{m.AGE_SLOPE_RANGE} |",
           "| `nonlinear_obs`: each module's partner state | uniform among the states its "
           "largest loading does not read |", "",
           "The documented loadings (module: state x loading):", "",
           "| module | documented loadings |", "| --- | --- |"]
    for module, loadings in {**mech.TRANSCRIPTOMIC_LOADINGS,
                             **mech.EPIGENOMIC_LOADINGS}.items():
        out.append(f"| `{module}` | " + ", ".join(f"`{s}` {w:+g}" for s, w in
                                                  loadings.items()) + " |")
    return "\n".join(out)


def panel_markdown() -> str:
    """The model-free panel: every answer, what it submits, which categories it has."""
    from icgbench.model_free.answers import (
        ANSWERS,
        ENSEMBLE_PREFIX,
        GUESS_PREFIX,
        RISK_RULES,
        ensembles,
    )

    out = ["| answer | what it submits |", "| --- | --- |"]
    for name, answer in ANSWERS.items():
        out.append(f"| `{name}` | {' '.join((answer.__doc__ or '').split())} |")
    out.append(f"| `{GUESS_PREFIX}<states>` | On a misspecified variant, one answer per "
               "guess of which candidate states the cohort reverses (the states joined by "
               "`__`): decoder_train_prior's answer with the prior's signs reversed there, "
               "the same guess on every cohort. |")
    out.append(f"| `{ENSEMBLE_PREFIX}<rules>` | The mean of the risk ranks of two or more of "
               f"{', '.join(f'`{r}`' for r in RISK_RULES)} (the rules joined by `__`; "
               f"{len(ensembles())} sets). |")
    out.append("| `chance` | Each metric's chance level (its random baseline, or the rule "
               "the task names). |")
    return "\n".join(out)


def reference_panel_markdown() -> str:
    """Which categories each model attempts, and whether it is one of the board's
    references (from the model registry)."""
    from icgbench.models import DECLARATIONS, model_class
    from icgbench.models.colors import is_reference

    out = ["| model | on the board | " + " | ".join(CATEGORIES) + " |",
           "| --- | --- |" + " --- |" * len(CATEGORIES)]
    for name, declaration in DECLARATIONS.items():
        blocks = set(model_class(name).blocks)
        attempted = {t.category for t in TASKS.values() if set(t.blocks) <= blocks}
        board = ("reads the truth: a reference line" if declaration.oracle
                 else "the floor line" if is_reference(name)
                 else "yes")
        out.append(f"| `{name}` | {board} | " + " | ".join(
            "yes" if c in attempted else "-" for c in CATEGORIES) + " |")
    return "\n".join(out)


def confounding_markdown() -> str:
    """The observational against the causal sign of every confounded state: each cohort
    of the small tier, and per state over the full tier (``icgbench bench confounding``)."""
    from icgbench.bench.confounding import cohort_markdown, signs, summary_markdown

    small, full = signs("small"), signs("full")
    return "\n".join([
        "The small tier (`icgbench bench confounding --tier small`):", "",
        cohort_markdown(small), "",
        f"The full tier (`icgbench bench confounding --tier full`; "
        f"{sum(r.reversed for r in full)} of {len(full)} confounded states point the "
        "other way):", "", summary_markdown(full)])


def tiers_markdown() -> str:
    """Each tier's size from its committed descriptor: variants, seeds, cohorts and the
    resources a standard validator (frictionless) checks."""
    from icgbench.api.tables import tier_descriptor
    from icgbench.release.tiers import TIERS

    out = ["| tier | variants | seeds | cohorts | resources in its descriptor |",
           "| --- | --- | --- | --- | --- |"]
    for name in TIERS:
        doc = tier_descriptor(name).document
        cohorts = doc["icgbench:cohorts"]
        seeds = sorted({c["seed"] for c in cohorts})
        shown = str(seeds[0]) if len(seeds) == 1 else (
            f"{seeds[0]}-{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1))
            else ", ".join(map(str, seeds)))
        out.append(f"| {name} | {len({c['variant'] for c in cohorts})} | {shown} | "
                   f"{len(cohorts)} | {len(doc['resources']):,} |")
    return "\n".join(out)


def publication_markdown() -> str:
    """Each tier's publication from its committed descriptor: the files ``data publish``
    writes, the bytes of the release files, and the mirrors and DOI the descriptor lists."""
    from icgbench.api.tables import tier_descriptor
    from icgbench.release import publish
    from icgbench.release.tiers import PUBLICATION, TIERS

    out = ["| tier | files in huggingface/ | release files (bytes) | mirrors in the descriptor "
           "| DOI |", "| --- | --- | --- | --- | --- |"]
    for name in TIERS:
        d = tier_descriptor(name)
        hub = [f for f in publish.expected_files(d) if f.startswith(publish.HUB + "/")]
        mirrors = "<br>".join(f"`{m}`" for m in d.mirrors) or "none (committed tier)"
        doi = d.document.get("id") or "none yet"
        out.append(f"| {name} | {len(hub):,} | {sum(r.bytes for r in d.resources):,} | "
                   f"{mirrors} | {doi} |")
    out += ["", f"Configured in `src/icgbench/release/tiers.py`: Hub repository "
            f"`{PUBLICATION.hub_repository}`, Zenodo record "
            f"`{PUBLICATION.zenodo_record}`."]
    return "\n".join(out)


#: Page -> (section name, generator) pairs.
SECTIONS: dict[str, list[tuple[str, Callable[[], str]]]] = {
    "docs/releasing.md": [("publication", publication_markdown)],
    "docs/dgp.md": [("confounding", confounding_markdown), ("family", family_markdown),
                    ("measurement", measurement_markdown)],
    "docs/scoring.md": [("categories", categories_markdown), ("panel", panel_markdown)],
    "docs/models.md": [("reference_panel", reference_panel_markdown)],
    "docs/data.md": [("tiers", tiers_markdown)],
    "docs/architecture.md": [("layers", layers.diagram_markdown)],
}


def regenerate(root: Path) -> dict[Path, str]:
    """Each page with its generated sections as the code gives them now."""
    pages = {}
    for page, sections in SECTIONS.items():
        text = (root / page).read_text(encoding="utf-8")
        for name, make in sections:
            text = splice(text, name, make())
        pages[root / page] = text
    return pages
