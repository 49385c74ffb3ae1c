"""A leaderboard entry: one scored submission, traceable to its file and its release."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, fields
from typing import Any

from icgbench import contract
from icgbench.errors import InvalidInputError

SCHEMA_VERSION = contract.json_schema("leaderboard-entry")["properties"]["schema_version"][
    "const"]
SUBMISSIONS = "submissions"


def canonical_path(model: str, version: str, variant: str, seed: int) -> str:
    """Where a board stores a model version's submission for a cohort (relative path)."""
    return f"{SUBMISSIONS}/{model}/{version}/{variant}__seed{seed}.json.gz"


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
        return asdict(self)

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
        from jsonschema import Draft7Validator

        from icgbench.scorer.schema_check import shorten

        if not isinstance(data, dict):
            raise InvalidInputError(f"a leaderboard entry must be a JSON object, not "
                                    f"{type(data).__name__}")
        errors = sorted(Draft7Validator(contract.json_schema("leaderboard-entry")).iter_errors(
            data), key=lambda e: list(e.absolute_path))
        if errors:
            where = "/".join(map(str, errors[0].absolute_path)) or "(entry)"
            raise InvalidInputError(f"leaderboard entry invalid at {where}: "
                                    f"{shorten(errors[0].message)}")
        return cls(**{f.name: data[f.name] for f in fields(cls)})


def headline_scores(report: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """The per-task summary scores an entry records (each task's declared headline), and
    the summary: the seed's composite, ``overall`` and each attempted category's
    normalized score."""
    from icgbench.tasks import TASKS

    scores = {name: {m: report["tasks"][name]["metrics"].get(m) for m in task.headline}
              for name, task in TASKS.items() if name in report["tasks"]}
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
