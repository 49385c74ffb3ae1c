"""The CLI starts without the heavy libraries: they load where a command uses them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("sklearn", "scipy", "pandas", "matplotlib", "jsonschema", "pyarrow", "dask")

PROBE = """
import json, sys
from icgbench.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)
"""


def loaded_after(*argv: str) -> set[str]:
    result = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True,
                            text=True, check=True)
    return set(json.loads(result.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("argv", [["--help"], ["bench", "run", "--help"],
                                  ["leaderboard", "show", "--help"], ["generate", "--help"]])
def test_help_imports_no_heavy_library(argv: list[str]) -> None:
    assert not loaded_after(*argv) & set(HEAVY)


def test_model_declarations_read_without_import_match_the_classes() -> None:
    """The registry reads each model's name, aliases and requirements from its source; they
    must be what the class, once imported, says."""
    from icgbench.models import DECLARATIONS, model_class

    for name, d in DECLARATIONS.items():
        cls = model_class(name)
        assert (cls.name, cls.aliases, cls.oracle, cls.requires, cls.extra) == (
            d.name, d.aliases, d.oracle, d.requires, d.extra)
