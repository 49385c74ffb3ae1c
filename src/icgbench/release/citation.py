"""How to cite a release: ``CITATION.cff``, ``icgbench data cite`` and Croissant's ``citeAs``.

One source. The fields a citation needs are either the tier descriptor's (version, date,
licenses, creators, keywords and, once the publication workflow records it, its DOI in the
Data Package ``id`` field) or the few constants below, which the descriptor has no place for
(the work's title, abstract and repository). ``CITATION.cff`` at the repository root is
generated from the small tier's descriptor and these constants
(``python -m icgbench.release.citation``, run from the repository root) and a test checks it
equals what they give; ``icgbench data cite`` prints the same text (``--format cff``) or a
BibTeX entry made from the same fields.

An installed wheel holds no descriptor: where none is located, the fields come from
:func:`icgbench.release.descriptor.build_document`, the function that writes every
descriptor, so they are the same values without the repository.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

CFF_VERSION = "1.2.0"
#: The title of the work (a BibTeX entry adds the tier's descriptor title).
TITLE = "ICg-Bench: a synthetic causal benchmark for mechanism-aware carcinogenicity models"
ABSTRACT = (
    "ICg-Bench is a frozen, verifiable benchmark for mechanism-aware carcinogenicity models. "
    "Every record is simulated by a documented data-generating process: per cohort (variant, "
    "seed), public tables a model is fitted on and ground-truth tables the scorer grades "
    "against (risk prediction, latent-state recovery, intervention conformity, cross-host "
    "generalization, structure recovery). The data describe no real chemical and no real "
    "person; nothing in them is a carcinogenicity classification."
)
MESSAGE = ("If you use this benchmark, please cite the data release you used, as below "
           "(`icgbench data cite` prints a BibTeX entry).")
#: The file at the repository root.
CFF_NAME = "CITATION.cff"
_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)


def doi(document: dict[str, Any]) -> str | None:
    """The DOI of a descriptor (its Data Package ``id``, bare or as a doi.org URL), if any."""
    value = document.get("id")
    match = _DOI.match(value.strip()) if isinstance(value, str) else None
    return match.group(1) if match else None


#: What stays as written in a cited address; anything else (braces, a backslash, a quote,
#: percent signs not part of an escape) is percent-encoded, so that neither BibTeX nor YAML
#: can read a field out of it.
_URL_SAFE = ":/?&=+-._~!$'()*,;@[]#"


def homepage(document: dict[str, Any]) -> str | None:
    """Where the release is published (the descriptor's Data Package ``homepage``), if it
    names an http(s) address: a citation states no address the release does not record.
    A character that could end a BibTeX field or start a LaTeX command is percent-encoded
    (``{`` becomes ``%7B``); an existing escape (``%20``) is kept."""
    from urllib.parse import quote

    value = document.get("homepage")
    if not (isinstance(value, str) and re.match(r"^https?://[!-~]+$", value)):
        return None
    parts = re.split(r"(%[0-9A-Fa-f]{2})", value)
    return "".join(p if i % 2 else quote(p, safe=_URL_SAFE) for i, p in enumerate(parts))


def creators(document: dict[str, Any]) -> list[str]:
    """Titles of the descriptor's contributors with the creator role (else of all)."""
    people = [p for p in document.get("contributors", []) if isinstance(p, dict)]
    chosen = [p for p in people if "creator" in p.get("roles", [])] or people
    return [p["title"] for p in chosen if isinstance(p.get("title"), str) and p["title"]]


def licenses(document: dict[str, Any]) -> list[str]:
    """The SPDX names of the descriptor's licenses."""
    return [lic["name"] for lic in document.get("licenses", [])
            if isinstance(lic, dict) and isinstance(lic.get("name"), str)]


def fields(document: dict[str, Any]) -> dict[str, Any]:
    """The citation fields of a tier: the descriptor's and this module's."""
    return {
        "title": TITLE,
        "tier_title": document.get("title", ""),
        "authors": creators(document) or [document.get("name", "ICg-Bench")],
        "version": document["version"],
        "date": str(document.get("created", ""))[:10],
        "licenses": licenses(document),
        "keywords": [k for k in document.get("keywords", []) if isinstance(k, str)],
        "abstract": ABSTRACT,
        "url": homepage(document),
        "doi": doi(document),
        "name": document.get("name", "icg-bench"),
    }


def _q(text: str) -> str:
    """A YAML double-quoted scalar (a JSON string is one)."""
    return json.dumps(text, ensure_ascii=True)


def cff_text(document: dict[str, Any]) -> str:
    """``CITATION.cff`` (Citation File Format 1.2.0) for the release the descriptor is of."""
    f = fields(document)
    lines = [
        "# Generated from the release descriptor and src/icgbench/release/citation.py",
        "# (python -m icgbench.release.citation writes it); do not edit by hand.",
        f"cff-version: {_q(CFF_VERSION)}",
        f"message: {_q(MESSAGE)}",
        "type: dataset",
        f"title: {_q(f['title'])}",
        "authors:",
        *(f"  - name: {_q(name)}" for name in f["authors"]),
        f"version: {_q(f['version'])}",
    ]
    if f["date"]:
        lines.append(f"date-released: {_q(f['date'])}")
    if f["doi"]:
        lines.append(f"doi: {_q(f['doi'])}")
    if len(f["licenses"]) == 1:
        lines.append(f"license: {_q(f['licenses'][0])}")
    elif f["licenses"]:
        lines += ["license:", *(f"  - {_q(lic)}" for lic in f["licenses"])]
    if f["url"]:
        lines.append(f"repository-code: {_q(f['url'])}")
    if f["keywords"]:
        lines += ["keywords:", *(f"  - {_q(k)}" for k in f["keywords"])]
    lines.append(f"abstract: {_q(f['abstract'])}")
    return "\n".join(lines) + "\n"


_BIBTEX_SPECIAL = re.compile(r"([&%$#_{}])")


def _tex(text: str) -> str:
    """``text`` with BibTeX's special characters escaped (braces stay balanced)."""
    text = text.replace("\\", "/").replace("~", "-").replace("^", "")
    return _BIBTEX_SPECIAL.sub(r"\\\1", text)


def bibtex_key(document: dict[str, Any]) -> str:
    """``<name>-<version>`` with every run of other characters made one ``-``."""
    f = fields(document)
    return re.sub(r"[^A-Za-z0-9.]+", "-", f"{f['name']}-{f['version']}").strip("-.")


def bibtex(document: dict[str, Any]) -> str:
    """A BibTeX ``@misc`` entry for the tier (the DOI line only when the descriptor has one)."""
    f = fields(document)
    # Double braces: an organization, not a surname; {ICg-Bench} keeps its capitals.
    authors = " and ".join(f"{{{_tex(a)}}}" for a in f["authors"])
    title = _tex(f["title"]).replace("ICg-Bench", "{ICg-Bench}", 1)
    if f["tier_title"]:
        title += f" ({_tex(f['tier_title'])})"
    entries = [
        ("title", title),
        ("author", authors),
        ("year", f["date"][:4]),
        ("version", _tex(f["version"])),
        ("howpublished", f"\\url{{{f['url']}}}" if f["url"] else
         f"ICg-Bench data release {_tex(f['version'])}"),
        ("url", f["url"] or ""),
        ("doi", _tex(f["doi"]) if f["doi"] else ""),
        ("note", f"Synthetic data: every record is simulated. Data release "
                 f"{_tex(f['version'])}"
                 + (f", licensed {_tex(', '.join(f['licenses']))}" if f["licenses"] else "")
                 + "."),
    ]
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in entries if value)
    return f"@misc{{{bibtex_key(document)},\n{body}\n}}"


def packaged_document(tier: str) -> dict[str, Any]:
    """The descriptor fields of ``tier`` as this package writes them (no data, no file)."""
    from icgbench.release.descriptor import build_document
    from icgbench.release.tiers import get_tier

    return build_document(get_tier(tier), [], [])


def write_cff(root: Path) -> Path:
    """Write ``root/CITATION.cff`` from the small tier's committed descriptor."""
    from icgbench.io.atomic import write_text
    from icgbench.release.descriptor import load_descriptor
    from icgbench.release.tiers import get_tier

    document = load_descriptor(root / get_tier("small").descriptor_path).document
    path = root / CFF_NAME
    write_text(path, cff_text(document))
    return path


if __name__ == "__main__":
    print(f"wrote {write_cff(Path('.'))}")
