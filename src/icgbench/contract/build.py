"""``make contract``: rebuild every generated file of the published contract.

Writes, from the code, into ``schemas/`` (a folder that holds nothing hand-written but the
conformance cases and the examples): the Table Schemas (``tables/*.json``), the JSON Schemas
(``*.schema.json``), the checker's facts (``checker/facts.json``: message templates and
limits) and the three validators ajv compiles from the JSON Schemas
(``checker/*_schema.js``: the page's and R's submission check, R's score-report and
leaderboard-entry checks), with ``tools/ajv/build-checker.js`` and the ajv that
``tools/ajv/package-lock.json`` locks. ``--check`` writes nothing: it rebuilds into a
temporary folder and lists every committed file that differs (exit 1), as the test does.
``.gitattributes`` marks :data:`GENERATED` as generated; the R package's copies are made by
``r/configure`` (``make contract`` runs it).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from icgbench.errors import UsageError

ROOT = Path(__file__).resolve().parents[3]
AJV = ROOT / "tools" / "ajv"

#: (published JSON Schema, its compiled validator in schemas/checker/, the global it defines)
COMPILED = (
    ("submission.schema.json", "submission_schema.js", "icgValidateSubmission"),
    ("score-report.schema.json", "score_report_schema.js", "icgValidateScoreReport"),
    ("leaderboard-entry.schema.json", "leaderboard_entry_schema.js",
     "icgValidateLeaderboardEntry"),
)

#: What this module writes, as globs under the repository root (``.gitattributes`` lists them).
GENERATED = ("schemas/tables/*.json", "schemas/*.schema.json", "schemas/checker/facts.json",
             "schemas/checker/*_schema.js")


def node_binary() -> str:
    """The ``node`` that compiles the validators, with ajv installed beside the script."""
    node = shutil.which("node")
    if node is None or not (AJV / "node_modules" / "ajv" / "package.json").is_file():
        raise UsageError("compiling the schema validators needs Node.js and ajv: run `make "
                         "system-deps` (it installs nodejs and runs `npm ci` in tools/ajv)")
    return node


def build(schemas: Path, compiled: bool = True) -> list[Path]:
    """Write every generated contract file under ``schemas`` (the validators unless
    ``compiled`` is false); the paths written."""
    from icgbench.contract import json_schemas
    from icgbench.io.atomic import write_text
    from icgbench.leaderboard.checker import facts_json, static_facts
    from icgbench.release import table_schemas

    written = table_schemas.write_all(schemas) + json_schemas.write_all(schemas)
    facts = schemas / "checker" / "facts.json"
    facts.parent.mkdir(parents=True, exist_ok=True)
    write_text(facts, facts_json(static_facts()) + "\n")
    written.append(facts)
    if compiled:
        node = node_binary()
        for schema, out, name in COMPILED:
            target = schemas / "checker" / out
            temporary = target.with_name(f".{out}.tmp")
            subprocess.run([node, "build-checker.js", str(schemas / schema), str(temporary),
                            name], cwd=AJV, check=True, timeout=300)
            temporary.replace(target)
            written.append(target)
    return written


def stale(schemas: Path) -> list[str]:
    """The generated files under ``schemas`` that differ from a rebuild (or are missing)."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "schemas"
        made = build(fresh)
        return [str(Path("schemas") / p.relative_to(fresh)) for p in made
                if not (schemas / p.relative_to(fresh)).is_file()
                or (schemas / p.relative_to(fresh)).read_bytes() != p.read_bytes()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m icgbench.contract.build",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; list the generated files that are stale")
    args = parser.parse_args(argv)
    schemas = ROOT / "schemas"
    try:
        if args.check:
            old = stale(schemas)
            for name in old:
                print(f"stale: {name} (run `make contract`)")
            print(f"{len(old)} stale generated contract file(s) under {schemas}")
            return 1 if old else 0
        written = build(schemas)
    except UsageError as exc:
        print(f"icgbench.contract.build: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} generated contract files to {schemas}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
