"""The public contract (JSON Schemas and Table Schemas), read from one place.

The schemas live once, in the repository's top-level ``schemas/`` folder (what non-Python
users read). A wheel carries them as ``icgbench/schemas/`` (``[tool.hatch.build]``'s
``force-include`` copies the folder at build time; a test builds one and compares every
file); a source checkout (an editable install) reads the top-level folder itself.
``make contract`` regenerates the generated ones.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from icgbench.errors import UnknownNameError

#: A file every copy of the contract holds, to tell a schema folder from an empty one.
_MARKER = "submission.schema.json"


@functools.cache
def package_schema_dir() -> Path:
    """The folder the contract is read from: the wheel's ``icgbench/schemas``, else (a
    source checkout) the repository's ``schemas/``."""
    package = Path(__file__).resolve().parent.parent
    for folder in (package / "schemas", package.parents[1] / "schemas"):
        if (folder / _MARKER).is_file():
            return folder
    raise RuntimeError(f"the contract's schemas are missing: neither {package / 'schemas'} "
                       f"(an installed wheel) nor {package.parents[1] / 'schemas'} (a source "
                       "checkout) holds them; reinstall icgbench")


def _read_json(*parts: str) -> Any:
    return json.loads(package_schema_dir().joinpath(*parts).read_text(encoding="utf-8"))


@functools.cache
def table_schema(table: str) -> dict[str, Any]:
    """The Table Schema document of one release table."""
    if table not in table_names():
        raise UnknownNameError("table", table, table_names())
    return _read_json("tables", f"{table}.json")


@functools.cache
def table_names() -> tuple[str, ...]:
    """Every release table, in release order (``schemas/tables/index.json``)."""
    return tuple(entry["table"] for entry in _read_json("tables", "index.json"))


def table_role(table: str) -> str:
    """``public`` or ``truth``."""
    return table_schema(table)["icgbench:role"]


@functools.cache
def json_schema(name: str) -> dict[str, Any]:
    """A JSON Schema document by file stem (``submission``, ``score-report``, ...)."""
    return _read_json(f"{name}.schema.json")


def dumps(document: Any) -> str:
    """The one JSON formatting used for every published contract file."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def dumps_package(document: dict[str, Any]) -> str:
    """A Data Package descriptor as :func:`dumps` writes it, but each resource on one
    compact line: a tier of thousands of resources stays a file of one line per file, half
    the size, and a change to one file is a one-line diff."""
    lines = []
    for key, value in document.items():
        name = json.dumps(key, ensure_ascii=False)
        if key == "resources" and isinstance(value, list) and value:
            items = ",\n".join("    " + json.dumps(r, ensure_ascii=False, separators=(",", ":"))
                               for r in value)
            lines.append(f"  {name}: [\n{items}\n  ]")
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
            lines.append(f"  {name}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


