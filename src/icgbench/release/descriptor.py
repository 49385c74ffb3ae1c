"""The Data Package descriptor of a release tier, and reading it back.

One resource per (cohort, table, format). Each carries its Table Schema inline with the
foreign keys resolved to the same cohort's resources (Frictionless resolves foreign keys
by resource name), names the schema file it was made from (``icgbench:schema``), and
states its variant, variant hash, seed, splits, role, row count and content digest.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icgbench import contract
from icgbench.errors import InvalidInputError, UsageError
from icgbench.io import untrusted
from icgbench.release.tiers import COMPATIBLE_RELEASES, CREATED, PUBLICATION, Tier

PROFILE = "https://datapackage.org/profiles/2.0/datapackage.json"
PARQUET_MEDIATYPE = "application/vnd.apache.parquet"
FORMATS = ("parquet", "csv")
EXTENSIONS = {"parquet": ".parquet", "csv": ".csv.gz"}
# frictionless-py 5 reads Parquet through pandas, row by row, turning nullable integers into
# NaN and leaving `bytes` unread; as type "file" it checks a Parquet file's bytes and hash,
# and the rows are checked through the CSV twin (same content digest; see docs/data.md).
RESOURCE_TYPE = {"parquet": "file", "csv": "table"}
#: The descriptor field of a sealed tier (key id, truth commitment; see release.sealed).
SEALED_FIELD = "icgbench:sealed"
#: Where the sealed tier's key is read from (only the board's CI sets it).
SEALED_KEY_ENV = "ICGBENCH_SEALED_KEY"
SYNTHETIC_NOTICE = (
    "Synthetic by construction: every subject, exposure, state and outcome is simulated. "
    "Nothing in this package is a carcinogenicity classification or a prediction about "
    "real people."
)


def resource_name(variant: str, seed: int, table: str, fmt: str) -> str:
    """``<variant>.s<seed>.<table>.<format>`` (lowercase, as Frictionless requires)."""
    return f"{variant}.s{seed}.{table}.{fmt}"


def relative_path(variant: str, seed: int, table: str, fmt: str) -> str:
    """File path of a resource relative to the tier's data folder."""
    return f"{variant}/seed{seed}/{table}{EXTENSIONS[fmt]}"


def inline_fields(table: str) -> list[dict[str, Any]]:
    """The table's fields as a resource's inline schema states them: names, types and
    constraints; their descriptions are the Table Schema's (``icgbench:schema``, the data
    dictionary), not repeated in every one of a tier's thousands of resources."""
    return [{k: v for k, v in f.items() if k != "description"}
            for f in contract.table_schema(table)["fields"]]


def inline_schema(table: str, variant: str, seed: int, fmt: str) -> dict[str, Any]:
    """The table's schema with foreign keys pointing at this cohort's resources."""
    doc = copy.deepcopy(contract.table_schema(table))
    schema = {k: v for k, v in doc.items() if k in ("fields", "missingValues", "primaryKey")}
    schema["fields"] = inline_fields(table)
    for fk in doc.get("foreignKeys", []):
        fk = copy.deepcopy(fk)
        fk["reference"]["resource"] = resource_name(variant, seed, fk["reference"]["resource"],
                                                    fmt)
        schema.setdefault("foreignKeys", []).append(fk)
    return schema


def schema_matches(schema: dict[str, Any], table: str, variant: str, seed: int, fmt: str
                   ) -> bool:
    """True when ``schema`` is exactly :func:`inline_schema` (compared without copying)."""
    doc = contract.table_schema(table)
    if schema.get("fields") != _inline_fields(table):
        return False
    for key in ("missingValues", "primaryKey"):
        if schema.get(key) != doc.get(key):
            return False
    fks = doc.get("foreignKeys", [])
    mine = schema.get("foreignKeys", [])
    if len(fks) != len(mine) or set(schema) - {"fields", "missingValues", "primaryKey",
                                                "foreignKeys"}:
        return False
    for theirs, ours in zip(fks, mine, strict=True):
        expected = resource_name(variant, seed, theirs["reference"]["resource"], fmt)
        if (ours.get("fields") != theirs["fields"]
                or ours.get("reference", {}).get("fields") != theirs["reference"]["fields"]
                or ours.get("reference", {}).get("resource") != expected):
            return False
    return True


@functools.lru_cache(maxsize=64)
def _inline_fields(table: str) -> list[dict[str, Any]]:
    return inline_fields(table)


@dataclass(frozen=True)
class Resource:
    """A resource of a loaded descriptor, with the fields the tools need."""

    name: str
    path: str
    format: str
    table: str
    role: str
    variant: str
    variant_hash: str
    seed: int
    bytes: int
    hash: str
    content_digest: str
    csv_sha256: str | None
    rows: int

    @classmethod
    def from_descriptor(cls, r: dict[str, Any]) -> Resource:
        return cls(
            name=r["name"], path=r["path"], format=r["format"], table=r["icgbench:table"],
            role=r["icgbench:role"], variant=r["icgbench:variant"],
            variant_hash=r["icgbench:variant_hash"], seed=int(r["icgbench:seed"]),
            bytes=int(r["bytes"]), hash=r["hash"], content_digest=r["icgbench:content_digest"],
            csv_sha256=r.get("icgbench:csv_sha256"), rows=int(r["icgbench:rows"]),
        )


@dataclass(frozen=True)
class Descriptor:
    """A loaded tier descriptor: the raw document, its location and its resources.

    ``load_descriptor`` shares one instance among the callers that read an unchanged file:
    treat ``document`` as read-only.
    """

    path: Path
    document: dict[str, Any]

    @functools.cached_property
    def base(self) -> Path:
        """Folder that resource paths are relative to."""
        return self.path.parent

    @property
    def version(self) -> str:
        return self.document["version"]

    @property
    def tier(self) -> str:
        return self.document["icgbench:tier"]

    @property
    def frozen(self) -> bool:
        """False for a cohort simulated on the fly (never accepted by the board)."""
        return self.document.get("icgbench:frozen", True) is not False

    @property
    def sealed(self) -> bool:
        """True for the sealed tier: its truth is regenerated from a key, not published."""
        return SEALED_FIELD in self.document

    @property
    def mirrors(self) -> list[str]:
        """URLs of the tier's release archive, in the order to try them."""
        mirrors = self.document.get("icgbench:mirrors", [])
        if not isinstance(mirrors, list) or not all(isinstance(m, str) for m in mirrors):
            raise InvalidInputError(f"{self.path}: icgbench:mirrors must be a list of URLs")
        return mirrors

    @functools.cached_property
    def _resources(self) -> tuple[Resource, ...]:
        return tuple(map(Resource.from_descriptor, self.document["resources"]))

    @functools.cached_property
    def _by_name(self) -> dict[str, Resource]:
        """The first resource of each name (a duplicate is verify's to report)."""
        return {r.name: r for r in reversed(self._resources)}

    @property
    def resources(self) -> list[Resource]:
        return list(self._resources)

    def find(self, variant: str, seed: int, table: str, fmt: str = "parquet") -> Resource:
        name = resource_name(variant, seed, table, fmt)
        if name in self._by_name:
            return self._by_name[name]
        raise UsageError(f"the {self.tier} tier has no resource {name!r} "
                         f"(see `icgbench data list --tier {self.tier}`)")

    def cohorts(self) -> list[dict[str, Any]]:
        return list(self.document["icgbench:cohorts"])

    @property
    def compatible_versions(self) -> tuple[str, ...]:
        """Earlier releases whose submissions this one grades as its own (their cohorts'
        public tables are unchanged here: ``icgbench:compatible_releases``)."""
        found = self.document.get("icgbench:compatible_releases", {})
        return tuple(found) if isinstance(found, dict) else ()

    @property
    def calibration_cohort(self) -> tuple[str, int]:
        """(variant, seed) on which structure_recovery's K* is chosen."""
        c = self.document["icgbench:calibration_cohort"]
        return c["variant"], int(c["seed"])

    def fingerprint(self) -> str:
        """SHA-256 over every resource's name and content digest: names the exact data
        (computed once per loaded descriptor: every score report states it)."""
        cached = self.__dict__.get("_fingerprint")
        if cached is None:
            items = sorted((r.name, r.content_digest) for r in self.resources)
            text = "\n".join(f"{n} {d}" for n, d in items)
            cached = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
            object.__setattr__(self, "_fingerprint", cached)
        return cached


#: The largest descriptor read (the full tier's is about 26 MB); parsing it may use 8 times
#: as much memory (``untrusted.memory_budget``).
MAX_DESCRIPTOR_BYTES = 64 * 1024 * 1024
#: The longest string an object member of a descriptor may hold.
MAX_DESCRIPTOR_STRING = 1024 * 1024


def read_bytes(path: Path) -> bytes:
    """The bytes of a descriptor file: a regular file of at most MAX_DESCRIPTOR_BYTES
    (FileNotFoundError when missing, ``untrusted.InputProblem`` otherwise)."""
    return untrusted.read_regular(Path(path), MAX_DESCRIPTOR_BYTES)


def read_json(path: Path) -> Any:
    """The JSON document in ``path`` (OSError, or ValueError if it is not strict JSON).

    Parsed once per process for each distinct content: a small tier's descriptor is 800 kB,
    and one command reads it several times. Keyed by the bytes' SHA-256, never by a time
    stamp, so a file rewritten within one clock tick is still read afresh. The result is
    shared: treat it as read-only.
    """
    data = read_bytes(path)
    return _parse(hashlib.sha256(data).digest(), data)


@functools.lru_cache(maxsize=8)
def _parse(digest: bytes, data: bytes) -> Any:
    """The document, or an ``untrusted.InputProblem`` saying why not (a duplicate key with
    its line: a descriptor is a file people edit)."""
    try:
        return untrusted.read_json(data, MAX_DESCRIPTOR_BYTES,
                                   max_string=MAX_DESCRIPTOR_STRING, gzipped=False)
    except untrusted.DuplicateKey as problem:
        line = untrusted.duplicate_key_line(data.decode("utf-8"))
        raise untrusted.InputProblem(f"{problem} at line {line}" if line else str(problem)
                                     ) from None


#: A descriptor is read again unless, when it was last read, it had not changed for this long
#: (nanoseconds): a file older than the clock's granularity at the time of reading gets a new
#: modification time from any later rewrite, so an unchanged (inode, size, times) proves it
#: unchanged, and a full tier's descriptor (24 MB) is not read and hashed by every call.
SETTLED_NS = 2_000_000_000
_SETTLED: dict[Path, tuple[tuple[int, ...], Descriptor]] = {}


def _stat_key(path: Path) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def load_descriptor(path: Path) -> Descriptor:
    """Read a tier descriptor, with clear errors for a missing or malformed file.

    One :class:`Descriptor` per path and content is shared by the callers of a process
    (see :func:`read_json`), so its resources are indexed once; a descriptor that had
    settled when it was read is not read again while its file is unchanged
    (:data:`SETTLED_NS`).
    """
    path = Path(path)
    key = _stat_key(path)
    settled = _SETTLED.get(path)
    if key is not None and settled is not None and settled[0] == key:
        return settled[1]
    before = time.time_ns()
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        raise UsageError(f"no release descriptor at {path}") from None
    except untrusted.InputProblem as problem:
        error = UsageError if problem.kind == "type" else InvalidInputError
        raise error(f"cannot read release descriptor: {problem}") from None
    except OSError as exc:
        raise InvalidInputError(f"cannot read release descriptor {path}: {exc}") from None
    descriptor = _descriptor(path, hashlib.sha256(data).digest(), data)
    if key is not None and key == _stat_key(path) and key[3] < before - SETTLED_NS \
            and key[4] < before - SETTLED_NS:
        _SETTLED[path] = (key, descriptor)
    else:
        _SETTLED.pop(path, None)
    return descriptor


#: Fields every resource needs, with their JSON types.
RESOURCE_FIELDS: dict[str, type] = {
    "name": str, "path": str, "format": str, "icgbench:table": str, "icgbench:role": str,
    "icgbench:variant": str, "icgbench:variant_hash": str, "icgbench:seed": int,
    "bytes": int, "hash": str, "icgbench:content_digest": str, "icgbench:rows": int,
    "schema": dict,
}


def _resource_problem(index: int, r: Any) -> str | None:
    if not isinstance(r, dict):
        return f"resources[{index}] is not an object"
    for key, kind in RESOURCE_FIELDS.items():
        value = r.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"resources[{index}] lacks {key!r} or it is not a {kind.__name__}"
    if not isinstance(r.get("icgbench:csv_sha256"), str | None):
        return f"resources[{index}]: 'icgbench:csv_sha256' is not a string or null"
    return None


def _sealed_problem(sealed: Any) -> str | None:
    """What is wrong with a sealed tier's field (key id and truth commitment), if anything."""
    if not isinstance(sealed, dict) or not isinstance(sealed.get("key_id"), str):
        return f"{SEALED_FIELD!r} must be an object with a 'key_id' string"
    commitment = sealed.get("truth_commitment")
    if not isinstance(commitment, dict) or not all(
            isinstance(tables, dict) and all(isinstance(v, str) for v in tables.values())
            for tables in commitment.values()):
        return (f"{SEALED_FIELD!r}: 'truth_commitment' must map each cohort to its tables' "
                "digests")
    return None


@functools.lru_cache(maxsize=8)
def _descriptor(path: Path, digest: bytes, data: bytes) -> Descriptor:
    try:
        document = _parse(digest, data)
    except ValueError as exc:
        raise InvalidInputError(f"cannot read release descriptor {path}: {exc}") from None
    if not isinstance(document, dict):
        raise InvalidInputError(f"release descriptor {path} is not a JSON object")
    for key in ("version", "resources", "icgbench:tier", "icgbench:cohorts"):
        if key not in document:
            raise InvalidInputError(f"release descriptor {path} lacks {key!r}")
    if not isinstance(document["resources"], list) or not isinstance(
            document["icgbench:cohorts"], list):
        raise InvalidInputError(f"release descriptor {path}: 'resources' and "
                                "'icgbench:cohorts' must be lists")
    problems = itertools.chain(
        (_resource_problem(i, r) for i, r in enumerate(document["resources"])),
        (f"icgbench:cohorts[{i}] is not an object with a 'variant' string and a 'seed' "
         "integer" for i, c in enumerate(document["icgbench:cohorts"])
         if not (isinstance(c, dict) and isinstance(c.get("variant"), str)
                 and type(c.get("seed")) is int)))
    if SEALED_FIELD in document:
        problems = itertools.chain(problems, [_sealed_problem(document[SEALED_FIELD])])
    problem = next((p for p in problems if p), None)
    if problem:
        raise InvalidInputError(f"release descriptor {path}: {problem}")
    return Descriptor(path, document)


def public_digest(resources: list[dict[str, Any]], variants: Any) -> str:
    """SHA-256 over the name and content digest of every public table of the cohorts of
    ``variants``: what a model of a release holding those variants read."""
    wanted = set(variants)
    items = sorted(f"{r['name']} {r['icgbench:content_digest']}" for r in resources
                   if r.get("icgbench:role") == "public" and r.get("format") == "parquet"
                   and r.get("icgbench:variant") in wanted)
    return "sha256:" + hashlib.sha256("\n".join(items).encode()).hexdigest()


def _compatible(tier: Tier) -> dict[str, Any]:
    if not tier.frozen or tier.sealed:
        return {}
    found = {version: {"variants": list(record["variants"]),
                       "public_digest": record["digests"][tier.name]}
             for version, record in COMPATIBLE_RELEASES.items()
             if tier.name in record["digests"]}
    return {"icgbench:compatible_releases": found} if found else {}


def build_document(tier: Tier, cohorts: list[dict[str, Any]],
                   resources: list[dict[str, Any]], extra: dict[str, Any] | None = None
                   ) -> dict[str, Any]:
    """The descriptor document of one tier (deterministic: no clocks, sorted inputs)."""
    return {
        "$schema": PROFILE,
        "name": f"icg-bench-{tier.name}",
        # The DOI of the release's Zenodo record, once one is configured (PUBLICATION).
        **({"id": f"https://doi.org/{PUBLICATION.doi}"}
           if PUBLICATION.doi and tier.frozen and not tier.sealed else {}),
        "title": (f"ICg-Bench frozen release, {tier.name} tier" if tier.frozen else
                  "ICg-Bench cohort simulated on the fly (not the frozen release)"),
        "description": (
            "Synthetic cohorts of the ICg-Bench causal benchmark for mechanism-aware "
            "carcinogenicity models: per (variant, seed), public tables to fit a model on and "
            "ground-truth tables the scorer grades against. " + tier.description + " "
            + SYNTHETIC_NOTICE
        ),
        "version": tier.version,
        "created": CREATED,
        "licenses": [
            {
                "name": "CC-BY-4.0",
                "path": "https://creativecommons.org/licenses/by/4.0/",
                "title": "Creative Commons Attribution 4.0",
            }
        ],
        "contributors": [{"title": "ICg-Bench maintainers", "roles": ["creator"]}],
        "keywords": [
            "benchmark", "causal inference", "synthetic data", "toxicology",
            "key characteristics of carcinogens", "adverse outcome pathway", "multi-omics",
        ],
        "icgbench:tier": tier.name,
        "icgbench:synthetic": True,
        **({} if tier.frozen else {"icgbench:frozen": False}),
        "icgbench:cohorts": cohorts,
        "icgbench:calibration_cohort": {
            "variant": tier.calibration[0], "seed": tier.calibration[1],
            "purpose": "structure_recovery: each model's K* (the K maximising directed F1) "
            "is chosen on its submission for this cohort and applied unchanged to the others",
        },
        **({} if tier.committed or not tier.frozen else
           {"icgbench:mirrors": list(tier.mirrors)}),
        **_compatible(tier),
        **(extra or {}),
        "resources": resources,
    }
