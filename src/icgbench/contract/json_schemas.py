"""The JSON Schemas of the scoring spec: submission, score report, leaderboard entry.

Draft-07, so R's jsonvalidate, ajv, fastjsonschema and Python's jsonschema agree; each has a
versioned ``$id``. The files under ``schemas/`` are the contract; this module generates them
from the vocabulary (``make contract``) and a test fails when they drift apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from icgbench.contract import dumps
from icgbench.generator.mechanism import graph_nodes
from icgbench.generator.variants import variant_names
from icgbench.io.atomic import write_text
from icgbench.release.tiers import SEALED_NAME, UNFROZEN_NAME
from icgbench.release.tiers import TIERS as FROZEN_TIERS
from icgbench.tasks import BLOCKS as TASK_BLOCKS
from icgbench.tasks import CATEGORIES, TASKS

DRAFT7 = "http://json-schema.org/draft-07/schema#"
SUBMISSION_VERSION = "1.0"
REPORT_VERSION = "3.0"
LEADERBOARD_VERSION = "0.2"
ID_PATTERN = "^(TR|TE|TG)[0-9]{6,9}$"
HASH12 = "^[0-9a-f]{12}$"
SHA256 = "^sha256:[0-9a-f]{64}$"
#: The end of the string, in a form every regex engine reads alike: ``$`` also matches
#: before a final newline in Python (jsonschema) but not in JavaScript (ajv).
END = r"(?![\s\S])"
#: A release version: semver, plus ``+sealed.<generation>`` for the sealed tier's.
RELEASE_VERSION = (r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
                   rf"(\+{SEALED_NAME}\.[1-9][0-9]*)?{END}")
#: Names and versions become folder names and are shown on the page: ASCII letters and
#: digits first, then a few punctuation marks; no space, no control character.
NAME_CHARS = "A-Za-z0-9._-"
VERSION_CHARS = "A-Za-z0-9.+_-"
#: The longest model name (and version), in characters.
NAME_LENGTH = 64
MODEL_NAME = f"^[A-Za-z0-9][{NAME_CHARS}]{{0,{NAME_LENGTH - 1}}}{END}"
MODEL_VERSION = f"^[A-Za-z0-9][{VERSION_CHARS}]{{0,63}}{END}"
LANGUAGE = f"^[A-Za-z0-9](?:[A-Za-z0-9 .+#_-]{{0,30}}[A-Za-z0-9+#])?{END}"
URL = f"^https?://[!-~]{{1,490}}{END}"
#: ``oracle`` in any case: reserved for the reference model that reads the truth.
ORACLE_NAME = f"^[Oo][Rr][Aa][Cc][Ll][Ee]{END}"
#: A UTC ISO-8601 timestamp in ASCII digits.
TIMESTAMP = (r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
             rf"(\.[0-9]{{1,6}})?Z{END}")
#: Frozen release tiers: the only ones a leaderboard entry can name (the sealed track's
#: board holds the sealed tier's entries).
TIERS = [*FROZEN_TIERS, SEALED_NAME]
#: What a submission or report may name: a frozen tier, or a cohort simulated on the fly.
GRADED_TIERS = [*TIERS, UNFROZEN_NAME]
#: Submission blocks, in the order tasks consume them (the task registry's).
BLOCKS = list(TASK_BLOCKS)


def _array(items: dict[str, Any], description: str) -> dict[str, Any]:
    return {"type": "array", "minItems": 1, "items": items, "description": description}


def model_schema() -> dict[str, Any]:
    """Who made the predictions (copied into score reports)."""
    return {
        "type": "object", "additionalProperties": False,
        "required": ["name", "version", "language"],
        "properties": {
            "name": {"type": "string", "pattern": MODEL_NAME,
                     "description": "Model name: 1-64 ASCII letters, digits, '.', '_', '-', "
                     "starting with a letter or digit; it names the model's leaderboard "
                     "folder. 'oracle' (any case) is reserved for the reference model that "
                     "reads the truth."},
            "version": {"type": "string", "pattern": MODEL_VERSION,
                        "description": "Model version: 1-64 ASCII letters, digits, '.', '_', "
                        "'-', '+', starting with a letter or digit."},
            "language": {"type": "string", "pattern": LANGUAGE,
                         "description": "Language the model was written in (e.g. Python, R, "
                         "C++): 1-32 ASCII letters, digits, spaces and '.+#_-', starting with "
                         "a letter or digit, ending with a letter, digit, '+' or '#'."},
            "url": {"type": "string", "pattern": URL,
                    "description": "http(s) URL, printable ASCII without spaces."},
            "description": {"type": "string", "maxLength": 2000},
            "oracle": {"type": "boolean",
                       "description": "True for a reference model that reads the truth "
                       "(a ceiling, never a leaderboard competitor)."},
        },
        "if": {"properties": {"name": {"type": "string", "pattern": ORACLE_NAME}},
               "required": ["name"]},
        "then": {"properties": {"oracle": {"const": True}}, "required": ["oracle"]},
    }


def submission_schema() -> dict[str, Any]:
    """The schema every submission file must satisfy."""
    return {
        "$schema": DRAFT7,
        "$id": f"urn:icg-bench:schema:submission:{SUBMISSION_VERSION}",
        "title": "ICg-Bench submission",
        "description": (
            "Predictions of one model for one cohort (variant, seed) of the frozen release. "
            "Blocks are columnar: parallel arrays keyed by subject_id. At least one block is "
            "required. The data are synthetic; see docs/submission.md."
        ),
        "type": "object",
        "required": ["schema_version", "data_version", "tier", "variant", "variant_hash",
                     "seed", "model"],
        "additionalProperties": False,
        "anyOf": [{"properties": {block: {}}, "required": [block]} for block in BLOCKS],
        "properties": {
            "schema_version": {"const": SUBMISSION_VERSION,
                               "description": "Version of this schema."},
            "data_version": {"type": "string", "pattern": RELEASE_VERSION,
                             "description": "Version of the data release the model was fitted "
                             "on (datapackage.json `version`)."},
            "tier": {"enum": GRADED_TIERS, "description": "Release tier of the cohort; "
                     f"'{UNFROZEN_NAME}' for a cohort simulated on the fly, outside the frozen "
                     "release (scored locally, never accepted by the leaderboard)."},
            "variant": {"enum": variant_names(), "description": "DGP variant of the cohort."},
            "variant_hash": {"type": "string", "pattern": HASH12,
                             "description": "The variant's 12-hex-digit hash."},
            "seed": {"type": "integer", "minimum": 0, "description": "Cohort seed."},
            "model": {"$ref": "#/definitions/model"},
            **{name: dict(task.block_schema) for name, task in TASKS.items()},
        },
        "definitions": {
            "subject_ids": _array({"type": "string", "pattern": ID_PATTERN},
                                  "Subject identifiers, each exactly once."),
            "probabilities": _array({"type": "number", "minimum": 0, "maximum": 1},
                                    "Probabilities in [0, 1], parallel to subject_id."),
            "numbers": _array({"type": "number"}, "Finite numbers, parallel to subject_id."),
            "node": {"enum": [name for name, _ in graph_nodes()],
                     "description": "A public node: a KCC assay column, a state, or event."},
            "model": model_schema(),
        },
    }


_METRICS = {"type": "object", "additionalProperties": {"type": ["number", "null"]}}


def score_report_schema() -> dict[str, Any]:
    """The schema of what ``icgbench score`` writes."""
    task_section = {
        "type": "object",
        "required": ["metrics"],
        "properties": {
            "metrics": _METRICS,
            "details": {"type": "object"},
            "normalized": {
                "type": "object",
                "description": "The task's category score on this cohort: the mean of its "
                "parts, each min((score - floor) / (ceiling - floor), 1), negative below "
                "the floor; null parts (and note) when the result cannot be normalized.",
                "required": ["category", "score", "parts"],
                "properties": {
                    "category": {"enum": list(CATEGORIES)},
                    "score": {"type": ["number", "null"], "maximum": 1},
                    "note": {"type": "string", "description": "Why the parts are not "
                             "normalized (e.g. a graph graded at its own best K)."},
                    "parts": {"type": "object", "additionalProperties": {
                        "type": "object",
                        "required": ["score", "floor", "floor_answer", "ceiling",
                                     "normalized"],
                        "properties": {
                            **{k: {"type": ["number", "null"]} for k in
                               ("score", "floor", "ceiling", "normalized")},
                            "floor_answer": {
                                "type": ["string", "null"],
                                "description": "The model-free answer whose score is the "
                                "floor (the row model_free_scores marks), or chance."}}}},
                },
            },
        },
    }
    return {
        "$schema": DRAFT7,
        "$id": f"urn:icg-bench:schema:score-report:{REPORT_VERSION}",
        "title": "ICg-Bench score report",
        "description": "Every metric of one scored submission, with provenance and timings.",
        "type": "object",
        "additionalProperties": False,
        "required": ["schema_version", "scorer_version", "data_version", "tier", "frozen",
                     "variant", "variant_hash", "seed", "release_fingerprint", "submission",
                     "model", "tasks", "summary", "metric_info", "timings"],
        "properties": {
            "schema_version": {"const": REPORT_VERSION},
            "scorer_version": {"type": "string", "minLength": 1},
            "data_version": {"type": "string", "pattern": RELEASE_VERSION},
            "tier": {"enum": GRADED_TIERS},
            "frozen": {"type": "boolean",
                       "description": "True when graded against the frozen release; false "
                       "for a cohort simulated on the fly, whose scores cannot go on the "
                       "leaderboard (see notice)."},
            "notice": {"type": "string", "description": "Present when frozen is false: says "
                       "so in words."},
            "variant": {"enum": variant_names()},
            "variant_hash": {"type": "string", "pattern": HASH12},
            "seed": {"type": "integer", "minimum": 0},
            "release_fingerprint": {"type": "string", "pattern": SHA256,
                                    "description": "SHA-256 over every resource name and "
                                    "content digest of the release tier."},
            "submission": {
                "type": "object", "additionalProperties": False,
                "required": ["sha256", "bytes"],
                "properties": {"sha256": {"type": "string", "pattern": SHA256},
                               "bytes": {"type": "integer", "minimum": 0},
                               "path": {"type": "string"}},
            },
            "model": model_schema(),
            "tasks": {"type": "object", "additionalProperties": task_section,
                      "minProperties": 1},
            "summary": {
                "type": "object",
                "required": ["auroc", "r2_mean", "conformity", "auroc_target", "transfer_gap",
                             "composite", "composite_note", "prior_conformity_tolerant",
                             "normalized", "overall", "overall_note"],
                "properties": {
                    **{k: {"type": ["number", "null"]} for k in
                       ("auroc", "r2_mean", "conformity", "auroc_target", "transfer_gap",
                        "composite", "prior_conformity_tolerant")},
                    "composite_note": {"type": "string"},
                    "normalized": {
                        "type": "object", "additionalProperties": False,
                        "required": list(CATEGORIES),
                        "description": "Each category's normalized score (null: not "
                        "attempted).",
                        "properties": {c: {"type": ["number", "null"], "maximum": 1}
                                       for c in CATEGORIES},
                    },
                    "overall": {"type": ["number", "null"], "maximum": 1,
                                "description": "Mean of the normalized category scores, a "
                                "category not attempted counting 0 (on the sealed track's "
                                "public half, over the categories shown); null when an "
                                "attempted category cannot be normalized (its task's note "
                                "says why)."},
                    "overall_note": {"type": "string"},
                },
            },
            "withheld": {
                "type": "object", "additionalProperties": False,
                "required": ["note", "metrics"],
                "description": "The sealed track's public half only: what it withholds until "
                "the generation is retired (metrics of a truth the whole cohort shares, as "
                "task.metric; task.* for a task not graded there). See docs/leaderboard.md.",
                "properties": {"note": {"type": "string"},
                               "metrics": {"type": "array", "items": {"type": "string"}}},
            },
            "metric_info": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "required": ["higher_is_better", "random_baseline"],
                        "properties": {
                            "higher_is_better": {"type": ["boolean", "null"]},
                            "random_baseline": {"type": ["number", "null"]},
                            "best": {"type": ["number", "null"]},
                        },
                    },
                },
            },
            "timings": {"type": "object", "additionalProperties": {"type": "number",
                                                                   "minimum": 0}},
        },
    }


def submission_path_pattern() -> str:
    """The one path a board may store an entry's submission at (see canonical_path)."""
    variants = "|".join(variant_names())
    return (f"^submissions/[A-Za-z0-9][{NAME_CHARS}]{{0,63}}/[A-Za-z0-9][{VERSION_CHARS}]"
            f"{{0,63}}/({variants})__seed(0|[1-9][0-9]*)\\.json\\.gz{END}")


def _whole(pattern: str) -> str:
    """``pattern`` anchored at the very end (``$`` lets a final newline through in Python)."""
    return pattern.removesuffix("$") + END


def leaderboard_entry_schema() -> dict[str, Any]:
    """One leaderboard row (the seed's fields plus provenance of the scored submission)."""
    return {
        "$schema": DRAFT7,
        "$id": f"urn:icg-bench:schema:leaderboard-entry:{LEADERBOARD_VERSION}",
        "title": "ICg-Bench leaderboard entry",
        "description": "One (variant, seed, model, package version) row of the leaderboard, "
        "backed by the submission file it was scored from.",
        "type": "object",
        "additionalProperties": False,
        "required": ["schema_version", "submitted_at", "tier", "variant_name", "variant_hash",
                     "model_name", "package_version", "scores", "notes", "seed",
                     "data_version", "release_fingerprint", "submission_path",
                     "submission_sha256"],
        "properties": {
            "schema_version": {"const": LEADERBOARD_VERSION},
            "tier": {"enum": TIERS, "description": "Release tier the entry was graded on; a "
                     "board holds one tier (the public board: full)."},
            "submitted_at": {"type": "string",
                             "pattern": TIMESTAMP,
                             "description": "UTC ISO-8601 timestamp in ASCII digits; a real "
                             "time, not before the release the entry was graded on and not "
                             "after it was checked."},
            "variant_name": {"enum": variant_names()},
            "variant_hash": {"type": "string", "pattern": _whole(HASH12)},
            "model_name": {"type": "string", "pattern": MODEL_NAME,
                           "not": {"type": "string", "pattern": ORACLE_NAME},
                           "description": "The submission's model.name; never 'oracle'."},
            "package_version": {"type": "string", "pattern": MODEL_VERSION,
                                "description": "The submission's model.version."},
            "scores": {
                "type": "object",
                "description": "Per-task summary scores: task -> metric -> value.",
                "additionalProperties": _METRICS,
            },
            "notes": {"type": "string", "maxLength": 2000,
                      "description": "Free text, kept as given (the CSV rendering defuses "
                      "spreadsheet formulas)."},
            "seed": {"type": "integer", "minimum": 0},
            "data_version": {"type": "string", "pattern": RELEASE_VERSION},
            "release_fingerprint": {"type": "string", "pattern": _whole(SHA256)},
            "submission_path": {"type": "string", "pattern": submission_path_pattern(),
                                "description": "Where the submission is stored in the board "
                                "folder: submissions/<model>/<version>/<variant>__seed<k>"
                                ".json.gz, nothing else."},
            "submission_sha256": {"type": "string", "pattern": _whole(SHA256)},
        },
    }


def schema_documents() -> dict[str, dict[str, Any]]:
    """File stem -> document, for every JSON Schema of the scoring spec."""
    return {
        "submission": submission_schema(),
        "score-report": score_report_schema(),
        "leaderboard-entry": leaderboard_entry_schema(),
    }


def write_all(top_level: Path) -> list[Path]:
    """Write ``schemas/<name>.schema.json`` for every scoring-spec schema."""
    written = []
    for name, doc in schema_documents().items():
        path = top_level / f"{name}.schema.json"
        write_text(path, dumps(doc))
        written.append(path)
    return written


def pattern_words() -> dict[str, str]:
    """Each published pattern in words: what a message says instead of the regular
    expression (the scorer, the page and R read this table; a test checks that every
    pattern of every published schema is in it)."""
    hash12, sha256 = "a hash of 12 lowercase hexadecimal digits", (
        "a hash written sha256: and 64 lowercase hexadecimal digits")
    return {
        MODEL_NAME: ("a name of 1 to 64 ASCII letters, digits, '.', '_' or '-', starting "
                     "with a letter or digit"),
        MODEL_VERSION: ("a version of 1 to 64 ASCII letters, digits, '.', '+', '_' or '-', "
                        "starting with a letter or digit"),
        LANGUAGE: ("a language name of 1 to 32 ASCII letters, digits, spaces, '.', '+', "
                   "'#', '_' or '-', starting with a letter or digit and ending with a letter, "
                   "digit, '+' or '#'"),
        URL: ("an http:// or https:// address of printable ASCII without spaces (at most "
              "498 characters)"),
        RELEASE_VERSION: ("a release version such as 6.0.0 (three whole numbers without "
                          "leading zeros; a sealed release adds +sealed.N)"),
        HASH12: hash12,
        _whole(HASH12): hash12,
        SHA256: sha256,
        _whole(SHA256): sha256,
        TIMESTAMP: "a UTC time such as 2026-01-31T12:00:00Z",
        submission_path_pattern(): (
            "the path submissions/<model>/<version>/<variant>__seed<k>.json.gz"),
        ID_PATTERN: "a subject id: TR, TE or TG, then 6 to 9 digits",
        ORACLE_NAME: "the name oracle, in any case",
    }
