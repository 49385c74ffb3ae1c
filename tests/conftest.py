"""Shared fixtures: cohorts are simulated once per session and reused."""

from __future__ import annotations

import os

# One xdist worker runs per core: the numerical libraries' own thread pools (OpenMP,
# OpenBLAS) would put two threads on each core, which spin while they wait. Set before
# numpy and scikit-learn load; subprocesses inherit it.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import functools
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from icgbench.generator import Cohort, simulate

ROOT = Path(__file__).resolve().parents[1]

#: Reference models whose fit takes many seconds: their cases run under `make test-slow`.
SLOW_MODELS = frozenset({"pcmci_plus"})


def model_params(names: list[str]) -> list:
    """``names`` as pytest parameters, the slow models' marked slow (CI runs both sets)."""
    return slow_except([n for n in names if n not in SLOW_MODELS], names)


def slow_except(fast: list, cases: list) -> list:
    """``cases`` as pytest parameters, all but ``fast`` marked slow: the fast suite keeps
    the named cases of a matrix whose every case is costly; CI runs the rest in
    `make test-slow`."""
    return [c if c in fast else pytest.param(c, marks=pytest.mark.slow) for c in cases]


def examples(fast: int, campaign: int) -> list:
    """Example counts for a property test, as pytest parameters: ``fast`` in `make test`,
    ``campaign`` (marked slow) in `make test-slow`. The test applies its count with
    ``settings(max_examples=n)`` to an inner ``@given`` function and calls it."""
    return [pytest.param(fast, id=f"{fast}-examples"),
            pytest.param(campaign, id=f"{campaign}-examples", marks=pytest.mark.slow)]


#: Where the folder shared by every worker of this test session is (set by
#: ``_session_folder``). An environment variable, not a module global, so that a second copy
#: of this module (mutmut runs pytest again in one process, and a helper's ``from conftest
#: import ...`` may hold the first run's copy) finds the current session's folder.
SESSION_FOLDER = "ICGBENCH_TEST_SESSION_FOLDER"


def pytest_sessionstart(session) -> None:
    """Start every session with the package's process caches empty. mutmut runs the suite
    once in its own process, then forks a child per mutant, which runs the suite again: a
    result cached in the first run (an entry's schema verdict, a family's candidates) would
    answer for the mutated function, so the mutant would never run."""
    import sys

    for name, module in list(sys.modules.items()):
        if name.split(".")[0] != "icgbench" or module is None:
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


@pytest.fixture(scope="session", autouse=True)
def _session_folder(tmp_path_factory) -> None:
    import os

    base = tmp_path_factory.getbasetemp()  # an xdist worker's is one folder of the session's
    os.environ[SESSION_FOLDER] = str(base.parent if os.environ.get("PYTEST_XDIST_WORKER")
                                     else base)


def built_once(name: str, make: Callable[[Path], None]) -> Path:
    """The file or folder ``name`` of this test session, made by ``make(path)`` in the first
    worker that asks; the others wait on a lock and use it."""
    import fcntl
    import os
    import shutil

    target = Path(os.environ[SESSION_FOLDER]) / name
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f"{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            temporary = target.parent / f"{target.name}.tmp"
            shutil.rmtree(temporary, ignore_errors=True)
            temporary.unlink(missing_ok=True)
            make(temporary)
            temporary.rename(target)
    return target


@functools.lru_cache(maxsize=64)
def reference_submission(model: str, variant: str) -> str:
    """The JSON text of a reference model's submission on a small-tier cohort, fitted once
    per test session (an mbcnet fit takes about 2 s, and a dozen tests need one)."""
    import json

    from icgbench.models import CohortData, get_model

    def fit(path: Path) -> None:
        data = CohortData.load(variant)
        m = get_model(model)
        m.fit(data)
        path.write_text(json.dumps(m.submission(data)))

    return built_once(f"reference-submissions/{model}__{variant}.json", fit).read_text()


@functools.lru_cache(maxsize=32)
def cohort(variant: str, seed: int = 0, n_subjects: int | None = None) -> Cohort:
    """A cached simulated cohort (tables are immutable Arrow tables)."""
    return simulate(variant, seed, n_subjects=n_subjects)


def require(present: bool, what: str, install_hint: str) -> None:
    """Skip (fail under CI=true) when a system component the test drives is missing."""
    import os

    import pytest

    if present:
        return
    message = f"{what} not found: {install_hint} (make system-deps installs it)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def require_tool(command: str, install_hint: str) -> str:
    """The path of ``command``, or skip (fail under CI=true) saying what to install."""
    import shutil

    path = shutil.which(command)
    require(path is not None, command, install_hint)
    return path


@pytest.fixture(scope="session")
def full_tier_root() -> Path:
    """The repository root with the full tier's files present (built once if missing)."""
    from icgbench.release import freeze
    from icgbench.release.descriptor import load_descriptor
    from icgbench.release.tiers import TIERS

    d = load_descriptor(ROOT / TIERS["full"].descriptor_path)
    if not all((d.base / r.path).is_file() for r in d.resources):
        warnings.warn(f"the full tier was missing: building it into {d.base} (what `make "
                      "full-tier` does before the suite; it installs only matching files)",
                      stacklevel=1)
        freeze.build(TIERS["full"], ROOT, jobs=2)
    return ROOT


@pytest.fixture
def no_board_figures(monkeypatch) -> None:
    """Pages built without the figures drawn from the board: matplotlib takes most of a small
    board's page. For modules that read a page's tables, links and files, never
    its figures (``pytestmark = pytest.mark.usefixtures("no_board_figures")``); the figures
    are drawn and checked in test_figure_colors and test_leaderboard_page."""
    from icgbench.bench import plots, ranking_figures

    monkeypatch.setattr(plots, "board_figures", lambda *args, **kwargs: [])
    monkeypatch.setattr(ranking_figures, "ranking_figures", lambda *args, **kwargs: [])
