"""The page's reference lines: the ceiling and the oracle graded on every cohort of a board.

They read the truth, so they are never entries: :func:`oracle_entries` grades them on the
fly, as every model is graded, structure at the
K* of their calibration-cohort submission. For the full tier, whose board holds hundreds
of cohorts, the grades ship with the package (``reference_lines.json``, rewritten by
``python -m icgbench.leaderboard.references``): a row is used only where its cohort's
release fingerprint is the board's and the file was written by the same grading code
(:func:`code_digest`); anything else is graded on the fly. The file lives in the package,
not in ``leaderboard/``, so a board's pull request cannot change it.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
from pathlib import Path

from icgbench.errors import UserError
from icgbench.io import untrusted
from icgbench.io.atomic import write_text
from icgbench.leaderboard.entry import SCHEMA_VERSION, LeaderboardEntry, headline_scores
from icgbench.leaderboard.names import truth_readers

SHIPPED = Path(__file__).with_name("reference_lines.json")
#: The tier whose reference lines ship (the public board's).
SHIPPED_TIER = "full"
#: The largest shipped file read.
MAX_SHIPPED_BYTES = 64 * 1024 * 1024
#: Packages whose code does not grade (the page, the commands, the reports): left out of
#: :func:`code_digest`, so that changing them keeps the shipped grades.
NOT_GRADING = ("leaderboard", "cli", "bench", "reference")

Cohort = tuple[str, int]


def code_digest() -> str:
    """SHA-256 of the package source that grades a reference line (every module but those
    of :data:`NOT_GRADING`): any change there makes the shipped grades stale."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] in NOT_GRADING:
            continue
        digest.update(relative.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


@functools.lru_cache(maxsize=128)
def _truth_reader_reports(variant: str, seed: int, tier: str, fingerprint: str,
                          k: tuple[tuple[str, int | None], ...]) -> tuple[dict, ...]:
    """The ceiling's and the oracle's reports on one cohort, graded once per process for
    each release content (``fingerprint`` names it): a page and its figures both draw the
    reference lines."""
    from icgbench.models import CohortData, get_model
    from icgbench.scorer import score

    data = CohortData.load(variant, seed, tier)
    ks = dict(k)
    out = []
    for name in truth_readers():
        model = get_model(name)
        model.fit(data)
        out.append(score(model.submission(data), structure_k=ks.get(name)).document)
    return tuple(out)


def _entry(report: dict, tier: str, variant: str, seed: int) -> LeaderboardEntry:
    return LeaderboardEntry(
        schema_version=SCHEMA_VERSION, submitted_at="", tier=tier, variant_name=variant,
        variant_hash=report["variant_hash"], model_name=report["model"]["name"],
        package_version=report["model"]["version"], scores=headline_scores(report),
        notes="reads the truth", seed=seed, data_version=report["data_version"],
        release_fingerprint=report["release_fingerprint"], submission_path="",
        submission_sha256="")


@functools.lru_cache(maxsize=1)
def shipped_lines() -> dict[Cohort, tuple[LeaderboardEntry, ...]]:
    """The shipped reference lines by cohort; empty when the file is missing, unreadable,
    or written by other grading code."""
    try:
        doc = untrusted.read_json(untrusted.read_regular(SHIPPED, MAX_SHIPPED_BYTES),
                                  MAX_SHIPPED_BYTES)
    except (OSError, untrusted.InputProblem):
        return {}
    if not isinstance(doc, dict) or doc.get("code_digest") != code_digest():
        return {}
    out: dict[Cohort, list[LeaderboardEntry]] = {}
    try:
        for row in doc["entries"]:
            entry = LeaderboardEntry.verified(row)  # not an entry of a board: no path
            out.setdefault((entry.variant_name, entry.seed), []).append(entry)
    except (KeyError, TypeError, UserError):
        return {}
    return {cohort: tuple(rows) for cohort, rows in out.items()}


def _graded(cohorts: dict[Cohort, set[str]]) -> list[LeaderboardEntry]:
    """The reference lines graded now on ``cohorts`` (each with the release fingerprints
    wanted), on the first open tier whose release holds the cohort at such a fingerprint."""
    from icgbench.api.tables import tier_descriptor
    from icgbench.tasks.graph_metrics import best_k

    def reports(variant: str, seed: int, tier: str, k: dict[str, int | None]) -> list[dict]:
        return list(_truth_reader_reports(variant, seed, tier,
                                          tier_descriptor(tier).fingerprint(),
                                          tuple(sorted(k.items()))))

    out = []
    k_stars: dict[str, dict[str, int | None]] = {}
    for (variant, seed), wanted in sorted(cohorts.items()):
        for tier in ("full", "small"):
            try:
                if tier_descriptor(tier).fingerprint() not in wanted:
                    continue  # another release: nothing to grade there
                if tier not in k_stars:
                    calibration = tier_descriptor(tier).calibration_cohort
                    k_stars[tier] = {
                        r["model"]["name"]: best_k(r["tasks"]["structure_recovery"]
                                                   ["details"]["curve"])
                        for r in reports(*calibration, tier, {})}
                graded = reports(variant, seed, tier, k_stars[tier])
            except UserError:
                continue
            if graded[0]["release_fingerprint"] not in wanted:
                continue
            out += [_entry(report, tier, variant, seed) for report in graded]
            break
    return out


def oracle_entries(entries: list[LeaderboardEntry]) -> list[LeaderboardEntry]:
    """The ceiling and the oracle on every cohort the board holds (none without the
    release): the shipped rows where they are the board's release's, the rest graded now."""
    wanted: dict[Cohort, set[str]] = {}
    for e in entries:
        wanted.setdefault((e.variant_name, e.seed), set()).add(e.release_fingerprint)
    shipped = shipped_lines()
    out: list[LeaderboardEntry] = []
    missing: dict[Cohort, set[str]] = {}
    for cohort, fingerprints in sorted(wanted.items()):
        rows = shipped.get(cohort, ())
        if rows and all(r.release_fingerprint in fingerprints for r in rows):
            out += rows
        else:
            missing[cohort] = fingerprints
    if missing:
        out += _graded(missing)
    order = truth_readers()
    return sorted(out, key=lambda e: (e.variant_name, e.seed, order.index(e.model_name)))


def write_shipped(tier: str = SHIPPED_TIER) -> Path:
    """Grade the reference lines on every cohort of ``tier``'s release and write them to
    :data:`SHIPPED` (its rows in cohort order, the grading code's digest beside them)."""
    from icgbench.api.tables import tier_descriptor

    d = tier_descriptor(tier)
    cohorts = {(c["variant"], c["seed"]): {d.fingerprint()} for c in d.cohorts()}
    rows = _graded(cohorts)
    if {(e.variant_name, e.seed) for e in rows} != set(cohorts):
        raise UserError(f"the {tier} tier's release does not hold every cohort it lists; "
                        f"build it first: icgbench data build --tier {tier}")
    doc = {"code_digest": code_digest(), "tier": tier,
           "entries": [e.as_dict() for e in rows]}
    write_text(SHIPPED, json.dumps(doc, indent=0, sort_keys=True) + "\n")
    shipped_lines.cache_clear()
    return SHIPPED


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Rewrite the shipped reference lines ("
                                     "reference_lines.json) from the full tier's release.")
    parser.parse_args()
    print(f"wrote {write_shipped()}")
