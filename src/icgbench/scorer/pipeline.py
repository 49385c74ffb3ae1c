"""The scoring pipeline: read, validate in two layers, load the truth, grade each task."""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from icgbench import contract
from icgbench.errors import UsageError
from icgbench.release.locate import tier_descriptor
from icgbench.release.tiers import TIERS, UNFROZEN_NAME, UNFROZEN_NOTICE
from icgbench.scorer import parse, semantic
from icgbench.scorer.columns import Columns
from icgbench.scorer.errors import SubmissionInvalid
from icgbench.scorer.messages import DEFAULT_MAX_ERRORS, line, listed, message
from icgbench.scorer.report import ScoreReport, build_report
from icgbench.scorer.schema_check import schema_errors
from icgbench.scorer.truth import LoadedTruth, load_truth, public_truth
from icgbench.tasks import CATEGORIES, TASKS, TaskResult, withheld
from icgbench.tasks.summary import normalized_scores, score_summary

log = logging.getLogger("icgbench.scorer")


@dataclass(frozen=True)
class Validated:
    """A submission that passed every check, with its aligned arrays and its truth."""

    document: dict[str, Any]
    blocks: dict[str, dict[str, Any]]
    truth: Any
    descriptor: Any
    sha256: str
    size: int
    path: str | None
    timings: dict[str, float]
    #: True for a sealed-tier submission: ``truth`` holds the public ids and nodes only,
    #: and grading regenerates the truth from the board's key.
    sealed: bool = False
    #: The sealed tier's key the truth was regenerated with (None: not yet, or not sealed).
    key: bytes | None = None


def _load(source: str | Path | dict[str, Any] | bytes, max_bytes: int
          ) -> tuple[dict[str, Any], str, int, str | None]:
    if isinstance(source, dict):
        import json

        try:
            data = json.dumps(source, allow_nan=False).encode()
        except (ValueError, TypeError, UnicodeEncodeError) as exc:
            raise SubmissionInvalid([line((), f"not a JSON document ({exc})")],
                                    "parse") from None
        return dict(source), "sha256:" + hashlib.sha256(data).hexdigest(), len(data), None
    if isinstance(source, bytes):
        if len(source) > max_bytes:
            raise SubmissionInvalid([line((), f"{len(source)} bytes, over the limit of "
                                          f"{max_bytes}")],
                                    "size")
        file_bytes, path = source, None
    else:
        file_bytes, path = parse.read_file(Path(source), max_bytes), str(source)
    digest = "sha256:" + hashlib.sha256(file_bytes).hexdigest()
    return parse.read_document(file_bytes, max_bytes), digest, len(file_bytes), path


def check_submission(source: str | Path | dict[str, Any] | bytes, *, tier: str | None = None,
             root: Path | None = None, max_bytes: int = parse.DEFAULT_MAX_BYTES,
             max_errors: int = DEFAULT_MAX_ERRORS, frozen_only: bool = False,
             descriptor: Any = None, key: bytes | None = None) -> Validated:
    """Parse and check a submission; raises SubmissionInvalid listing every problem.

    ``frozen_only`` (the leaderboard) refuses a submission for a cohort simulated on the fly.
    ``descriptor`` checks against that release instead of the tier's (a retired sealed
    generation's); ``key`` regenerates a sealed cohort's truth with that key at once.
    """
    t0 = time.perf_counter()
    doc, digest, size, path = _load(source, max_bytes)
    t1 = time.perf_counter()
    log.info("read the submission%s (%d bytes)", f" {path}" if path else "", size)
    cache = Columns()
    errors, count = schema_errors(doc, contract.json_schema("submission"), max_errors,
                                  cache=cache)
    if errors:
        raise SubmissionInvalid(errors, "schema", count)
    semantic.normalise_integers(doc)
    log.info("the JSON Schema holds (%s seed %s, %s tier)", doc["variant"], doc["seed"],
             doc["tier"])
    if frozen_only and doc["tier"] == UNFROZEN_NAME:
        raise SubmissionInvalid([f"/tier: \"{UNFROZEN_NAME}\" is {UNFROZEN_NOTICE}; the "
                                 "leaderboard takes submissions for the frozen release only "
                                 f"(tiers {', '.join(TIERS)})"], "semantic")
    t2 = time.perf_counter()
    if tier is not None and tier != doc["tier"]:
        raise UsageError(f"--tier {tier} but the submission is for the {doc['tier']} tier")
    d = tier_descriptor(doc["tier"], root) if descriptor is None else descriptor
    errors = semantic.header_errors(doc, d)
    if errors:
        raise SubmissionInvalid(listed(errors, len(errors), max_errors), "semantic",
                                len(errors))
    present = {name for name in task_blocks() if name in doc}
    needed = tuple(dict.fromkeys(t for task in TASKS.values()
                                 if set(task.blocks) <= present for t in task.truth_tables))
    if d.sealed and key is not None:
        from icgbench.release.sealed import sealed_truth

        loaded = LoadedTruth(sealed_truth(d, doc["variant"], doc["seed"], key), ())
    elif d.sealed:
        loaded = public_truth(d, doc["variant"], doc["seed"])
    else:
        loaded = load_truth(d, doc["variant"], doc["seed"], needed)
    t3 = time.perf_counter()
    log.info("loaded the hash-checked truth: %s", ", ".join(needed) or "none")
    blocks = {name: doc[name] for name in doc if name in task_blocks()}  # document order
    errors = incomplete_task_errors(list(blocks))
    errors += [e for name, block in blocks.items()
               for e in semantic.block_errors(name, block, loaded.truth, cache)]
    if errors:
        raise SubmissionInvalid(listed(errors, len(errors), max_errors), "semantic",
                                len(errors))
    aligned = {name: semantic.align(name, block, loaded.truth, cache)
               for name, block in blocks.items()}
    t4 = time.perf_counter()
    log.info("the release checks hold for block(s) %s", ", ".join(aligned))
    timings = {"parse_seconds": t1 - t0, "schema_seconds": t2 - t1, "truth_seconds": t3 - t2,
               "semantic_seconds": t4 - t3}
    return Validated(doc, aligned, loaded.truth, d, digest, size, path, timings,
                     d.sealed and key is None, key if d.sealed else None)


def _unsealed(v: Validated) -> Validated:
    """``v`` with the sealed cohort's truth, regenerated from the board's key (or, for a
    retired generation, its published key) and checked against the published tables and the
    commitment; a UsageError without a key."""
    from icgbench.release import generations, sealed

    key = generations.retired_key(v.descriptor.version) or sealed.key_from_env()
    if key is None:
        raise UsageError(f"the submission is valid; grading a sealed-tier submission needs "
                         f"the board's key ({sealed.KEY_ENV}), which only the leaderboard's "
                         "CI holds: send it as a leaderboard pull request")
    truth = sealed.sealed_truth(v.descriptor, v.document["variant"], v.document["seed"], key)
    blocks = {name: semantic.align(name, v.document[name], truth) for name in v.blocks}
    return replace(v, blocks=blocks, truth=truth, sealed=False, key=key)


def _on_half(v: Validated, half: str) -> Validated:
    """``v`` cut to one half of a sealed cohort's held-out subjects (see scorer.halves)."""
    from icgbench.release.sealed import half_masks
    from icgbench.scorer.halves import restrict

    doc = v.document
    masks = half_masks(v.key, doc["variant"], doc["seed"], v.truth.ids, half)
    truth, blocks = restrict(v.truth, v.blocks, masks)
    return replace(v, truth=truth, blocks=blocks)


def incomplete_task_errors(present: list[str]) -> list[str]:
    """A block no task can grade, because a task's other blocks are missing (in the order
    of ``present``)."""
    out, have = [], set(present)
    for block in present:
        users = [t for t in TASKS.values() if block in t.blocks]
        if users and not any(set(t.blocks) <= have for t in users):
            needs = sorted({b for t in users for b in t.blocks} - have)
            out.append(line((block,), message("incomplete_task", needs=", ".join(needs),
                                              users=", ".join(t.name for t in users))))
    return out


def task_blocks() -> list[str]:
    """Every submission block some task reads, in schema order."""
    return [b for b in contract.json_schema("submission")["properties"]
            if any(b in t.blocks for t in TASKS.values())]


def score(source: str | Path | dict[str, Any] | bytes, *, tier: str | None = None,
          root: Path | None = None, max_bytes: int = parse.DEFAULT_MAX_BYTES,
          structure_k: int | None = None, responsive_threshold: float | None = None,
          max_errors: int = DEFAULT_MAX_ERRORS) -> ScoreReport:
    """Validate and grade a submission (a path, a parsed dict or raw bytes).

    ``structure_k`` grades structure_recovery at that K (a model's calibrated K*);
    ``responsive_threshold`` replaces intervention_conformity's default 0.005 for analysis
    (the report records the value; the leaderboard always grades at the default).
    """
    start = time.perf_counter()
    v = check_submission(source, tier=tier, root=root, max_bytes=max_bytes, max_errors=max_errors)
    return grade(v, structure_k, start, responsive_threshold)


def grade(v: Validated, structure_k: int | None = None, start: float | None = None,
          responsive_threshold: float | None = None, half: str = "public") -> ScoreReport:
    """Grade an already validated submission (``start``: when its timing began).

    A sealed-tier submission is graded on one ``half`` of its held-out subjects: the
    ``public`` half (what the board shows) unless asked for the ``private`` one. The public
    half withholds what the whole cohort shares (:mod:`icgbench.tasks.withheld`).
    """
    t0 = time.perf_counter()
    start = t0 if start is None else start
    if v.sealed:
        v = _unsealed(v)
    public = v.key is not None and half == "public"
    if v.key is not None:
        v = _on_half(v, half)
    if structure_k is not None and "structure_recovery" in v.blocks:
        v.blocks["structure_recovery"]["k_override"] = structure_k
    if responsive_threshold is not None and "intervention_conformity" in v.blocks:
        v.blocks["intervention_conformity"]["responsive_threshold"] = responsive_threshold
    results = {name: (TaskResult({}) if public and withheld.fully_withheld(task)
                      else task.score(v.blocks, v.truth))
               for name, task in TASKS.items() if all(b in v.blocks for b in task.blocks)}
    hidden: list[str] = []
    if public:
        results, hidden = withheld.public_half(results, TASKS)
    t1 = time.perf_counter()
    log.info("graded %s in %.3f s", ", ".join(results), t1 - t0)
    timings = {**v.timings, "score_seconds": t1 - t0, "total_seconds": t1 - start}
    provenance = {
        "frozen": v.descriptor.frozen,
        "data_version": v.descriptor.version,
        "release_fingerprint": v.descriptor.fingerprint(),
        "submission": {"sha256": v.sha256, "bytes": v.size,
                       **({"path": v.path} if v.path else {})},
    }
    categories = normalized_scores(results, v.truth)
    shown = withheld.shown_categories(TASKS.values()) if public else CATEGORIES
    return build_report(v.document, results, score_summary(results, categories, shown),
                        v.truth, provenance, timings, categories, sorted(hidden))
