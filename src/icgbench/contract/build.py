"""``make schemas``: regenerate the published contract files.

Writes ``schemas/tables/*.json`` (Table Schemas), ``schemas/*.schema.json`` (JSON Schemas)
and ``schemas/checker/facts.json`` (the submission checker's message templates and limits)
from the code. They live only there: a wheel carries the folder, and the R package's
``configure`` copies what it ships when it is installed.
"""

from __future__ import annotations

from pathlib import Path

from icgbench.contract import json_schemas
from icgbench.leaderboard.checker import FACTS_FILE, facts_json, static_facts
from icgbench.release import table_schemas


def main() -> None:
    root = Path("schemas")
    written = table_schemas.write_all(root) + json_schemas.write_all(root)
    facts = Path(*FACTS_FILE)
    facts.parent.mkdir(parents=True, exist_ok=True)
    facts.write_text(facts_json(static_facts()) + "\n", encoding="utf-8")
    print(f"wrote {len(written) + 1} contract files to {root}")


if __name__ == "__main__":
    main()
