"""The Croissant (MLCommons, JSON-LD) description of a release tier, made from its descriptor.

Croissant 1.1, as ``mlcroissant`` reads it. The ``distribution`` lists every file of the tier
as a ``cr:FileObject`` with its size and SHA-256 (a CSV twin names its Parquet file in
``sameAs``), plus one ``cr:FileSet`` per table gathering that table's Parquet files across
every cohort. Each table is one ``cr:RecordSet`` read from its FileSet: the cohort's
``variant`` and ``seed`` come from the file path, every other field from the column of the
same name, typed from the Table Schema. Truth tables are record sets named ``truth_<table>``
and say so in their descriptions. The Responsible-AI fields (``rai:``) are the constants
below, which docs/datasheet.md quotes; ``citeAs`` is :mod:`.citation`'s BibTeX entry. Nothing
here reads a clock: the same descriptor gives the same bytes.
"""

from __future__ import annotations

import re
from typing import Any

from icgbench import contract
from icgbench.errors import InvalidInputError
from icgbench.release import citation as _citation
from icgbench.release.descriptor import (
    EXTENSIONS,
    SYNTHETIC_NOTICE,
    Descriptor,
    relative_path,
)

CONFORMS_TO = "http://mlcommons.org/croissant/1.1"
#: The JSON-LD context of Croissant 1.1: every key of the specification's Appendix 1 and of
#: the context ``mlcroissant`` writes (it warns when one is missing).
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "annotation": "cr:annotation",
    "arrayShape": "cr:arrayShape",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "containedIn": "cr:containedIn",
    "cr": "http://mlcommons.org/croissant/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "description": {"@container": "@language"},
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "excludes": "cr:excludes",
    "extract": "cr:extract",
    "field": "cr:field",
    "fileObject": "cr:fileObject",
    "fileProperty": "cr:fileProperty",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isArray": "cr:isArray",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "name": {"@container": "@language"},
    "parentField": "cr:parentField",
    "path": "cr:path",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "readLines": "cr:readLines",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "sdVersion": "cr:sdVersion",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
    "unArchive": "cr:unArchive",
    "value": "cr:value",
}
#: Table Schema field type -> Croissant data type.
DATA_TYPES = {
    "integer": "sc:Integer",
    "number": "sc:Float",
    "boolean": "sc:Boolean",
    "string": "sc:Text",
}
#: The media types mlcroissant reads (it knows Parquet as application/x-parquet).
ENCODING_FORMATS = {"parquet": "application/x-parquet", "csv": "text/csv"}
TRUTH_PREFIX = "truth_"
# The Responsible-AI fields (Croissant RAI 1.0). docs/datasheet.md quotes each of them
# and a test keeps the two in step.
RAI_DATA_COLLECTION = (
    "No data were collected: every record is simulated by the ICg-Bench data-generating "
    "process (numpy, seeded per variant, seed and purpose) and frozen with `icgbench freeze`; "
    "re-running the generator gives the same tables."
)
RAI_DATA_COLLECTION_TYPE = ["Simulation"]
RAI_PERSONAL_INFORMATION = (
    "None. The subjects are simulated; their ages, sexes and traits describe no real person."
)
RAI_BIASES = [
    "Every pattern in the data, including any difference between hosts, sexes or ages, is "
    "one the data-generating process puts there by construction (docs/dgp.md); none is "
    "measured in any population.",
    "The variants are chosen to test specific model failures (nonlinearity, partial "
    "observability, misspecified signs, host shift): they are not a representative sample "
    "of real exposures or mechanisms.",
]
RAI_LIMITATIONS = [
    "A benchmark of synthetic mechanisms: scores measure how well a model recovers a "
    "simulated process, not any real agent's carcinogenicity. Do not use the data or the "
    "scores as a carcinogenicity classification or to make predictions about real people.",
    "Synthetic data from a documented data-generating process (docs/dgp.md): a model that "
    "does well here has recovered that process, which may differ from real biology in "
    "every respect the process leaves out.",
    "No record is about a real person or a real chemical.",
]
RAI_USE_CASES = [
    "Fitting models on the public tables and grading their predictions against the truth "
    "tables with the ICg-Bench scorer (risk prediction, latent-state recovery, intervention "
    "conformity, cross-host generalization, structure recovery).",
    "Prohibited: any statement about a real chemical or a real person drawn from these data "
    "or from scores on them, including a carcinogenicity classification or a health "
    "prediction.",
]
RAI_MAINTENANCE_PLAN = (
    "Each frozen release has a semantic version; any change to any byte of the data gives a "
    "new version, recorded in the changelog, and the descriptor's SHA-256 hashes let anyone "
    "check a copy (`icgbench data verify`)."
)


def _with_notice(text: str) -> str:
    """``text``, ending with the synthetic-data notice unless it already holds it."""
    return text if SYNTHETIC_NOTICE in text else f"{text} {SYNTHETIC_NOTICE}".strip()


def record_set_id(table: str) -> str:
    """The record set (and Hugging Face config) name of a table: truth tables are marked."""
    return TRUTH_PREFIX + table if contract.table_role(table) == "truth" else table


def data_prefix(descriptor: Descriptor) -> str:
    """The folder (relative to the descriptor, ``""`` or ending in ``/``) of every file.

    Raises InvalidInputError when the resources do not all follow the release layout
    ``<prefix><variant>/seed<k>/<table><extension>`` with the same prefix.
    """
    prefixes = set()
    for r in descriptor.resources:
        tail = relative_path(r.variant, r.seed, r.table, r.format)
        if not r.path.endswith(tail) or (r.path != tail and not r.path.endswith("/" + tail)):
            raise InvalidInputError(f"{descriptor.path}: resource {r.name} has path {r.path!r}, "
                                    f"not <folder>/{tail}")
        prefixes.add(r.path[: len(r.path) - len(tail)])
    if len(prefixes) != 1:
        raise InvalidInputError(f"{descriptor.path}: the resources are not in one folder "
                                f"({', '.join(sorted(prefixes)) or 'no resources'})")
    return prefixes.pop()


def tables(descriptor: Descriptor) -> list[str]:
    """The descriptor's tables, in release order."""
    present = {r.table for r in descriptor.resources}
    return [t for t in contract.table_names() if t in present]


def citation(descriptor: Descriptor) -> str:
    """The tier's BibTeX entry, as ``icgbench data cite`` prints it (:mod:`.citation`)."""
    return _citation.bibtex(descriptor.document)


def creators(descriptor: Descriptor) -> list[str]:
    """Titles of the descriptor's contributors with the creator role (else of all)."""
    return _citation.creators(descriptor.document)


def _file_object(r: Any, descriptor: Descriptor) -> dict[str, Any]:
    role = "truth" if r.role == "truth" else "public"
    what = ("Parquet" if r.format == "parquet" else
            "gzip-compressed CSV (the same rows as the Parquet file)")
    doc: dict[str, Any] = {
        "@type": "cr:FileObject",
        "@id": r.name,
        "name": r.name,
        "description": (f"Table {r.table} ({role}) of cohort {r.variant} seed {r.seed} "
                        f"(variant hash {r.variant_hash}), {r.rows} rows, as {what}. "
                        "Synthetic."),
        "contentUrl": r.path,
        "contentSize": f"{r.bytes} B",
        "encodingFormat": ENCODING_FORMATS[r.format],
        "sha256": _sha256_hex(r.hash, r.name, descriptor),
    }
    if r.format == "csv":
        doc["sameAs"] = [r.name.removesuffix(".csv") + ".parquet"]
    return doc


def _sha256_hex(value: str, name: str, descriptor: Descriptor) -> str:
    algorithm, _, digest = value.partition(":")
    if algorithm != "sha256" or not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise InvalidInputError(f"{descriptor.path}: resource {name} has hash {value!r}, "
                                "not sha256:<64 hex digits>")
    return digest


def _file_set_id(table: str) -> str:
    return f"parquet-files/{table}"


def _record_set(table: str, prefix: str, schema: dict[str, Any]) -> dict[str, Any]:
    rs_id = record_set_id(table)
    role = contract.table_role(table)
    file_set = {"@id": _file_set_id(table)}
    file_name = re.escape(f"{table}{EXTENSIONS['parquet']}")
    where = f"^{re.escape(prefix)}"

    def from_path(name: str, regex: str, data_type: str, description: str) -> dict[str, Any]:
        return {
            "@type": "cr:Field", "@id": f"{rs_id}/{name}", "name": name,
            "description": description, "dataType": data_type,
            "source": {"fileSet": file_set, "extract": {"fileProperty": "fullpath"},
                       "transform": {"regex": regex}},
        }

    fields = [
        from_path("variant", f"{where}([^/]+)/seed[0-9]+/{file_name}$", "sc:Text",
                  "The cohort's variant (from the file path)."),
        from_path("seed", f"{where}[^/]+/seed([0-9]+)/{file_name}$", "sc:Integer",
                  "The cohort's seed (from the file path)."),
    ]
    for field in schema["fields"]:
        required = field.get("constraints", {}).get("required", False)
        fields.append({
            "@type": "cr:Field", "@id": f"{rs_id}/{field['name']}", "name": field["name"],
            "description": field.get("description", "") + ("" if required else
                                                          " Null where not observed."),
            "dataType": DATA_TYPES[field["type"]],
            "source": {"fileSet": file_set, "extract": {"column": field["name"]}},
        })
    published = contract.table_schema(table)
    if role == "truth":
        description = ("TRUTH TABLE: ground truth the scorer grades against; never needed "
                       "to fit a model. ")
    else:
        description = "Public table: what a model may be fitted on. "
    description += (f"{published['description']} Rows of every cohort of the tier; variant "
                    "and seed name the cohort. Synthetic by construction.")
    key = ["variant", "seed", *schema.get("primaryKey", [])]
    return {
        "@type": "cr:RecordSet",
        "@id": rs_id,
        "name": rs_id,
        "description": description,
        "key": [{"@id": f"{rs_id}/{k}"} for k in key],
        "field": fields,
    }


def croissant_document(descriptor: Descriptor) -> dict[str, Any]:
    """The Croissant JSON-LD document of a tier (paths relative to the descriptor)."""
    doc = descriptor.document
    prefix = data_prefix(descriptor)
    resources = descriptor.resources
    distribution: list[dict[str, Any]] = [_file_object(r, descriptor) for r in resources]
    record_sets = []
    for table in tables(descriptor):
        role = contract.table_role(table)
        distribution.append({
            "@type": "cr:FileSet",
            "@id": _file_set_id(table),
            "name": _file_set_id(table),
            "description": (f"The Parquet files of table {table} ({role}), one per cohort."),
            "encodingFormat": ENCODING_FORMATS["parquet"],
            "includes": f"{prefix}*/seed*/{table}{EXTENSIONS['parquet']}",
        })
        record_sets.append(_record_set(table, prefix, contract.table_schema(table)))
    out: dict[str, Any] = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": doc["name"],
        "alternateName": doc["title"],
        "description": _with_notice(doc["description"]),
        "version": descriptor.version,
        "datePublished": doc["created"],
        "license": [lic["path"] for lic in doc.get("licenses", []) if lic.get("path")],
        "creator": [{"@type": "sc:Organization", "name": name}
                    for name in creators(descriptor)],
        "citeAs": citation(descriptor),
        "keywords": list(doc.get("keywords", [])),
        "isAccessibleForFree": True,
        "rai:dataCollection": RAI_DATA_COLLECTION,
        "rai:dataCollectionType": list(RAI_DATA_COLLECTION_TYPE),
        "rai:dataBiases": list(RAI_BIASES),
        "rai:dataLimitations": list(RAI_LIMITATIONS),
        "rai:personalSensitiveInformation": RAI_PERSONAL_INFORMATION,
        "rai:dataUseCases": list(RAI_USE_CASES),
        "rai:dataReleaseMaintenancePlan": RAI_MAINTENANCE_PLAN,
    }
    if doc.get("homepage"):
        out["url"] = doc["homepage"]
    out["distribution"] = distribution
    out["recordSet"] = record_sets
    return out


def croissant_text(descriptor: Descriptor) -> str:
    """:func:`croissant_document` as the file ``croissant.json`` holds it."""
    return contract.dumps(croissant_document(descriptor))
