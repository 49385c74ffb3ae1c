"""The sealed tier: cohorts generated from a secret key, published without their truth.

The release ships its truth so that anyone can score locally, which also means that a
submission copied from the truth cannot be told apart from an honest one. The sealed tier
closes that gap without a private server, because cohorts are generated
deterministically:

- its cohorts (one per variant) are simulated with a :class:`SecretSeed` made from a
  256-bit key that only the leaderboard's CI holds (a repository secret, in the
  ``ICGBENCH_SEALED_KEY`` environment variable, 64 hex digits);
- the release publishes their public tables only (subjects, observations, masks, the train
  split's outcomes and states, the interventions, the prior, the nodes), with a descriptor
  that holds no seed and no key: only the key's id (an HMAC of the key, so the right key
  can be recognised) and a commitment to the truth: the content digest of every truth
  table of every cohort;
- whoever holds the key regenerates the cohort in memory, checks that it reproduces every
  published public table and every committed truth digest, and grades against that truth.

A new key is a new sealed release (``SEALED_GENERATION``); entries keep the version they
were graded on. When a key is retired it is published (:mod:`.generations`), and anyone can
then check that the truth used for grading was the one committed to when the data were
published.

Each cohort's held-out subjects are split, from the key, into two halves (:func:`halves`):
the board shows scores on the public half at admission; scores on the private half are
published only when the key is retired. Whatever a stream of admissions reveals about the
public half, nothing computed from the private half is shown before then.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from icgbench import contract
from icgbench.errors import InvalidInputError, UsageError
from icgbench.generator import get_variant, simulate
from icgbench.generator.streams import SecretSeed
from icgbench.io.atomic import ensure_writable_dir, replaced_dir, write_text
from icgbench.io.progress import track
from icgbench.release import encode, tiers
from icgbench.release.descriptions import write_tier_descriptions
from icgbench.release.descriptor import (
    SEALED_FIELD,
    Descriptor,
    build_document,
    load_descriptor,
)
from icgbench.release.freeze import path_prefix, tier_cohorts, write_tables
from icgbench.release.keys import (
    KEY_BYTES,
    KEY_ENV,
    key_from_env,
    key_id,
    new_key,
    parse_key,
)
from icgbench.release.tiers import Tier
from icgbench.tasks.base import Truth

log = logging.getLogger(__name__)

__all__ = ["KEY_BYTES", "KEY_ENV", "key_from_env", "key_id", "new_key", "parse_key"]

#: The splits of held-out subjects that are halved, and the two halves.
HALVED_SPLITS = ("test", "target_test")
PUBLIC_HALF, PRIVATE_HALF = "public", "private"


def halves(key: bytes, variant: str, label: int, split: str, ids: Sequence[str]
           ) -> np.ndarray:
    """True for the subjects of ``split`` in the public half, False for the private half.

    The subjects are ordered by a keyed hash of (variant, label, split, subject id) and the
    first ``len(ids) // 2`` form the public half: reproducible by whoever holds the key,
    unpredictable without it, and the same for every submission to the cohort.
    """
    tag = f"icgbench half|{variant}|{label}|{split}|".encode()
    digests = [hmac.new(key, tag + str(i).encode(), hashlib.sha256).digest() for i in ids]
    order = sorted(range(len(digests)), key=digests.__getitem__)
    public = np.zeros(len(digests), dtype=bool)
    public[order[: len(digests) // 2]] = True
    return public


def half_masks(key: bytes, variant: str, label: int, ids: dict[str, Any], half: str
               ) -> dict[str, np.ndarray]:
    """Per halved split, True for the subjects of ``half`` (``public`` or ``private``)."""
    if half not in (PUBLIC_HALF, PRIVATE_HALF):
        raise UsageError(f"a half is {PUBLIC_HALF} or {PRIVATE_HALF}, not {half!r}")
    masks = {s: halves(key, variant, label, s, ids[s].to_pylist() if hasattr(
        ids[s], "to_pylist") else list(ids[s])) for s in HALVED_SPLITS if s in ids}
    return masks if half == PUBLIC_HALF else {s: ~m for s, m in masks.items()}


def _tables(variant: str, label: int, key: bytes, sizes: dict[str, int],
            months: int | None) -> dict[str, pa.Table]:
    """Every table of a sealed cohort, conformed to its Table Schema (in memory)."""
    from icgbench.model_free.floors import single_cohort_table

    seed = SecretSeed(key, label)
    cohort = simulate(variant, seed, sizes=dict(sizes), months=months)
    v = get_variant(variant)
    calibration = (get_variant(tiers.SEALED.calibration[0]), tiers.SEALED.calibration[1])
    tables = {**cohort.tables, "model_free_scores": single_cohort_table(
        v, seed, cohort.tables, calibration)}
    return {name: encode.conform(table, contract.table_schema(name), name)
            for name, table in tables.items()}


def _public(name: str) -> bool:
    return contract.table_schema(name)["icgbench:role"] == "public"


def _commitment(tables: dict[str, pa.Table]) -> dict[str, str]:
    return {name: encode.content_digest(t, contract.table_schema(name))
            for name, t in tables.items() if not _public(name)}


def freeze_sealed(root: Path, key: bytes, tier: Tier | None = None) -> Path:
    """Write the sealed tier's public tables and descriptor under ``root``, and record its
    generation (:mod:`.generations`).

    Refuses to give the current sealed version a different key: a new key needs a new
    ``SEALED_GENERATION``; and refuses a new generation while the last is not retired.
    """
    tier = tiers.SEALED if tier is None else tier
    import datetime as dt

    from icgbench.release import generations

    descriptor_path = root / tier.descriptor_path
    generations.require_sealable(root, tier.version)
    if descriptor_path.exists():
        old = load_descriptor(descriptor_path)
        sealed = old.document.get(SEALED_FIELD, {})
        if old.version == tier.version and sealed.get("key_id") != key_id(key):
            raise UsageError(
                f"{descriptor_path} was sealed with another key (key id {sealed.get('key_id')})"
                f" at version {old.version}: a new key is a new sealed release; bump "
                "SEALED_GENERATION in src/icgbench/release/tiers.py and record it in "
                "CHANGELOG.md")
    ensure_writable_dir(root)
    data_dir = root / tier.data_dir
    ensure_writable_dir(data_dir.parent)
    resources: list[dict[str, Any]] = []
    commitments: dict[str, dict[str, str]] = {}
    with replaced_dir(data_dir, f"freeze-{tier.name}") as stage:
        for cohort in track(tier_cohorts(tier), None, "sealing cohorts"):
            log.info("sealing %s (label %d)", cohort.variant, cohort.seed)
            tables = _tables(cohort.variant, cohort.seed, key, tier.sizes, tier.months)
            public = {n: t for n, t in tables.items() if _public(n)}
            resources += write_tables(public, cohort, stage, path_prefix(tier))
            commitments[f"{cohort.variant}.s{cohort.seed}"] = _commitment(tables)
        document = build_document(tier, _cohorts(tier), resources, {SEALED_FIELD: {
            "generation": tiers.SEALED_GENERATION,
            "key_id": key_id(key),
            "key_env": KEY_ENV,
            "truth_commitment": commitments,
        }})
    write_text(descriptor_path, contract.dumps_package(document))
    write_tier_descriptions(descriptor_path)
    generations.record_sealed(root, load_descriptor(descriptor_path), dt.datetime.now(dt.UTC)
                              .date())
    return descriptor_path


def _cohorts(tier: Tier) -> list[dict[str, Any]]:
    return [{"variant": c.variant, "variant_hash": get_variant(c.variant).variant_hash,
             "seed": c.seed, "sizes": dict(tier.sizes),
             **({} if tier.months is None else {"months": tier.months})}
            for c in tier_cohorts(tier)]


def regenerate(d: Descriptor, variant: str, label: int, key: bytes) -> dict[str, pa.Table]:
    """The cohort's tables regenerated from ``key``, after proving they are the published ones.

    Raises InvalidInputError when the key is not the release's, when a regenerated public
    table differs from the published one, or a truth table from its committed digest.
    """
    sealed = d.document[SEALED_FIELD]
    if key_id(key) != sealed["key_id"]:
        raise InvalidInputError(
            f"the key in {KEY_ENV} (key id {key_id(key)}) is not the key sealed release "
            f"{d.version} was made with (key id {sealed['key_id']}): the commitment cannot "
            "match, nothing was graded")
    (cohort,) = [c for c in d.cohorts() if (c["variant"], c["seed"]) == (variant, label)]
    tables = _tables(variant, label, key, cohort["sizes"], cohort.get("months"))
    published = {r.table: r.content_digest for r in d.resources
                 if (r.variant, r.seed, r.format) == (variant, label, "parquet")}
    problems = [f"public table {name} differs from the published one"
                for name, digest in published.items()
                if encode.content_digest(tables[name], contract.table_schema(name)) != digest]
    committed = sealed["truth_commitment"].get(f"{variant}.s{label}", {})
    mine = _commitment(tables)
    problems += [f"truth table {name}: {mine.get(name)} is not the committed {digest}"
                 for name, digest in committed.items() if mine.get(name) != digest]
    if set(committed) != set(mine):
        problems.append(f"the commitment names {sorted(committed)}, the truth "
                        f"{sorted(mine)}")
    if problems:
        raise InvalidInputError(f"the regenerated {variant} cohort does not match sealed "
                                f"release {d.version}: " + "; ".join(problems[:3]))
    return tables


def check_sealed(root: Path, key: bytes, tier: Tier | None = None) -> list[str]:
    """Every cohort of the sealed release at ``root`` regenerated from ``key`` and checked
    against its published tables and its truth commitment: one line per cohort that fails."""
    tier = tiers.SEALED if tier is None else tier
    d = load_descriptor(Path(root) / tier.descriptor_path)
    problems = []
    for c in track(d.cohorts(), None, "checking sealed cohorts"):
        try:
            regenerate(d, c["variant"], c["seed"], key)
        except InvalidInputError as exc:
            problems.append(f"{c['variant']} seed {c['seed']}: {exc}")
    return problems


def sealed_truth(d: Descriptor, variant: str, label: int, key: bytes) -> Truth:
    """The truth of a sealed cohort, regenerated from the key and checked (once per cohort
    and descriptor in a process: admitting or re-grading many files of one cohort
    regenerates it once)."""
    import json

    from icgbench.scorer.truth import truth_from_tables

    cache_key = (str(d.path), json.dumps(d.document, sort_keys=True), variant, label, key)
    if cache_key not in _TRUTHS:
        if len(_TRUTHS) >= TRUTHS_KEPT:
            _TRUTHS.pop(next(iter(_TRUTHS)))
        _TRUTHS[cache_key] = truth_from_tables(regenerate(d, variant, label, key))
    return _TRUTHS[cache_key]


#: Regenerated truths kept in a process (one per variant of a generation, and a spare).
TRUTHS_KEPT = 8
_TRUTHS: dict[tuple, Truth] = {}
