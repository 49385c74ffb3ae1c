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


@pytest.mark.slow
def test_validate_loads_no_pandas_sklearn_or_scipy(tmp_path) -> None:
    """``validate`` reads Parquet and builds Arrow arrays without pyarrow's pandas path
    (``icgbench.io.arrow``), and imports only its own command group."""
    from icgbench.api.template import build_template

    file = tmp_path / "template.json"
    file.write_text(json.dumps(build_template("linear_lowhet")))
    loaded = loaded_after("validate", str(file))
    assert not loaded & {"pandas", "sklearn", "scipy", "matplotlib", "dask"}
    assert {"pyarrow", "jsonschema"} <= loaded  # it did validate


@pytest.mark.slow
def test_generate_at_its_own_follow_up_loads_no_pandas_or_scipy(tmp_path) -> None:
    """The simulator builds its Arrow tables without pyarrow's pandas path, and the
    variant's own follow-up reads its solved roots instead of importing scipy.optimize."""
    out = tmp_path / "cohort"
    loaded = loaded_after("generate", "--variant", "partial_observability", "--seed", "2",
                          "--n-subjects", "30", "--out", str(out))
    assert (out / "cohort.json").is_file()  # it did generate (with masked, null values)
    assert not loaded & {"pandas", "sklearn", "scipy", "matplotlib", "dask"}


def test_the_command_table_names_what_each_group_registers() -> None:
    """``main`` builds only the invoked command's group from ``COMMAND_GROUPS``: the table
    must list exactly the commands each group module registers."""
    import argparse
    import importlib

    from icgbench.cli import COMMAND_GROUPS, build_parser

    for group, commands in COMMAND_GROUPS.items():
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"icgbench.cli.{group}").register(sub)
        assert tuple(sub.choices) == commands, group
    full = build_parser()._subparsers._group_actions[0].choices
    assert list(full) == [c for commands in COMMAND_GROUPS.values() for c in commands]


def test_registries_list_the_modules_pkgutil_lists() -> None:
    """The task and model registries scan their folders without pkgutil (start-up time)."""
    import pkgutil

    import icgbench.models
    import icgbench.tasks
    from icgbench._lazy import module_names

    for package in (icgbench.tasks, icgbench.models):
        assert module_names(package.__path__) == [
            m.name for m in pkgutil.iter_modules(package.__path__)]
