"""docs/data_dictionary.md, generated from the Table Schemas (a test keeps them equal)."""

from __future__ import annotations

from icgbench import contract

HEADER = """# Data dictionary

Generated from `schemas/tables/*.json` by `make docs`; a test fails when the two disagree.
Every table of every cohort is published as Parquet and as gzip-compressed CSV with the same
Table Schema. **Public** tables are what a model may be fitted on; **truth** tables are what
the scorer grades against (shipped, since the data are synthetic, but never needed to fit).

Conventions: a null (empty CSV cell) is a masked measurement; `subject_id` is `TR`
(train), `TE` (test) or `TG` (target test) plus a number of at least six digits; numbers
are stated to 6 decimals (omics readouts, assay readouts and proxies to 3).
"""


def _constraints(field: dict) -> str:
    c = field.get("constraints", {})
    parts = []
    if c.get("required"):
        parts.append("required")
    if c.get("unique"):
        parts.append("unique")
    if "enum" in c:
        values = c["enum"]
        shown = ", ".join(f"`{v}`" for v in values[:8])
        parts.append(f"one of {shown}" + (f" (+{len(values) - 8} more)" if len(values) > 8
                                           else ""))
    for key, symbol in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<=")):
        if key in c:
            parts.append(f"{symbol} {c[key]}")
    if "pattern" in c:
        parts.append(f"pattern `{c['pattern']}`")
    return "; ".join(parts)


def markdown() -> str:
    """The data dictionary as Markdown."""
    out = [HEADER]
    for table in contract.table_names():
        s = contract.table_schema(table)
        out.append(f"## `{table}` ({s['icgbench:role']})\n")
        out.append(f"{s['description']}\n")
        out.append(f"Primary key: {', '.join(f'`{k}`' for k in s['primaryKey'])}.")
        for fk in s.get("foreignKeys", []):
            ref = fk["reference"]
            out.append(f" Foreign key: {', '.join(fk['fields'])} -> "
                       f"`{ref['resource']}`.{', '.join(ref['fields'])}.")
        out.append("\n\n| field | type | constraints | description |\n| --- | --- | --- | --- |")
        for f in s["fields"]:
            cells = [f"`{f['name']}`", f["type"], _constraints(f), f["description"]]
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        out.append("")
    return "\n".join(out)
