"""``icgbench data publish``: a release tier as a Hub dataset repository and a Zenodo deposit.

One folder, written from the frozen release and nothing else (the tier is verified first,
and every file is copied only if its bytes are the descriptor's):

- ``huggingface/``: the tier as a Hugging Face dataset repository: the committed descriptor
  (``datapackage.json``), every file at its descriptor-relative path, ``croissant.json``, a
  ``README.md`` dataset card whose YAML header declares one config per table and one split
  per cohort (``datasets.load_dataset(folder, config, split=...)`` reads it), and the release
  archive, which ``icgbench data download`` fetches from the Hub (it verifies an archive
  member by member; it does not fetch files one by one).
- ``zenodo/``: the same archive, ``datapackage.json`` and ``croissant.json`` (what is
  uploaded), ``SHA256SUMS`` over them (``sha256sum -c SHA256SUMS`` checks them) and
  ``.zenodo.json``, the deposition metadata (Zenodo's legacy deposit fields).

Where it is published, and so the descriptor's mirrors and DOI, is
:data:`icgbench.release.tiers.PUBLICATION`. The folder is built in a staging folder beside
it and renamed into place; the same release gives the same bytes (the archive has fixed
times and owners). :func:`publication_problems` checks a folder against the descriptor
(``icgbench data verify --publication DIR``).

``python -m icgbench.release.publish`` rewrites the small and full tiers' descriptors from
``PUBLICATION`` (mirrors, DOI) with the function that writes every descriptor, keeping every
resource as committed, then their Croissant files, dataset cards and ``CITATION.cff``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icgbench.errors import InvalidInputError, UsageError
from icgbench.io import untrusted
from icgbench.io.atomic import replaced_dir
from icgbench.io.progress import track
from icgbench.release import archive, citation
from icgbench.release import descriptor as descriptors
from icgbench.release.croissant import croissant_text
from icgbench.release.dataset_card import dataset_card
from icgbench.release.descriptor import SYNTHETIC_NOTICE, Descriptor, Resource
from icgbench.release.tiers import PUBLICATION, Publication

HUB = "huggingface"
ZENODO = "zenodo"
SUMS = "SHA256SUMS"
ZENODO_METADATA = ".zenodo.json"
CARD = "README.md"
CROISSANT = "croissant.json"
DESCRIPTOR = archive.DESCRIPTOR_MEMBER
#: A folder holding this file was written by ``data publish`` (and may be replaced by it).
MARKER = f"{ZENODO}/{SUMS}"
CHUNK = 1 << 20
#: Zenodo's upload type of a release (its legacy deposit vocabulary).
ZENODO_UPLOAD_TYPE = "dataset"


def archive_name(descriptor: Descriptor, where: Publication = PUBLICATION) -> str:
    """The release archive's file name (the same on every mirror)."""
    return where.archive_name(descriptor.tier, descriptor.version)


def zenodo_metadata(descriptor: Descriptor, where: Publication = PUBLICATION) -> dict[str, Any]:
    """The deposition metadata (``.zenodo.json``, Zenodo's legacy deposit fields)."""
    doc = descriptor.document
    f = citation.fields(doc)
    hub = f"{where.hub_endpoint}/datasets/{where.hub_repository}"
    description = " ".join([citation.ABSTRACT, doc.get("description", "")]).strip()
    licences = [lic.lower() for lic in f["licenses"]]
    return {
        "upload_type": ZENODO_UPLOAD_TYPE,
        "title": f"{f['title']} (data release {f['version']}, {descriptor.tier} tier)",
        "creators": [{"name": name} for name in f["authors"]],
        "description": description,
        "version": f["version"],
        "publication_date": f["date"],
        "access_right": "open",
        **({"license": licences[0]} if licences else {}),
        "keywords": f["keywords"],
        "notes": SYNTHETIC_NOTICE,
        "related_identifiers": [
            {"identifier": f"{hub}/tree/{where.hub_revision(f['version'])}",
             "relation": "isVariantFormOf", "resource_type": "dataset"},
            {"identifier": where.hub_url(f["version"], CROISSANT),
             "relation": "hasMetadata"},
        ],
    }


def json_text(document: Any) -> str:
    """Indented JSON with a final newline (the same document gives the same bytes)."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def sums_text(digests: dict[str, str]) -> str:
    """``sha256sum``'s format: ``<hex>  <name>`` per file, sorted by name."""
    return "".join(f"{digests[name]}  {name}\n" for name in sorted(digests))


def file_sha256(path: Path) -> str:
    """The hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        while block := source.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _committed(descriptor: Descriptor) -> bytes:
    try:
        return descriptors.read_bytes(descriptor.path)
    except (OSError, untrusted.InputProblem) as exc:
        raise UsageError(f"cannot read release descriptor {descriptor.path}: {exc}") from None


def texts(descriptor: Descriptor, where: Publication = PUBLICATION) -> dict[str, bytes]:
    """The publication's files that are made, not copied (path in the folder -> bytes)."""
    committed = _committed(descriptor)
    croissant = croissant_text(descriptor).encode()
    return {
        f"{HUB}/{DESCRIPTOR}": committed,
        f"{HUB}/{CROISSANT}": croissant,
        f"{HUB}/{CARD}": dataset_card(descriptor, where.hub_repository).encode(),
        f"{ZENODO}/{DESCRIPTOR}": committed,
        f"{ZENODO}/{CROISSANT}": croissant,
        f"{ZENODO}/{ZENODO_METADATA}": json_text(zenodo_metadata(descriptor, where)).encode(),
    }


def uploaded(descriptor: Descriptor) -> list[str]:
    """The Zenodo files ``SHA256SUMS`` lists (what the workflow uploads besides it)."""
    return sorted([archive_name(descriptor), DESCRIPTOR, CROISSANT])


def _copy_exact(source: Path, target: Path, r: Resource) -> None:
    """Copy a release file, refusing it unless its bytes are the descriptor's."""
    digest, size = hashlib.sha256(), 0
    try:
        with open(source, "rb") as src, open(target, "wb") as out:
            while block := src.read(CHUNK):
                digest.update(block)
                size += len(block)
                out.write(block)
    except FileNotFoundError:
        raise UsageError(f"missing release file {source}") from None
    if size != r.bytes or "sha256:" + digest.hexdigest() != r.hash:
        raise InvalidInputError(f"release file {source} is not the descriptor's bytes "
                                f"({size} bytes, sha256:{digest.hexdigest()}; expected "
                                f"{r.bytes} bytes, {r.hash}); nothing was published")


def check_tier(descriptor: Descriptor) -> None:
    """Refuse a tier whose files do not match its descriptor byte for byte."""
    from icgbench.release.verify import verify

    verdict = verify(descriptor)
    if not verdict.ok:
        raise InvalidInputError(
            f"the {descriptor.tier} tier does not match its descriptor "
            f"({len(verdict.problems)} problem(s), first: {verdict.problems[0]}); nothing was "
            f"published (see `icgbench data verify --tier {descriptor.tier}`)")
    if verdict.content_verified:
        raise InvalidInputError(
            f"{len(verdict.content_verified)} file(s) of the {descriptor.tier} tier hold the "
            f"frozen content in other bytes (first: {verdict.content_verified[0]}), and a "
            "publication carries the descriptor's exact bytes: install the tier from its "
            "archive (icgbench data download) and publish again")


def publish(descriptor: Descriptor, outdir: Path, where: Publication = PUBLICATION) -> Path:
    """Write the publication of ``descriptor``'s tier into ``outdir`` (replaced as a whole).

    ``outdir`` may hold a previous publication (it has ``zenodo/SHA256SUMS``); any other
    non-empty folder is refused.
    """
    check_tier(descriptor)
    made = texts(descriptor, where)
    name = archive_name(descriptor, where)
    with replaced_dir(Path(outdir), "publish", marker=MARKER) as out:
        for relative in (HUB, ZENODO):
            (out / relative).mkdir()
        zenodo_archive = archive.pack(descriptor, out / ZENODO / name)
        for relative, data in made.items():
            (out / relative).write_bytes(data)
        hub = out / HUB
        for r in track(descriptor.resources, len(descriptor.resources),
                       f"copying the {descriptor.tier} tier"):
            (hub / r.path).parent.mkdir(parents=True, exist_ok=True)
            _copy_exact(descriptor.base / r.path, hub / r.path, r)
        shutil.copyfile(zenodo_archive, hub / name)
        digests = {n: file_sha256(out / ZENODO / n) for n in uploaded(descriptor)}
        (out / ZENODO / SUMS).write_text(sums_text(digests))
    return Path(outdir)


# --- checking a publication -----------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """How one file of a publication is checked: made bytes, a release file or the archive."""

    kind: str
    data: bytes | None = None
    resource: Resource | None = None


def expected_files(descriptor: Descriptor, where: Publication = PUBLICATION
                   ) -> dict[str, Check]:
    """Every file of the publication (its path in the folder) and how it is checked."""
    name = archive_name(descriptor, where)
    return {
        **{path: Check("bytes", data=data) for path, data in texts(descriptor, where).items()},
        **{f"{HUB}/{r.path}": Check("resource", resource=r) for r in descriptor.resources},
        f"{HUB}/{name}": Check("archive"),
        f"{ZENODO}/{name}": Check("archive"),
        f"{ZENODO}/{SUMS}": Check("sums"),
    }


def _present(folder: Path) -> dict[str, Path]:
    """Every entry below ``folder`` that is not a folder (path relative, POSIX)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_dir():
            found[path.relative_to(folder).as_posix()] = path
    return found


def _check_bytes(path: Path, check: Check, descriptor: Descriptor) -> str | None:
    expected = check.data or b""
    data = untrusted.read_regular(path, len(expected) + 1, follow_symlinks=False)
    return None if data == expected else "differs from what the descriptor gives"


def _check_resource(path: Path, check: Check, descriptor: Descriptor) -> str | None:
    r = check.resource
    assert r is not None
    untrusted.regular_file(path)
    size, digest = path.stat().st_size, "sha256:" + file_sha256(path)
    if size != r.bytes or digest != r.hash:
        return f"{size} bytes, {digest}; the descriptor says {r.bytes} bytes, {r.hash}"
    return None


def _check_archive(path: Path, check: Check, descriptor: Descriptor) -> str | None:
    untrusted.regular_file(path)
    with tempfile.TemporaryDirectory(prefix="icgbench-publication-") as stage:
        try:
            archive.unpack_verified(path, descriptor, Path(stage))
        except InvalidInputError as exc:
            return str(exc)
    return None


def _check_sums(path: Path, check: Check, descriptor: Descriptor) -> str | None:
    folder = path.parent
    digests = {}
    for name in uploaded(descriptor):
        try:
            digests[name] = file_sha256(untrusted.regular_file(folder / name))
        except (OSError, untrusted.InputProblem):
            return f"cannot check: {name} is missing or not a regular file"
    expected = sums_text(digests).encode()
    data = untrusted.read_regular(path, len(expected) + 1, follow_symlinks=False)
    return None if data == expected else f"does not list exactly {', '.join(sorted(digests))} " \
        "with their SHA-256"


CHECKS: dict[str, Callable[[Path, Check, Descriptor], str | None]] = {
    "bytes": _check_bytes, "resource": _check_resource, "archive": _check_archive,
    "sums": _check_sums,
}


def publication_problems(descriptor: Descriptor, folder: Path,
                         where: Publication = PUBLICATION) -> tuple[list[str], int]:
    """What is wrong with a publication folder (one line each), and how many files it
    should hold: a file missing, extra, or not the bytes the descriptor gives."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"no publication folder at {folder}")
    expected = expected_files(descriptor, where)
    present = _present(folder)
    problems = [f"{name}: missing" for name in expected if name not in present]
    problems += [f"{untrusted.printable(name)}: not part of the {descriptor.tier} tier's "
                 "publication" for name in present if name not in expected]
    for name, check in track([(n, c) for n, c in expected.items() if n in present],
                             len(expected), "checking the publication"):
        if present[name].is_symlink():
            problems.append(f"{name}: a symbolic link, not the file itself")
            continue
        try:
            problem = CHECKS[check.kind](present[name], check, descriptor)
        except untrusted.InputProblem as exc:
            problem = str(exc)
        except OSError as exc:
            problem = f"cannot read: {exc.strerror or exc}"
        if problem:
            problems.append(f"{name}: {problem}")
    return problems, len(expected)


def folder_size(folder: Path) -> int:
    """Bytes of every regular file below ``folder``."""
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file()
               and not p.is_symlink())


# --- the descriptors' publication fields ------------------------------------------------------


def refresh_descriptors(root: Path) -> list[Path]:
    """Rewrite the open tiers' descriptors from :data:`PUBLICATION` (mirrors and DOI), with
    every resource and cohort as committed, then their descriptions and ``CITATION.cff``.
    Returns the files written."""
    from icgbench import contract
    from icgbench.io.atomic import write_text
    from icgbench.release.descriptions import write_tier_descriptions
    from icgbench.release.descriptor import build_document, load_descriptor
    from icgbench.release.tiers import TIERS

    written = []
    for tier in TIERS.values():
        path = root / tier.descriptor_path
        old = load_descriptor(path)
        document = build_document(tier, old.cohorts(), old.document["resources"])
        write_text(path, contract.dumps_package(document))
        if load_descriptor(path).fingerprint() != old.fingerprint():  # never: same resources
            raise AssertionError(f"{path}: rewriting changed the release's fingerprint")
        written += [path, *write_tier_descriptions(path)]
    written.append(citation.write_cff(root))
    return written


if __name__ == "__main__":
    for written_path in refresh_descriptors(Path(os.getcwd())):
        print(f"wrote {written_path}")
