"""A leaderboard entry: one scored submission, traceable to its file and its release."""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from dataclasses import dataclass, fields
from typing import Any

from icgbench import contract
from icgbench.errors import InvalidInputError

SCHEMA_VERSION = contract.json_schema("leaderboard-entry")["properties"]["schema_version"][
    "const"]
SUBMISSIONS = "submissions"
#: ``submitted_at``: a UTC time in ASCII digits (``re.ASCII``: ``\d`` would also take
#: other scripts' digits), seconds at most to the microsecond, a final Z and nothing after.
TIMESTAMP = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})"
                       r"(?:\.([0-9]{1,6}))?Z", re.ASCII)
#: The keys beside a task's headline metrics that record a normalized metric's floor and
#: ceiling on the entry's cohort.
FLOOR_SUFFIX = "__floor"
CEILING_SUFFIX = "__ceiling"
#: How far a recorded time may be ahead of the clock of the check (clocks differ).
CLOCK_SKEW = dt.timedelta(days=1)


#: The fields a regrade on a new minor data release rewrites (:mod:`.regrade`); every
#: other field of an entry is kept.
GRADED = ("scores", "data_version", "release_fingerprint")


def canonical_path(model: str, version: str, variant: str, seed: int) -> str:
    """Where a board stores a model version's submission for a cohort (relative path)."""
    return f"{SUBMISSIONS}/{model}/{version}/{variant}__seed{seed}.json.gz"


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    """The entry schema's validator, built once (a board checks every row against it)."""
    from jsonschema import Draft7Validator

    return Draft7Validator(contract.json_schema("leaderboard-entry"))


def _schema_problem(data: Any) -> str | None:
    """What the entry schema says of ``data`` (None when it is valid)."""
    from icgbench.scorer.schema_check import shorten

    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    where = "/".join(map(str, errors[0].absolute_path)) or "(entry)"
    return f"leaderboard entry invalid at {where}: {shorten(errors[0].message)}"


@functools.lru_cache(maxsize=16384)
def _schema_problem_of_text(text: str) -> str | None:
    """:func:`_schema_problem` of the entry whose JSON text is ``text``, once per text: a
    process that reads one board several times (``add`` then ``render``, ``verify`` of a
    branch against its base) checks each distinct row once, and a row that differs in any
    value, type or key order is checked afresh."""
    return _schema_problem(json.loads(text))


@dataclass(frozen=True)
class LeaderboardEntry:
    """The seed's fields plus seed, data version, release fingerprint and submission."""

    schema_version: str
    submitted_at: str
    tier: str
    variant_name: str
    variant_hash: str
    model_name: str
    package_version: str
    scores: dict[str, dict[str, float | None]]
    notes: str
    seed: int
    data_version: str
    release_fingerprint: str
    submission_path: str
    submission_sha256: str

    def as_dict(self) -> dict[str, Any]:
        """The entry as its JSON object, fields in schema order (a copy: not the entry's)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["scores"] = {task: dict(values) for task, values in self.scores.items()}
        return out

    @property
    def key(self) -> tuple[str, int, str, str]:
        """What must be unique on a board: (variant, seed, model, package version)."""
        return (self.variant_name, self.seed, self.model_name, self.package_version)

    @property
    def label(self) -> str:
        return (f"{self.model_name} {self.package_version} on {self.variant_name} seed "
                f"{self.seed}")

    @property
    def canonical_path(self) -> str:
        """The only path this entry's submission may be stored at."""
        return canonical_path(self.model_name, self.package_version, self.variant_name,
                              self.seed)

    @classmethod
    def from_dict(cls, data: Any) -> LeaderboardEntry:
        """An entry from a document of the current schema version (validated)."""
        if not isinstance(data, dict):
            raise InvalidInputError(f"a leaderboard entry must be a JSON object, not "
                                    f"{type(data).__name__}")
        try:
            text = json.dumps(data)
        except (TypeError, ValueError):  # not JSON (a Python caller's object): check as is
            problem = _schema_problem(data)
        else:
            problem = _schema_problem_of_text(text)
        if problem is not None:
            raise InvalidInputError(problem)
        if (problem := timestamp_problem(data["submitted_at"])) is not None:
            raise InvalidInputError(f"leaderboard entry invalid at submitted_at: {problem}")
        return cls.verified(data)

    @classmethod
    def verified(cls, data: Any) -> LeaderboardEntry:
        """An entry from a row that was validated before (a row of a board verified when it
        merged, unchanged since): the schema check is what costs, row by row. A row whose
        shape is not an entry's (a field missing, ``scores`` not an object of objects) is
        validated after all, so it fails with the schema's message, never a traceback."""
        if not _entry_shaped(data):
            return cls.from_dict(data)
        return cls(**{f.name: data[f.name] for f in fields(cls)})


def _entry_shaped(data: Any) -> bool:
    """A cheap check of what building an entry relies on: every field, of its type."""
    if not isinstance(data, dict) or any(f.name not in data for f in fields(LeaderboardEntry)):
        return False
    scores = data["scores"]
    return (isinstance(scores, dict) and all(isinstance(v, dict) for v in scores.values())
            and isinstance(data["seed"], int) and not isinstance(data["seed"], bool)
            and all(isinstance(data[f.name], str) for f in fields(LeaderboardEntry)
                    if f.name not in ("scores", "seed")))


def parse_utc(text: str) -> dt.datetime | None:
    """The UTC time ``text`` names (``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``), or None when it is
    not one (a wrong form, a date that does not exist, a trailing character)."""
    match = TIMESTAMP.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return None
    try:
        when = dt.datetime.strptime(match[1], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return None
    micro = int((match[2] or "0").ljust(6, "0"))
    return when.replace(microsecond=micro, tzinfo=dt.UTC)


def timestamp_problem(text: str, earliest: str | None = None,
                      now: dt.datetime | None = None) -> str | None:
    """Why ``text`` cannot be an entry's ``submitted_at``, or None: it must be a real UTC
    time, not before ``earliest`` (the release's date) and not after ``now`` (plus
    CLOCK_SKEW)."""
    when = parse_utc(text)
    if when is None:
        return (f"{text!r} is not a UTC time of the form YYYY-MM-DDTHH:MM:SSZ (ASCII digits, "
                "a real date and time, nothing after the Z)")
    start = parse_utc(earliest) if earliest is not None else None
    if start is not None and when < start:
        return f"{text} is before the release it was graded on ({earliest})"
    if now is not None and when > now + CLOCK_SKEW:
        return (f"{text} is in the future (the check ran at "
                f"{now.replace(microsecond=0).isoformat().replace('+00:00', 'Z')})")
    return None


def headline_scores(report: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """The per-task summary scores an entry records: each task's declared headline, each
    normalized metric's floor and ceiling on the cohort (``<metric>__floor``,
    ``<metric>__ceiling``: what the board normalizes a mean over cohorts with), and the
    summary: the seed's composite, ``overall`` and each attempted category's normalized
    score on the cohort. What a sealed public half withholds is not recorded."""
    from icgbench.tasks import TASKS

    withheld = set(report.get("withheld", {}).get("metrics", ()))  # sealed public half
    scores = {}
    for name, task in TASKS.items():
        if name not in report["tasks"] or f"{name}.*" in withheld:
            continue
        section = report["tasks"][name]
        values = {m: section["metrics"].get(m) for m in task.headline
                  if f"{name}.{m}" not in withheld}
        for metric, part in section.get("normalized", {}).get("parts", {}).items():
            values[f"{metric}{FLOOR_SUFFIX}"] = part["floor"]
            values[f"{metric}{CEILING_SUFFIX}"] = part["ceiling"]
        scores[name] = values
    summary = report["summary"]
    scores["summary"] = {"composite": summary["composite"], "overall": summary["overall"],
                         **{f"normalized_{c}": v for c, v in summary["normalized"].items()
                            if v is not None}}
    return scores


def now_utc() -> str:
    """Current time as a UTC ISO-8601 string with a Z."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def entry_from_report(report: dict[str, Any], notes: str = "",
                      submitted_at: str | None = None) -> LeaderboardEntry:
    """The entry recording a score report (its submission stored at the canonical path)."""
    model = report["model"]
    return LeaderboardEntry.from_dict({
        "schema_version": SCHEMA_VERSION,
        "submitted_at": submitted_at or now_utc(),
        "tier": report["tier"],
        "variant_name": report["variant"],
        "variant_hash": report["variant_hash"],
        "model_name": report["model"]["name"],
        "package_version": report["model"]["version"],
        "scores": headline_scores(report),
        "notes": notes,
        "seed": report["seed"],
        "data_version": report["data_version"],
        "release_fingerprint": report["release_fingerprint"],
        "submission_path": canonical_path(model["name"], model["version"], report["variant"],
                                          report["seed"]),
        "submission_sha256": report["submission"]["sha256"],
    })
