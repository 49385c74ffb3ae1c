"""``make schemas``: regenerate the published contract files and the R package's copies.

Writes ``schemas/tables/*.json`` (Table Schemas) and ``schemas/*.schema.json`` (JSON
Schemas) from the vocabulary (the Python package reads ``schemas/`` itself; a wheel carries
it), then copies the three JSON Schemas into the R package (``r/inst/schemas``) and the
submission checker (``r/inst/checker``: the page's checker code and its static facts),
which R runs in V8; tests keep both copies byte-identical.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from icgbench.contract import json_schemas
from icgbench.leaderboard.checker import R_CHECKER, R_CHECKER_FILES, facts_json, static_facts
from icgbench.release import table_schemas

TEMPLATES = Path("src/icgbench/leaderboard/templates")


def main() -> None:
    root = Path("schemas")
    written = table_schemas.write_all(root) + json_schemas.write_all(root)
    r_copy = Path("r/inst/schemas")
    for schema in sorted(root.glob("*.schema.json")):
        shutil.copyfile(schema, r_copy / schema.name)
    checker = Path(*R_CHECKER)
    checker.mkdir(parents=True, exist_ok=True)
    for name, source in R_CHECKER_FILES:
        shutil.copyfile(TEMPLATES / source, checker / name)
    (checker / "facts.json").write_text(facts_json(static_facts()) + "\n", encoding="utf-8")
    print(f"wrote {len(written)} schema files to {root} and synced the R package's copy at "
          f"{r_copy} and its checker at {checker}")


if __name__ == "__main__":
    main()
