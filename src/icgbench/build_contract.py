"""``make schemas``: regenerate the published contract files and sync the package copy.

Writes ``schemas/tables/*.json`` (Table Schemas) and ``schemas/*.schema.json`` (JSON
Schemas) from the vocabulary, then copies the whole ``schemas/`` folder (with the
hand-written examples and conformance fixtures) into the package.
"""

from __future__ import annotations

from pathlib import Path

from icgbench import json_schemas
from icgbench.contract import package_schema_dir, sync_package_copy
from icgbench.release import table_schemas


def main() -> None:
    root = Path("schemas")
    written = table_schemas.write_all(root) + json_schemas.write_all(root)
    sync_package_copy(root)
    print(f"wrote {len(written)} schema files to {root} and synced the package copy at "
          f"{package_schema_dir()}")


if __name__ == "__main__":
    main()
