"""``icgbench leaderboard render``: a static, self-contained web site of the board.

``index.html`` holds the overall ranking, the sealed track and the figures; each variant has
a page of its own (``<variant>.html``: a table per task), so the size of a page grows with
the number of models, not of entries. No CDN and no server: styles, the sorting script and
the figures (as data URIs) are inside each HTML file, and the submissions the pages link to
are copied beside them, so the folder works from ``file://``. Reference lines: ``random``
(an entry, the floor, when it is the registry's model at a version the trusted code
produces: :func:`.names.is_floor`) and the registry's models flagged ``oracle``
(``ceiling``, ``oracle``: :mod:`.references`, shipped for the full tier, else scored on
the fly from the truth when the release is available).
A name on the board alone never makes a reference
line.

The page treats the board as hostile: every value is HTML-escaped; links are relative and
point only at the submission copies it wrote itself, at each entry's canonical path; a
figure must be a regular file (not a link) with a PNG signature; and a
Content-Security-Policy allows no script or style but the page's own (by hash), images
only as data URIs, and nothing fetched from anywhere.
"""

from __future__ import annotations

import base64
import hashlib
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from icgbench.errors import InvalidInputError, UsageError
from icgbench.generator import get_variant
from icgbench.io import untrusted
from icgbench.io.atomic import ensure_writable_dir, write_bytes, write_text
from icgbench.leaderboard.entry import LeaderboardEntry
from icgbench.leaderboard.files import SEALED_BOARD, board_folder, inside
from icgbench.leaderboard.names import is_floor
from icgbench.leaderboard.ranking import floors_of, group_label, rank_category, rank_overall
from icgbench.leaderboard.references import oracle_entries
from icgbench.leaderboard.store import JSON_NAME, load_board
from icgbench.leaderboard.uncertainty import interval
from icgbench.release.tiers import SEALED_NAME
from icgbench.scorer.parse import DEFAULT_MAX_BYTES
from icgbench.tasks import CATEGORIES, TASKS

FIGURE_ALT = {
    "normalized_scores.png": "Normalized scores per category, with their 95% intervals: "
    "what the board ranks",
    "cohort_spread.png": "Each model's overall, cohort by cohort",
    "pairwise_wins.png": "Which differences in overall are real (paired tests)",
    "scores_by_variant.png": "Raw task scores by variant and model",
    "auroc_vs_r2.png": "AUROC against mean R^2: prediction without mechanism",
    "conformity_per_intervention.png": "Intervention conformity: structural prior vs DGP",
    "transfer_gap.png": "Transfer gap under a shifted host distribution",
    "structure_sensitivity.png": "Structure recovery: F1 and SHD against K on the "
    "calibration cohort, K* marked",
}


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_FIGURE_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class Page:
    """The site: ``index.html``'s HTML, each variant page's (by file name), and counts."""

    html: str
    entries: int
    oracle_rows: int
    pages: dict[str, str]


#: Metrics that count things (edges, K): shown as whole numbers, or to one decimal as means.
COUNTS = {"k", "shd", "shd_reversal_2", "n_scored_pairs"}


def _fmt(value: float | None, metric: str = "") -> str:
    if value is None:
        return "–"
    if metric in COUNTS:
        return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
    text = f"{value:.3f}"
    return "0.000" if text == "-0.000" else text


def _cell(values: list[float], metric: str = "") -> dict[str, Any]:
    """A table cell: the mean over cohorts and its 95% interval (see .uncertainty)."""
    mean = statistics.fmean(values) if values else None
    span = interval(values)
    return {"text": _fmt(mean, metric), "sort": "" if mean is None else f"{mean:.9g}",
            "ci": None if span is None else f"[{_fmt(span[0], metric)}, "
                                            f"{_fmt(span[1], metric)}]"}


def _by(entries: list[LeaderboardEntry], key: Callable[[LeaderboardEntry], Any]
        ) -> dict[Any, list[LeaderboardEntry]]:
    """``entries`` grouped by ``key``, in the order keys first appear."""
    out: dict[Any, list[LeaderboardEntry]] = {}
    for e in entries:
        out.setdefault(key(e), []).append(e)
    return out


def _by_model(entries: list[LeaderboardEntry]
              ) -> dict[tuple[str, str], list[LeaderboardEntry]]:
    return _by(entries, lambda e: (e.model_name, e.package_version))


def _rows(entries: list[LeaderboardEntry], oracle: list[LeaderboardEntry], variant: str,
          task: str, floors: set[tuple[str, str]]) -> list[dict[str, Any]]:
    """One table's rows, ranked by the task's normalized category over the variant's cohorts
    (:func:`.ranking.rank_category`): ``entries`` and ``oracle`` are the variant's."""
    spec = TASKS[task]
    rows = []
    for reference, pool in ((False, entries), (True, oracle)):
        groups = _by_model(pool)
        place = 0
        for r in rank_category(pool, variant, spec.category, floors_of(pool)):
            mine = [e for e in groups.get((r.model, r.package_version), [])
                    if task in e.scores]
            if not mine:
                continue
            line = reference or (r.model, r.package_version) in floors
            cells = [_stat_cell(r.mean, r.low, r.high) | {"ranked": True}]
            for metric in spec.headline:
                values = [e.scores[task].get(metric) for e in mine]
                cells.append(_cell([v for v in values if v is not None], metric)
                             | {"ranked": False})
            place = r.place or place
            rows.append({
                "model": r.model, "version": r.package_version, "cells": cells,
                "place": "" if line or r.place is None else r.place,
                "group": "" if line else group_label(r.group),
                "partial": r.partial and not line,
                "seeds": len(mine), "reference": line,
                "links": [{"href": e.canonical_path, "label": _link_label(e)}
                          for e in sorted(mine, key=lambda e: e.seed) if e.submission_path],
            })
    return rows


def overall_rows(entries: list[LeaderboardEntry], references: list[LeaderboardEntry]
                 ) -> list[dict[str, Any]]:
    """The overall ranking: per model, ``overall`` and each category's normalized mean over
    every cohort of the board (:func:`.ranking.rank_overall`: complete models first, then
    the partial ones), with places and groups; the models that read the truth follow as
    reference lines, unranked."""
    rows = []
    for reference, pool in ((False, entries), (True, references)):
        groups = _by_model(pool)
        for r in rank_overall(pool, floors=floors_of(pool)):
            mine = groups[(r.model, r.package_version)]
            cells = [_stat_cell(r.mean, r.low, r.high)]
            cells += [_stat_cell(*r.categories.get(c, (None, None, None)))
                      for c in CATEGORIES]
            line = reference or is_floor(r.model, r.package_version, mine[0].tier)
            rows.append({"rank": "" if line or r.place is None else str(r.place),
                         "place": "" if line or r.place is None else r.place,
                         "group": "" if line else group_label(r.group),
                         "partial": r.partial and not line,
                         "model": r.model, "version": r.package_version, "cells": cells,
                         "cohorts": len(mine), "reference": line})
    return rows


def _stat_cell(mean: float | None, low: float | None, high: float | None) -> dict[str, Any]:
    """A table cell from a mean and its interval (None: not attempted)."""
    return {"text": _fmt(mean, ""), "sort": "" if mean is None else f"{mean:.9g}",
            "ci": None if low is None or high is None else f"[{_fmt(low, '')}, "
                                                           f"{_fmt(high, '')}]"}


def _link_label(e: LeaderboardEntry) -> str:
    """A submission link's text: the seed, and a sealed entry's release version."""
    return f"seed {e.seed}" if e.tier != SEALED_NAME else e.data_version


def _sections(entries: list[LeaderboardEntry], oracle: list[LeaderboardEntry]
              ) -> list[dict[str, Any]]:
    """Per variant on the board, per task with rows: the tables of the variant pages."""
    variants = []
    floors = floors_of(entries)
    oracle_by_variant = _by(oracle, lambda e: e.variant_name)
    for name, mine in _by(entries, lambda e: e.variant_name).items():
        v = get_variant(name)
        tasks = []
        for task, spec in TASKS.items():
            rows = _rows(mine, oracle_by_variant.get(name, []), name, task, floors)
            if rows:
                tasks.append({"name": task, "category": spec.category, "rows": rows,
                              "metrics": [
                    {"name": m, "higher": str(spec.metric(m).higher_is_better).lower()
                     if spec.metric(m).higher_is_better is not None
                     and spec.metric(m).ranked else "none"}
                    for m in spec.headline]})
        variants.append({"name": name, "hash": v.variant_hash, "description": v.description,
                         "tasks": tasks, "page": f"{v.name}.html", "entries": len(mine),
                         "models": len(_by_model(mine))})
    return variants


def sealed_entries(folder: Path) -> list[LeaderboardEntry]:
    """The sealed track's entries (``folder/sealed``), or none when it has no board."""
    sealed = Path(folder) / SEALED_BOARD
    if not (sealed / JSON_NAME).is_file():
        return []
    return load_board(board_folder(sealed), new_tier=None).entries


def private_half_entries(folder: Path, entries: list[LeaderboardEntry]
                         ) -> list[LeaderboardEntry]:
    """The sealed entries (of the sealed board in ``folder``) of retired generations,
    re-graded on the private half of their cohorts' held-out subjects with the generation's
    published key: the final standings, which nothing showed before the key was retired.
    None while no generation is retired."""
    from icgbench.leaderboard.entry import entry_from_report
    from icgbench.leaderboard.verify import sealed_release
    from icgbench.release import generations, locate
    from icgbench.scorer import check_submission, grade

    try:
        retired = {g.data_version for g in generations.load(locate.release_root())
                   if g.retired}
    except UsageError:
        return []
    graded: dict[tuple[str, str, str, int], dict] = {}
    k_star: dict[tuple[str, str], int] = {}  # (model, version) -> K* of its calibration file
    mine = [e for e in entries if e.data_version in retired]
    # calibration-cohort files first: structure is graded here for the first time, and a
    # model version's K* is chosen on its calibration cohort's file (private half or not:
    # the graph is the cohort's)
    for e in sorted(mine, key=lambda e: not _on_calibration(e)):
        try:
            data = untrusted.read_regular(inside(folder, e.submission_path), DEFAULT_MAX_BYTES,
                                          follow_symlinks=False)
        except (OSError, untrusted.InputProblem) as exc:
            raise InvalidInputError(f"cannot read {e.label}'s submission: {exc} (run "
                                    "`icgbench leaderboard verify`)") from None
        descriptor, key = sealed_release(e)  # a retired generation's: its published key
        report = grade(check_submission(data, descriptor=descriptor, key=key),
                       structure_k=k_star.get((e.model_name, e.package_version)),
                       half="private").document
        k = report["tasks"].get("structure_recovery", {}).get("metrics", {}).get("k")
        if _on_calibration(e) and k is not None:
            k_star[(e.model_name, e.package_version)] = int(k)
        graded[e.key] = report
    return [entry_from_report(graded[e.key], e.notes, e.submitted_at) for e in mine]


def _on_calibration(e: LeaderboardEntry) -> bool:
    from icgbench.api.tables import tier_descriptor

    return (e.variant_name, e.seed) == tuple(tier_descriptor(e.tier).calibration_cohort)


#: How many models the figures drawn from the board show (the best overall), besides the
#: reference lines: more would not fit a legend a reader can use.
FIGURE_MODELS = 12


def page_figures(entries: list[LeaderboardEntry], oracle: list[LeaderboardEntry],
                 figures: Path | None) -> list[dict[str, str]]:
    """The figures drawn from the board itself (so a submitted model appears in them),
    then any in ``figures`` (a folder the command names), captioned as not drawn from the
    board."""
    import tempfile

    from icgbench.bench.plots import BOARD_FIGURES, board_figures
    from icgbench.bench.ranking_figures import FIGURES, ranking_figures
    from icgbench.leaderboard.ranking import floors_of, rank_overall

    ranked = {r.model for r in rank_overall(entries, floors=floors_of(entries))
              if r.place is not None}
    shown = min(FIGURE_MODELS, len(ranked))
    with tempfile.TemporaryDirectory(prefix="icgbench-figures-") as tmp:
        ranking_figures(entries, Path(tmp), FIGURE_MODELS)
        board_figures(entries, oracle, Path(tmp), FIGURE_MODELS)
        drawn = figure_images(Path(tmp), "drawn from this board: "
                              + ("the one ranked model" if shown == 1 else
                                 f"the {shown} models ranked highest overall"
                                 if shown < len(ranked) else f"all {shown} ranked models")
                              + " and the reference lines")
    order = [f"figure-{Path(name).stem}" for name in (*FIGURES, *BOARD_FIGURES)]
    drawn.sort(key=lambda f: order.index(f["id"]) if f["id"] in order else len(order))
    ours = set(order)
    return drawn + [f for f in figure_images(figures, "not drawn from this board")
                    if f["id"] not in ours]


def figure_images(figures: Path | None, source: str = "") -> list[dict[str, str]]:
    """The PNG figures in ``figures`` as data-URI payloads; anything else is refused."""
    if figures is None or not figures.is_dir():
        return []
    images = []
    for png in sorted(figures.glob("*.png")):
        try:
            data = untrusted.read_regular(png, MAX_FIGURE_BYTES, follow_symlinks=False)
        except (OSError, untrusted.InputProblem) as exc:
            raise InvalidInputError(f"figure {png} cannot be embedded: {exc}") from None
        if not data.startswith(PNG_SIGNATURE):
            raise InvalidInputError(f"figure {png} is not a PNG file (no PNG signature)")
        alt = FIGURE_ALT.get(png.name, png.stem.replace("_", " "))
        images.append({"alt": alt, "caption": f"{alt} ({source})" if source else alt,
                       "id": f"figure-{png.stem}", "data": base64.b64encode(data).decode()})
    return images


#: The site's page that checks a submission in the browser.
CHECK_PAGE = "check.html"


def _source_hash(text: str) -> str:
    """A CSP source expression allowing exactly this inline script or style."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _asset(name: str) -> str:
    return resources.files("icgbench.leaderboard").joinpath(f"templates/{name}").read_text()


def content_security_policy(css: str, *scripts: str) -> str:
    """Nothing but the page's own style and scripts, images as data URIs, no fetching."""
    allowed = " ".join(_source_hash(js) for js in scripts)
    return (f"default-src 'none'; style-src {_source_hash(css)}; script-src {allowed}; "
            "img-src data:; base-uri 'none'; form-action 'none'")


def _swatches(entries: list[LeaderboardEntry]) -> tuple[dict[str, str], str]:
    """Each model's colour as a CSS class (the figures' colour: models.colors) and the
    rules that define them (in the page's own, hashed stylesheet: the CSP allows no
    inline style)."""
    from icgbench.models.colors import model_colors

    colours = model_colors(sorted({e.model_name for e in entries}))
    classes = {m: f"swatch c{i}" for i, m in enumerate(colours)}
    rules = "".join(f".c{i}{{background:{c}}}" for i, c in enumerate(colours.values()))
    return classes, f"\n  {rules}\n" if rules else ""


def _templates() -> jinja2.Environment:
    return jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True,
                              loader=jinja2.FunctionLoader(_asset))


def build_page(folder: Path, figures: Path | None, with_oracle: bool = True) -> Page:
    """The site's HTML for the board in ``folder``: the index and a page per variant."""
    board = load_board(board_folder(folder), new_tier=None)
    entries = board.entries
    oracle = oracle_entries(entries) if with_oracle else []
    sealed = sealed_entries(folder)
    private = private_half_entries(Path(folder) / SEALED_BOARD, sealed) if sealed else []
    swatches, colour_rules = _swatches([*entries, *oracle, *sealed])
    css, js = _asset("page.css") + colour_rules, _asset("page.js")
    common = {"css": Markup(css), "js": Markup(js),
              "csp": Markup(content_security_policy(css, js)), "swatches": swatches,
              "data_versions": sorted({e.data_version for e in entries})}
    variants = _sections(entries, oracle)
    templates = _templates()
    html = templates.get_template("page.html.j2").render(
        **common, entries=entries, variants=variants,
        figures=page_figures(entries, oracle, figures),
        overall=overall_rows(entries, oracle), categories=CATEGORIES,
        sealed=_sections(sealed, []), sealed_versions=sorted({e.data_version for e in sealed}),
        private=_sections(private, []),
        private_versions=sorted({e.data_version for e in private}),
        models=sorted({e.model_name for e in entries}))
    variant_page = templates.get_template("variant.html.j2")
    pages = {v["page"]: variant_page.render(**common, variants=[v]) for v in variants}
    pages[CHECK_PAGE] = check_page(templates, css, common["data_versions"], board.tier)
    return Page(html, len(entries), len(oracle), pages)


def check_page(templates: jinja2.Environment, css: str, data_versions: list[str],
               board_tier: str) -> str:
    """The "check a submission" page: the schema's compiled validator, the checker and the
    public facts it reads (leaderboard.checker), all inline, under the same CSP; a valid
    file of another tier than the board's is said to be one the board refuses."""
    from icgbench.contract import package_schema_dir
    from icgbench.leaderboard.checker import checker_facts, facts_json

    schema_js = (package_schema_dir() / "checker" / "submission_schema.js").read_text()
    core_js, check_js = (_asset(name) for name in ("checker_core.js", "check.js"))
    return templates.get_template("check.html.j2").render(
        css=Markup(css), schema_js=Markup(schema_js), core_js=Markup(core_js),
        check_js=Markup(check_js), csp=Markup(content_security_policy(
            css, schema_js, core_js, check_js)),
        facts=Markup(facts_json(checker_facts())), data_versions=data_versions,
        board_tier=board_tier)


def render(folder: Path, out: Path, figures: Path | None, with_oracle: bool = True) -> Page:
    """Write ``out/index.html`` and copy the linked submissions beside it (never into a
    board: its pages would be strays there)."""
    from icgbench.io.paths import outside_boards

    outside_boards(out)
    page = build_page(folder, figures, with_oracle)
    ensure_writable_dir(out)
    copies = [("", e) for e in load_board(folder, new_tier=None).entries]
    copies += [(f"{SEALED_BOARD}/", e) for e in sealed_entries(folder)]
    for where, e in copies:
        source = inside(folder / where, e.canonical_path)
        target = inside(out / where, e.canonical_path)
        if source.resolve() == target.resolve():
            continue
        try:
            data = untrusted.read_regular(source, DEFAULT_MAX_BYTES, follow_symlinks=False)
        except (OSError, untrusted.InputProblem) as exc:
            raise InvalidInputError(f"cannot copy {e.label}'s submission {source}: {exc} "
                                    "(run `icgbench leaderboard verify`)") from None
        write_bytes(target, data)
    for name, html in page.pages.items():
        write_text(out / name, html)
    write_text(out / "index.html", page.html)
    return page
