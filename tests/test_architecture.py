"""The package's map (docs/architecture.md): a root a newcomer can read, and no import
cycle anywhere (a module that imports another, directly or through others, is never
imported back by it)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "icgbench"
#: What may sit at the root beside the packages: the user API's lazy exports, the entry
#: point, the errors every layer raises, where parallel work runs, and the lazy loader.
ROOT_MODULES = {"__init__", "__main__", "_lazy", "errors", "scheduling"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Every icgbench module ``name`` imports, at the top or inside a function."""
    out = set()
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            for alias in node.names:
                out.add(f"{module}.{alias.name}" if f"{module}.{alias.name}" in known
                        else module)
    return {m for m in out if m in known and m != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_one_that_imports_it_back():
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    assert sum(map(len, graph.values())) > 300  # the graph was read
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_root_holds_packages_and_a_few_named_modules():
    loose = {p.stem for p in PACKAGE.glob("*.py")}
    assert loose == ROOT_MODULES
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert {"api", "contract", "io", "generator", "release", "tasks", "scorer", "models",
            "bench", "leaderboard", "cli"} <= packages


def test_the_package_exports_the_user_api_and_loads_nothing_heavy():
    import subprocess
    import sys

    code = ("import sys, icgbench; heavy = {'numpy', 'pyarrow', 'pandas', 'jsonschema'}; "
            "print(sorted(heavy & set(sys.modules)), sorted(icgbench.__all__))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("[] ")
    for name in ("load_table", "list_tables", "build_template", "validate", "score"):
        assert name in out


def test_the_simulator_simulates_and_never_grades():
    """Nothing under generator/ imports the scorer, the tasks or the model-free panel (at
    the top or inside a function): the release step grades the panel, the generator only
    writes the DGP's tables."""
    modules = _modules()
    known = set(modules)
    forbidden = ("icgbench.scorer", "icgbench.tasks", "icgbench.model_free")
    for name, path in modules.items():
        if name.startswith("icgbench.generator"):
            bad = {m for m in _imports(name, path, known) if m.startswith(forbidden)}
            assert not bad, (name, bad)


def test_the_import_scan_would_see_a_graded_generator(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("def f():\n    from icgbench.tasks import TASKS\n")
    assert "icgbench.tasks" in _imports("icgbench.generator.mod", path,
                                        {"icgbench.tasks", "icgbench.generator.mod"})


def _package_imports() -> set[tuple[str, str]]:
    """Every (importer, imported) pair of modules in different packages."""
    from icgbench.reference.layers import package_of

    modules = _modules()
    known = set(modules)
    return {(name, m) for name, path in modules.items() for m in _imports(name, path, known)
            if package_of(name) and package_of(m) and package_of(name) != package_of(m)}


def test_every_package_imports_only_the_layers_below_it_but_the_declared_few():
    """The layers of docs/architecture.md, as src/icgbench/reference/layers.py declares
    them: an import up a layer fails unless it is named there, and a named one that no
    longer occurs must go (so the diagram's list is exactly the code's)."""
    from icgbench.reference.layers import UPWARD, package_of, rank

    layer = rank()
    pairs = _package_imports()
    assert len(pairs) > 150  # the graph was read
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages | {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"} == set(
        layer), "every package and root module has a layer"
    upward = {(a, b) for a, b in pairs if layer[package_of(b)] > layer[package_of(a)]}
    assert upward - set(UPWARD) == set(), "an import up a layer: declare it in layers.UPWARD"
    assert set(UPWARD) - upward == set(), "a declared upward import no longer occurs"


def test_the_layer_check_catches_an_import_up_a_layer():
    from icgbench.reference.layers import package_of, rank

    layer = rank()
    assert layer[package_of("icgbench.scorer.pipeline")] < layer[package_of(
        "icgbench.bench.sweep")]
    assert layer[package_of("icgbench.io.atomic")] == layer[package_of("icgbench.errors")]
