"""The Hugging Face dataset card (README.md) of a release tier, made from its descriptor.

The card sits in the tier's data folder, so that ``datasets.load_dataset(<folder>, <config>)``
reads the Parquet files offline: one config per table (truth tables are named
``truth_<table>``), one split per cohort (``<variant>_seed<k>``), each config's features
typed from the Table Schema (``datasets`` casts every file to them, and refuses one whose
columns differ). A binary 0/1 column (an integer field whose Table Schema ``enum`` is
``[0, 1]``, such as ``event``) is a ``ClassLabel`` named ``no``/``yes``: stored as the same
int64, but a classifier's target to ``datasets`` and the tools built on it. Split sizes are
left out: ``datasets`` requires each split's size in bytes of its own Arrow cache, which the
descriptor cannot know. The YAML front matter is written by hand (no YAML library is needed
at run time); every string in it is a JSON string, which YAML reads as the same string.
Nothing here reads a clock: the same descriptor gives the same bytes.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

from icgbench import contract
from icgbench.errors import InvalidInputError, UsageError
from icgbench.release.croissant import citation, data_prefix, record_set_id, tables
from icgbench.release.descriptor import SYNTHETIC_NOTICE, Descriptor
from icgbench.release.tiers import get_tier

#: Table Schema field type -> Hugging Face ``datasets`` dtype (the Parquet files' types).
DTYPES = {"integer": "int64", "number": "float64", "boolean": "bool", "string": "string"}
#: The class names of a binary 0/1 column, index 0 first (``datasets``' ``ClassLabel``).
BINARY_NAMES = ("no", "yes")
#: What ``datasets`` accepts as a split name.
SPLIT_NAME = re.compile(r"^\w+(\.\w+)*$")
TASK_CATEGORIES = ("tabular-classification", "tabular-regression")
#: Pages of docs/ the card links to, with what each holds.
DOCS = (
    ("data.md", "the frozen release: tiers, layout, descriptor, verification, reading it"),
    ("data_dictionary.md", "every table and field"),
    ("dgp.md", "the data-generating process"),
    ("tasks.md", "the scored tasks"),
    ("submission.md", "writing and validating a submission"),
    ("ethics_and_limitations.md", "what the numbers can and cannot support"),
)
ABOUT = (
    "ICg-Bench is a causal benchmark for mechanism-aware carcinogenicity models. Simulated "
    "exposures activate the ten IARC Key Characteristics of Carcinogens (KCCs); the KCCs "
    "drive latent quantitative adverse-outcome-pathway (qAOP) states month by month; "
    "multi-omics modules observe those states noisily; and a binary adverse outcome depends "
    "on them. Because the simulator wrote every latent value, causal questions (did a model "
    "recover the states? does intervening on one move risk the right way?) are scored "
    "exactly."
)


def split_name(variant: str, seed: int) -> str:
    """The Hugging Face split of a cohort."""
    name = f"{variant}_seed{seed}"
    if not SPLIT_NAME.match(name):
        raise InvalidInputError(f"cohort {variant} seed {seed} gives no valid split name")
    return name


def descriptor_folder(descriptor: Descriptor) -> str:
    """The descriptor's folder relative to the release root (``""`` for the root)."""
    try:
        return posixpath.dirname(get_tier(descriptor.tier).descriptor_path)
    except UsageError:  # a tier the registry does not know (a test's): the usual layout
        return f"datasets/{descriptor.tier}"


def card_folder(descriptor: Descriptor) -> str:
    """The card's folder relative to the release root (``datasets/<tier>``)."""
    return posixpath.normpath(posixpath.join(descriptor_folder(descriptor),
                                             data_prefix(descriptor)))


def _q(text: str) -> str:
    """A YAML scalar: a JSON string (YAML reads it back as the same string)."""
    return json.dumps(text, ensure_ascii=False)


def is_binary(field: dict[str, Any]) -> bool:
    """Whether a Table Schema field is a 0/1 label (declared a ``ClassLabel`` on the card)."""
    return (field["type"] == "integer"
            and field.get("constraints", {}).get("enum") == [0, 1])


def _feature(field: dict[str, Any]) -> list[str]:
    """One entry of a config's ``dataset_info.features`` in the card's YAML."""
    lines = [f"  - name: {_q(field['name'])}"]
    if is_binary(field):  # datasets' YAML form of ClassLabel(names=[...]): ids as strings
        return [*lines, "    dtype:", "      class_label:", "        names:",
                *(f"          {_q(str(i))}: {_q(name)}" for i, name in enumerate(BINARY_NAMES))]
    return [*lines, f"    dtype: {_q(DTYPES[field['type']])}"]


def _parquet(descriptor: Descriptor, table: str) -> list[Any]:
    return [r for r in descriptor.resources if r.table == table and r.format == "parquet"]


def config_files(descriptor: Descriptor, table: str) -> list[Any]:
    """The Parquet resources a table's config lists: those with rows. Hugging Face
    ``datasets`` cannot read a file of no rows (a truth table defined on some variants
    only, such as ``hidden_confounders``, is empty on the others)."""
    return [r for r in _parquet(descriptor, table) if r.rows > 0]


def _front_matter(descriptor: Descriptor, prefix: str) -> list[str]:
    """The YAML header; ``prefix`` is cut from each resource path (the card's folder)."""
    doc = descriptor.document
    lines = ["---", f"pretty_name: {_q(doc['title'] + ' (synthetic data)')}"]
    licenses = [lic["name"].lower() for lic in doc.get("licenses", []) if lic.get("name")]
    if len(licenses) == 1:
        lines.append(f"license: {_q(licenses[0])}")
    elif licenses:
        lines += ["license:", *(f"- {_q(lic)}" for lic in licenses)]
    tags = ["synthetic", *(re.sub(r"\s+", "-", k.strip().lower())
                           for k in doc.get("keywords", []))]
    lines += ["tags:", *(f"- {_q(t)}" for t in dict.fromkeys(tags))]
    lines += ["task_categories:", *(f"- {_q(t)}" for t in TASK_CATEGORIES)]
    lines.append("configs:")
    shown = [t for t in tables(descriptor) if config_files(descriptor, t)]
    for table in shown:
        lines += [f"- config_name: {_q(record_set_id(table))}", "  data_files:"]
        for r in config_files(descriptor, table):
            lines += [f"  - split: {_q(split_name(r.variant, r.seed))}",
                      f"    path: {_q(r.path[len(prefix):])}"]
    lines.append("dataset_info:")
    for table in shown:
        resources = _parquet(descriptor, table)
        schema = next(r["schema"] for r in doc["resources"] if r["name"] == resources[0].name)
        lines += [f"- config_name: {_q(record_set_id(table))}", "  features:"]
        for field in schema["fields"]:
            lines += _feature(field)
    lines.append("---")
    return lines


def _rows(counts: list[int]) -> str:
    low, high = min(counts), max(counts)
    return f"{low:,}" if low == high else f"{low:,} to {high:,}"


def dataset_card(descriptor: Descriptor, hub_repository: str | None = None) -> str:
    """The README.md (YAML front matter and Markdown) of a tier's data folder.

    With ``hub_repository``, the card of a Hub dataset repository (``icgbench data
    publish``): it sits beside the descriptor, whose files keep their paths below it, and
    names the docs by their path in the source repository.
    """
    doc = descriptor.document
    tier = descriptor.tier
    folder = hub_repository or card_folder(descriptor)
    root = "../" * len(folder.split("/"))
    home = descriptor_folder(descriptor)
    descriptor_link = ("datapackage.json" if hub_repository else posixpath.relpath(
        posixpath.join(home or ".", "datapackage.json"), folder))
    croissant_link = ("croissant.json" if hub_repository else posixpath.relpath(
        posixpath.join(home or ".", "croissant.json"), folder))
    verify_command = (f"icgbench data verify --descriptor datapackage.json  # in a clone of "
                      f"{hub_repository}" if hub_repository else
                      f"icgbench data verify --tier {tier}       # every file's size, SHA-256 "
                      "and schema")
    docs = ([f"- `docs/{page}` in the ICg-Bench source repository: {what}"
             for page, what in DOCS] if hub_repository else
            [f"- [docs/{page}]({root}docs/{page}): {what}" for page, what in DOCS])
    resources = descriptor.resources
    cohorts = descriptor.cohorts()
    first = cohorts[0]
    first_split = split_name(first["variant"], int(first["seed"]))
    calibration = descriptor.calibration_cohort
    licences = [f"[{lic.get('title', lic['name'])}]({lic['path']}) (`{lic['name']}`)"
                if lic.get("path") else f"`{lic['name']}`" for lic in doc.get("licenses", [])]
    notice = SYNTHETIC_NOTICE.removeprefix("Synthetic by construction: ")
    lines = [
        *_front_matter(descriptor, "" if hub_repository else data_prefix(descriptor)),
        "",
        "<!-- Generated from the tier's datapackage.json by icgbench.release.dataset_card: "
        "do not edit by hand. -->",
        "",
        f"# {doc['title']}",
        "",
        f"> **Synthetic by construction.** {notice[:1].upper()}{notice[1:]}",
        "",
        doc["description"].replace(SYNTHETIC_NOTICE, "").strip(),
        "",
        ABOUT,
        "",
        "## This release",
        "",
        "| | |",
        "| --- | --- |",
        f"| data release version | `{descriptor.version}` |",
        f"| tier | `{tier}` |",
        f"| created | {doc.get('created', '')} |",
        f"| fingerprint | `{descriptor.fingerprint()}` |",
        f"| cohorts | {len(cohorts)} |",
        f"| files | {len(resources)}: every table of every cohort as Parquet and as "
        "gzip-compressed CSV |",
        f"| calibration cohort | `{calibration[0]}` seed {calibration[1]} (structure "
        "recovery's K* is chosen on it) |",
        "",
        "Each cohort (a variant and a seed) is one split:",
        "",
        "| split | variant | variant hash | seed | subjects (train / test / target test) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for c in cohorts:
        sizes = c.get("sizes", {})
        counts = " / ".join(f"{sizes.get(s, 0):,}" for s in ("train", "test", "target_test"))
        lines.append(f"| `{split_name(c['variant'], int(c['seed']))}` | `{c['variant']}` | "
                     f"`{c['variant_hash']}` | {c['seed']} | {counts} |")
    lines += [
        "",
        "## Loading with Hugging Face `datasets`",
        "",
        ("Each table is a config, each cohort a split (a cohort whose file has no rows is "
         "left out: `datasets` cannot read an empty file)."
         + (" From the Hub:" if hub_repository else " From the repository's root, offline:")),
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'subjects = load_dataset("{folder}", "subjects")                 # every cohort',
        f'train = load_dataset("{folder}", "train_outcomes", split="{first_split}")',
        "```",
        "",
        "The column `split` inside a table (`train`, `test`, `target_test`) is the benchmark's "
        "own split of a cohort's subjects, not a Hugging Face split. Every config's features "
        "are typed from its Table Schema, so `datasets` refuses a file whose columns differ; "
        "`icgbench data verify` (below) checks every byte. A 0/1 column (`event`) is a "
        f"`ClassLabel` with names `{BINARY_NAMES[0]}` (0) and `{BINARY_NAMES[1]}` (1), "
        "stored as the same integers.",
        "",
        "## Configs",
        "",
        "**Public** tables are what a model may be fitted on. **Truth** tables (configs named "
        "`truth_<table>`) hold the ground truth the scorer grades against: they are shipped "
        "because the data are synthetic, but fitting a model never needs them, and fitting "
        "on them defeats the benchmark.",
        "",
        "| config | role | rows per cohort | what it holds |",
        "| --- | --- | --- | --- |",
    ]
    for table in tables(descriptor):
        role = contract.table_role(table)
        rows = _rows([r.rows for r in _parquet(descriptor, table)])
        what = contract.table_schema(table)["description"].replace("|", "\\|")
        lines.append(f"| `{record_set_id(table)}` | {'**truth**' if role == 'truth' else role}"
                     f" | {rows} | {what} |")
    lines += [
        "",
        "## Other ways to read it",
        "",
        f"- [`datapackage.json`]({descriptor_link}): the Frictionless Data Package descriptor, "
        "the release's reference (every file's size, SHA-256, Table Schema and provenance).",
        f"- [`croissant.json`]({croissant_link}): the same release described in Croissant "
        "(MLCommons), one record set per table, readable with `mlcroissant` installed with "
        'its Parquet extra (`pip install "mlcroissant[parquet]"`; without it reading '
        "records fails).",
        "- DuckDB, pandas, polars: the Parquet files, `<variant>/seed<k>/<table>.parquet`; "
        "R (base R and jsonlite, or the repository's R package) and other CSV readers: the "
        "`<table>.csv.gz` beside each.",
        "",
        "## Verifying",
        "",
        "```bash",
        verify_command,
        "```",
        "",
        "checks every file against the descriptor and exits 1 naming any file that is "
        "missing or altered.",
        "",
        "## Licence",
        "",
        f"{', '.join(licences) or 'See the descriptor.'}.",
        "",
        "## Citation",
        "",
        "```bibtex",
        citation(descriptor),
        "```",
        "",
        "## Documentation",
        "",
        *docs,
        "",
    ]
    return "\n".join(lines)
