"""A leaderboard entry: one scored submission, traceable to its file and its release."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, fields
from typing import Any

from jsonschema import Draft7Validator

from icgbench import contract
from icgbench.errors import InvalidInputError
from icgbench.tasks import TASKS

SCHEMA_VERSION = "0.1"


@dataclass(frozen=True)
class LeaderboardEntry:
    """The seed's fields plus seed, data version, release fingerprint and submission."""

    schema_version: str
    submitted_at: str
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

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LeaderboardEntry:
        """An entry from a document of the current schema version (validated)."""
        errors = sorted(Draft7Validator(contract.json_schema("leaderboard-entry")).iter_errors(
            data), key=lambda e: list(e.absolute_path))
        if errors:
            where = "/".join(map(str, errors[0].absolute_path)) or "(entry)"
            raise InvalidInputError(f"leaderboard entry invalid at {where}: "
                                    f"{errors[0].message}")
        return cls(**{f.name: data[f.name] for f in fields(cls)})


def headline_scores(report: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """The per-task summary scores an entry records (each task's declared headline)."""
    scores = {name: {m: report["tasks"][name]["metrics"].get(m) for m in task.headline}
              for name, task in TASKS.items() if name in report["tasks"]}
    scores["summary"] = {"composite": report["summary"]["composite"]}
    return scores


def now_utc() -> str:
    """Current time as a UTC ISO-8601 string with a Z."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def entry_from_report(report: dict[str, Any], submission_path: str, notes: str = "",
                      submitted_at: str | None = None) -> LeaderboardEntry:
    """The entry recording a score report of a submission stored at ``submission_path``."""
    return LeaderboardEntry.from_dict({
        "schema_version": SCHEMA_VERSION,
        "submitted_at": submitted_at or now_utc(),
        "variant_name": report["variant"],
        "variant_hash": report["variant_hash"],
        "model_name": report["model"]["name"],
        "package_version": report["model"]["version"],
        "scores": headline_scores(report),
        "notes": notes,
        "seed": report["seed"],
        "data_version": report["data_version"],
        "release_fingerprint": report["release_fingerprint"],
        "submission_path": submission_path,
        "submission_sha256": report["submission"]["sha256"],
    })
