"""The board's own numbers for docs/baselines.md: power, spans, attacks, floors, methods,
the seed's figures and the confounded/misspecified mirror.

``icgbench bench report --dir leaderboard --out docs/baselines.md`` rewrites the sections
between ``<!-- generated: NAME (icgbench bench report) -->`` and ``<!-- end: NAME -->`` from
the committed board and the full tier: nothing in them is typed by hand, and the slow suite
runs the command again and compares (tests/test_board_report.py).
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from icgbench.leaderboard.entry import LeaderboardEntry

LABEL = "icgbench bench report"
#: The generic causal-discovery methods the board ranks beside the references.
DISCOVERY = ("pc", "ges", "direct_lingam", "pcmci_plus", "correlation")
#: The board shapes projected.
DESIGN_SEEDS = (5, 10, 20, 30, 40, 60, 90)
DESIGN_TEST_SIZES = (100, 200, 400, 1000)
V01, SIGN, AUG = "mbcnet_v0_1", "mbcnet_sign_constrained", "mbcnet_sign_constrained_augmented"
MISSPECIFIED = ("misspecified_signs", "misspecified_signs_v2")
#: The models with an intervention block: the mirror table's rows.
INTERVENING = (V01, "mbcnet_boosted", SIGN, AUG)


def _pattern(text: str, name: str) -> tuple[re.Pattern[str], str, str]:
    begin, end = f"<!-- generated: {name} ({LABEL}) -->", f"<!-- end: {name} -->"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise ValueError(f"no section {name!r} (markers {begin} ... {end})")
    return pattern, begin, end


def splice(text: str, name: str, block: str) -> str:
    """``text`` with the section ``name`` replaced by ``block``."""
    pattern, begin, end = _pattern(text, name)
    return pattern.sub(lambda _: f"{begin}\n{block.rstrip()}\n{end}", text)


def _f(x: float | None, digits: int = 3) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def power_markdown(pairs: Sequence[Any], designs: Sequence[Any], test_size: int,
                   resamples: int, sample: int) -> str:
    """The detectable differences of the board's adjacent pairs, and other board shapes."""
    overall = [p for p in pairs if p.scope == "all"]
    single = [p for p in pairs if p.scope != "all"]
    out = [f"`icgbench bench power --resamples {resamples} --sample {sample}` on the committed "
           f"board ({overall[0].cohorts if overall else 0} cohorts). Every pair adjacent in "
           "the `overall` ranking: the difference of their means, the spread of their "
           "per-cohort differences (blocked by variant), the paired test's p-value, the "
           "smallest true difference 80% power finds at level 0.05, and the spread's part "
           "within a cohort (the held-out subjects' sampling) and between cohorts.", "",
           "| better | worse | difference | sd | p | detectable | within | between |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in overall:
        out.append(f"| {p.better} | {p.worse} | {_f(p.difference, 4)} | {_f(p.sd, 4)} | "
                   f"{'-' if p.p_value is None else f'{p.p_value:.2g}'} | "
                   f"{_f(p.detectable, 4)} | {_f(p.within, 5)} | {_f(p.between, 5)} |")
    out += ["", "Within each variant (its cohorts only): the largest detectable difference "
            "over its adjacent pairs, which pair, and how many of its pairs are at most "
            "0.06.", "", "| variant | cohorts | largest detectable | pair | pairs <= 0.06 |",
            "| --- | --- | --- | --- | --- |"]
    for variant in dict.fromkeys(p.scope for p in single):
        mine = [p for p in single if p.scope == variant]
        worst = max(mine, key=lambda p: p.detectable)
        ok = sum(p.detectable <= 0.06 for p in mine)
        out.append(f"| `{variant}` | {worst.cohorts} | {_f(worst.detectable, 4)} | "
                   f"{worst.better} > {worst.worse} | {ok} of {len(mine)} |")
    if designs:
        out += ["", f"Projected from the split (the release's test split is {test_size} "
                "subjects): the largest detectable difference over the pairs above, overall "
                "and within a variant, for other numbers of seeds per variant and test "
                "subjects per cohort.", "",
                "| seeds per variant | " + " | ".join(f"test {m}" for m in
                                                     dict.fromkeys(d.test_size for d in designs))
                + " |", "| --- |" + " --- |" * len({d.test_size for d in designs})]
        for k in dict.fromkeys(d.seeds for d in designs):
            cells = [f"{_f(d.overall, 4)} / {_f(d.variant, 4)}" for d in designs
                     if d.seeds == k]
            out.append(f"| {k} | " + " | ".join(cells) + " |")
        out += ["", "Each cell: overall / within a variant."]
    return "\n".join(out)


def spans_markdown(spans: Sequence[Any], resamples: int, sample: int) -> str:
    from icgbench.bench.spans import PER_COHORT_TARGET, POOLED_TARGET

    out = [f"`icgbench bench spans --resamples {resamples} --sample {sample}`: per variant "
           "and normalized metric, the mean span from floor to ceiling, the largest standard "
           "error of the metric on one cohort (a bootstrap of every fitted reference on "
           f"{sample} cohorts: the median over the references, and the largest) and of the "
           "variant's pooled mean (the largest over the references of a gain's spread over "
           "the cohorts over their square root, over the references at most one span below "
           "the floor), and the span in each (targets: "
           f"{PER_COHORT_TARGET:g} and {POOLED_TARGET:g}). A reference further below the "
           "floor is listed apart, with its normalized mean and how many of its own standard "
           f"errors it lies below the floor (target: {POOLED_TARGET:g}).", "",
           "| variant | category | metric | span | SE one cohort (largest) | span / SE | "
           "SE pooled | span / SE | beyond the span |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for s in spans:
        beyond = "; ".join(f"{m} {n:.2f}, {b:.1f} SE below" for m, n, b in s.beyond) or "-"
        out.append(f"| `{s.variant}` | {s.category} | `{s.metric}` | {_f(s.span, 4)} | "
                   f"{_f(s.se_cohort, 4)} ({_f(s.se_cohort_largest, 4)}) | "
                   f"{s.per_cohort:.1f} | {_f(s.se_pooled, 4)} | {s.pooled:.1f} | {beyond} |")
    low_c = min(spans, key=lambda s: s.per_cohort)
    low_p = min(spans, key=lambda s: s.pooled)
    out += ["", f"Smallest ratios: {low_c.per_cohort:.1f} per cohort ({low_c.variant}, "
            f"`{low_c.metric}`) and {low_p.pooled:.1f} pooled ({low_p.variant}, "
            f"`{low_p.metric}`)."]
    beyond = [(b, s, m) for s in spans for m, _, b in s.beyond]
    if beyond:
        b, s, m = min(beyond, key=lambda x: x[0])
        out[-1] += (f" Beyond the span: {len(beyond)} reference(s) x metric, the nearest to "
                    f"the floor {b:.1f} of its standard errors below it ({m}, {s.variant}, "
                    f"`{s.metric}`).")
    return "\n".join(out)


def attacks_markdown(report: Mapping[str, Any]) -> str:
    out = [f"`icgbench bench attacks --draws {report['draws']} --dir leaderboard` on the full "
           f"tier's {report['cohorts']} cohorts, {report['attacks']} answers in all. The "
           "best of them per variant and category (0: the floor):", "",
           "| variant | " + " | ".join(_categories()) + " |",
           "| --- |" + " --- |" * len(_categories())]
    for variant, cats in report["worst"].items():
        out.append(f"| `{variant}` | " + " | ".join(
            f"{_f(cats[c]['score'], 4)} ({cats[c]['attack']})" if c in cats else "-"
            for c in _categories()) + " |")
    out += ["", "A reversal guessed at random on every cohort, over the draws: mean, 95th "
            "percentile and largest.", "", "| variant | category | mean | 95th percentile | "
            "largest |", "| --- | --- | --- | --- | --- |"]
    for variant, cats in report["random_guesses"].items():
        for c, g in cats.items():
            out.append(f"| `{variant}` | {c} | {_f(g['mean'], 4)} | {_f(g['p95'], 4)} | "
                       f"{_f(g['max'], 4)} |")
    composite = report["composite"]
    out += ["", f"The composite (per variant and category the best attack): `overall` "
            f"{_f(composite['overall'], 4)}. Every model of the board against it (the "
            "board's paired test over the same cohorts; a model is apart when it is "
            "separable overall, or separable above the composite on one variant and below it "
            "on another: its overall then sums a real gain and a real loss):", "",
            "| model | overall | p against the composite | variants above / below (p < 0.05) "
            "| apart |", "| --- | --- | --- | --- | --- |"]
    for row in report.get("separable", []):
        p = "-" if row["p_value"] is None else f"{row['p_value']:.2g}"
        sides = [v for v in row["per_variant"].values()
                 if v["p_value"] is not None and v["p_value"] < 0.05]
        above = sum(v["difference"] > 0 for v in sides)
        out.append(f"| {row['model']} | {_f(row['overall'], 4)} | {p} | {above} / "
                   f"{len(sides) - above} | {'yes' if row['apart'] else '**no**'} |")
    return "\n".join(out)


def _categories() -> tuple[str, ...]:
    from icgbench.tasks import CATEGORIES

    return CATEGORIES


def floors_markdown(entries: Sequence[LeaderboardEntry]) -> str:
    """Each variant's floor answer per normalized metric, and its mean floor and ceiling
    over the board's cohorts."""
    from icgbench.leaderboard.ranking import part_bounds
    from icgbench.model_free.floors import shipped_choices

    bounds: dict[tuple[str, tuple[str, str]], dict[int, tuple[float, float]]] = {}
    for e in entries:
        for part, b in part_bounds(e).items():
            bounds.setdefault((e.variant_name, part), {})[e.seed] = b
    out = ["| variant | metric | floor answer | mean floor | mean ceiling |",
           "| --- | --- | --- | --- | --- |"]
    for variant, choices in shipped_choices().items():
        for key, answer in choices.items():
            task, metric = key.split("/", 1)
            b = list(bounds.get((variant, (task, metric)), {}).values())
            if not b:
                continue
            out.append(f"| `{variant}` | `{metric}` | `{answer}` | "
                       f"{_f(statistics.fmean(x[0] for x in b), 4)} | "
                       f"{_f(statistics.fmean(x[1] for x in b), 4)} |")
    return "\n".join(out)


def methods_markdown(entries: list[LeaderboardEntry]) -> str:
    """Where every method ranks overall and in structure (the generic discovery ones
    marked)."""
    from icgbench.leaderboard.ranking import floors_of, normalized_with_shares, rank_overall

    floors = floors_of(entries)
    rows = rank_overall(entries, None, floors)
    structure = {(r.model, r.package_version): r for r in normalized_with_shares(
        entries, None, floors, "structure")[0]}
    out = ["| place | group | model | overall [95% interval] | structure |",
           "| --- | --- | --- | --- | --- |"]
    for r in rows:
        s = structure.get((r.model, r.package_version))
        name = f"**{r.model}**" if r.model in DISCOVERY else r.model
        out.append(f"| {r.place or 'ref'} | {r.group or ''} | {name} | {_f(r.mean)} "
                   f"[{_f(r.low)}, {_f(r.high)}] | {_f(s.mean) if s else '-'} |")
    return "\n".join(out)


def seed_markdown(entries: list[LeaderboardEntry]) -> str:
    """The seed's figures beside this release's, from the board's raw metrics."""
    values: dict[tuple[str, str, str, str], list[float]] = {}
    for e in entries:
        for task, metrics in e.scores.items():
            for metric, v in metrics.items():
                if v is not None:
                    values.setdefault((e.model_name, e.variant_name, task, metric), []).append(v)
    variants = list(dict.fromkeys(e.variant_name for e in entries))

    def mean(model: str, variant: str, task: str, metric: str) -> float:
        return statistics.fmean(values[(model, variant, task, metric)])

    def spread(model: str, task: str, metric: str) -> str:
        means = [mean(model, v, task, metric) for v in variants]
        return f"{min(means):.2f}-{max(means):.2f}"

    def conformity(model: str, variant: str, kind: str) -> float:
        return mean(model, variant, "intervention_conformity", kind)

    rows = ["| figure | the seed (ICg-CaST, as issue 47 cites it) | this release |",
            "| --- | --- | --- |",
            f"| MB-CNet AUROC, range of the variants' means | 0.81-0.91 | "
            f"{spread(V01, 'risk_prediction', 'auroc')} (`mbcnet_v0_1`), "
            f"{spread('mbcnet_boosted', 'risk_prediction', 'auroc')} (`mbcnet_boosted`) |",
            f"| MB-CNet R^2 mean | 0.93-0.97 | {spread(V01, 'latent_recovery', 'r2_mean')} "
            f"(`mbcnet_v0_1`), {spread('mbcnet_boosted', 'latent_recovery', 'r2_mean')} "
            "(`mbcnet_boosted`) |"]
    for variant in MISSPECIFIED:
        rows.append(
            f"| `{variant}`: DGP conformity, unconstrained vs sign-constrained vs augmented | "
            "the unconstrained model conforms to the DGP, the prior-following ones to the "
            f"prior | {conformity(V01, variant, 'dgp_conformity'):.3f} vs "
            f"{conformity(SIGN, variant, 'dgp_conformity'):.3f} vs "
            f"{conformity(AUG, variant, 'dgp_conformity'):.3f} (prior conformity "
            f"{conformity(SIGN, variant, 'prior_conformity'):.3f} and "
            f"{conformity(AUG, variant, 'prior_conformity'):.3f} for the two that follow it) |")
    pinned = statistics.fmean(
        conformity(SIGN, v, "dgp_conformity") - conformity(SIGN, v, "responsive_dgp_conformity")
        for v in variants)
    rows.append("| responsive conformity exposes a coefficient pinned at zero | the "
                "sign-constrained model's responsive share is below its plain share | "
                f"{pinned:.3f} lower on average over the variants |")
    direct = [mean("logistic_direct", v, "risk_prediction", "auroc") for v in variants]
    rows.append("| a high AUROC needs no recovered state | `logistic_direct` | AUROC "
                f"{min(direct):.2f}-{max(direct):.2f}, no latent block |")
    return "\n".join(rows)


def mirror_variants() -> list[str]:
    """The variants where the data mislead and the prior is right (confounded), then those
    where the prior is wrong and the data right (reversed signs), from the registry."""
    from icgbench.generator import all_variants

    return ([v.name for v in all_variants() if v.n_confounded]
            + [v.name for v in all_variants() if v.n_flips])


def mirror_markdown(entries: list[LeaderboardEntry]) -> str:
    """Each intervening reference's normalized intervention score and overall on the
    confounded variants beside the misspecified ones: mean [95% interval] and its group
    letter among the four (one letter shared: not separable at the board's power)."""
    from icgbench.leaderboard.ranking import normalized_with_shares, rank_overall

    mine = [e for e in entries if e.model_name in INTERVENING]
    variants = mirror_variants()
    cells: dict[tuple[str, str, str], str] = {}
    for variant in variants:
        tables = {"intervention": normalized_with_shares(mine, [variant], frozenset(),
                                                         "intervention")[0],
                  "overall": rank_overall(mine, [variant])}
        for category, rows in tables.items():
            for r in rows:
                cells[(r.model, category, variant)] = (
                    f"{_f(r.mean)} [{_f(r.low)}, {_f(r.high)}] {r.group or ''}".rstrip())
    out = ["| model | score | " + " | ".join(f"`{v}`" for v in variants) + " |",
           "| --- | --- | " + " | ".join("---" for _ in variants) + " |"]
    for model in INTERVENING:
        for category in ("intervention", "overall"):
            out.append(f"| {model} | {category} | " + " | ".join(
                cells.get((model, category, v), "-") for v in variants) + " |")
    return "\n".join(out)


Section = Callable[[], str]


def regenerate(text: str, sections: Mapping[str, Section]) -> str:
    """``text`` with every section of ``sections`` replaced by what it gives now (a
    ValueError, before anything is computed, when a section's markers are missing)."""
    for name in sections:
        _pattern(text, name)
    for name, make in sections.items():
        text = splice(text, name, make())
    return text


def sections(board: Path, resamples: int, sample: int, draws: int) -> dict[str, Section]:
    """Every generated section of docs/baselines.md, computed on first use."""
    from icgbench.bench import attacks, power, spans
    from icgbench.leaderboard.store import load_board

    entries = load_board(board, new_tier=None).entries
    memo: dict[str, Any] = {}

    def analysed() -> list[Any]:
        if "power" not in memo:
            memo["power"] = power.analyse(entries, board, resamples=resamples, sample=sample)
        return memo["power"]

    def power_block() -> str:
        pairs = analysed()
        m0 = power.test_size(entries)
        variants = len({e.variant_name for e in entries})
        return power_markdown(pairs, power.designs(pairs, m0, variants, DESIGN_SEEDS,
                                                   DESIGN_TEST_SIZES), m0, resamples, sample)

    def attacks_block() -> str:
        return attacks_markdown({**attacks.report("full", board=board, draws=draws),
                                 "draws": draws})

    return {
        "power": power_block,
        "spans": lambda: spans_markdown(spans.measure(entries, board, resamples=resamples,
                                                      sample=sample), resamples, sample),
        "attacks": attacks_block,
        "floors": lambda: floors_markdown(entries),
        "methods": lambda: methods_markdown(entries),
        "seed": lambda: seed_markdown(entries),
        "mirror": lambda: mirror_markdown(entries),
    }
