"""The public contract (JSON Schemas and Table Schemas), read from the package's copies.

The top-level ``schemas/`` folder is what non-Python users read; the package ships an
identical copy (a test compares them byte for byte) so an installed ``icgbench`` never
needs the repository. ``make schemas`` regenerates the table schemas and syncs the copy.
"""

from __future__ import annotations

import functools
import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

SCHEMA_PACKAGE = "icgbench.schemas"


def _read_json(*parts: str) -> Any:
    node = resources.files(SCHEMA_PACKAGE)
    for part in parts:
        node = node / part
    return json.loads(node.read_text(encoding="utf-8"))


@functools.cache
def table_schema(table: str) -> dict[str, Any]:
    """The Table Schema document of one release table."""
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


def package_schema_dir() -> Path:
    """Filesystem path of the package's schema copy (editable or installed)."""
    return Path(str(resources.files(SCHEMA_PACKAGE)))


def sync_package_copy(top_level: Path) -> None:
    """Replace the package's schema copy with the top-level ``schemas/`` folder."""
    target = package_schema_dir()
    for item in target.iterdir():
        if item.name == "__init__.py":
            continue
        if item.is_dir():
            shutil.rmtree(item)
        else:
            item.unlink()
    for item in sorted(top_level.rglob("*")):
        if item.is_file():
            dest = target / item.relative_to(top_level)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(item, dest)
