"""The package's layers, declared once: which package may import which.

A package may import any package of a layer below its own (and its own modules); an import
upward is allowed only where :data:`UPWARD` names it, module to module, with the reason.
``tests/test_architecture.py`` reads every import of ``src/icgbench`` (at the top of a
module or inside a function) and fails on any other upward import, and on an entry of
:data:`UPWARD` that no longer occurs; docs/architecture.md's diagram is generated from this
module (``make docs``), so it says what the test holds.
"""

from __future__ import annotations

#: Bottom to top: (packages or root modules, what the layer is).
LAYERS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("errors", "_lazy", "io", "scheduling"),
     "the errors a user can cause; lazy exports; the edges (untrusted input, all-or-nothing "
     "writes, progress, Arrow conversions); where parallel work runs"),
    (("contract",), "the public contract: the vocabulary, the JSON and Table Schemas read "
     "from schemas/, `make contract` (contract.build)"),
    (("generator",), "the data-generating process: a cohort's graph, states, omics, outcome"),
    (("tasks",), "the five tasks: the blocks each reads, its metrics, its pure scoring"),
    (("release",), "tiers, descriptors, freezing into Parquet + CSV, sealing, verifying, "
     "downloading"),
    (("scorer",), "one submission: read, check (schema, then the release), align, grade"),
    (("api",), "what a model author calls: tables, loader, template, adapter, evaluator, "
     "the sharded cohort writer"),
    (("models",), "the reference models (registry in models/__init__)"),
    (("model_free",), "the answers without a model, their grading, the floors per variant"),
    (("leaderboard",), "the board: entries, store, history, verify, queue, the site, the "
     "shared submission checker"),
    (("bench",), "runs and sweeps of the references, figures, the board's power, spans, "
     "attacks, docs/baselines.md"),
    (("cli",), "`icgbench`: one module per command group"),
    (("reference",), "docs generated from the code"),
)

#: The imports that go up a layer, importer module -> imported module: why each is there.
UPWARD: dict[tuple[str, str], str] = {
    ("icgbench.contract.build", "icgbench.leaderboard.checker"):
        "make contract writes the checker's facts",
    ("icgbench.contract.build", "icgbench.release.table_schemas"):
        "make contract writes the Table Schemas (release.table_schemas)",
    ("icgbench.contract.json_schemas", "icgbench.generator.mechanism"):
        "the schemas enumerate the graph's nodes",
    ("icgbench.contract.json_schemas", "icgbench.generator.variants"):
        "the schemas enumerate the variants and their hashes",
    ("icgbench.contract.json_schemas", "icgbench.tasks"):
        "the submission schema is made of the task registry's block schemas",
    ("icgbench.contract.json_schemas", "icgbench.release.tiers"):
        "the schemas enumerate the tiers and the data version",
    ("icgbench.generator.reference", "icgbench.release.tiers"):
        "the solved roots are written for the frozen tiers' cohorts",
    ("icgbench.release.freeze", "icgbench.model_free.floors"):
        "freezing chooses each variant's floors from the graded panel",
    ("icgbench.release.freeze", "icgbench.model_free.panel"):
        "freezing grades the model-free panel into model_free_scores",
    ("icgbench.release.sealed", "icgbench.model_free.floors"):
        "a sealed cohort's floors are graded when its truth is regenerated",
    ("icgbench.release.sealed", "icgbench.scorer.truth"):
        "a sealed cohort's regenerated truth is read as the scorer reads a release's",
    ("icgbench.api.adapter", "icgbench.models.base"):
        "the adapter writes a submission from a model fitted on CohortData",
    ("icgbench.api.adapter", "icgbench.models.features"):
        "the adapter builds the models' feature matrix",
    ("icgbench.api.evaluator", "icgbench.models.base"):
        "the evaluator reads the cohort as the models do (CohortData)",
    ("icgbench.api.loader", "icgbench.models.base"):
        "load_xy returns the models' aligned view of a cohort (CohortData)",
    ("icgbench.leaderboard.page", "icgbench.bench.plots"):
        "the page draws the board's figures",
    ("icgbench.leaderboard.page", "icgbench.bench.ranking_figures"):
        "the page draws the ranking figures",
}


def package_of(module: str) -> str | None:
    """The layered package (or root module) of an ``icgbench`` module; None for the
    package root itself and the entry point."""
    parts = module.split(".")
    if parts[0] != "icgbench" or len(parts) == 1 or parts[1] in ("__main__", "__version__"):
        return None
    return parts[1]


def rank() -> dict[str, int]:
    """Each package's layer, 0 at the bottom."""
    return {p: i for i, (packages, _) in enumerate(LAYERS) for p in packages}


def diagram_markdown() -> str:
    """docs/architecture.md's diagram: the layers top to bottom, then the upward imports."""
    lines = ["```text"]
    for i, (packages, role) in enumerate(reversed(LAYERS)):
        names = ", ".join(f"{p}/" if p not in ("errors", "_lazy", "scheduling") else f"{p}.py"
                          for p in packages)
        lines.append(f" {names}")
        lines.append(f"     {role}")
        if i < len(LAYERS) - 1:
            lines.append("       |")
    lines += ["```", "",
              f"Each layer imports only the layers below it, except these {len(UPWARD)} "
              "imports, each named module to module (`src/icgbench/reference/layers.py`; "
              "`tests/test_architecture.py` fails on any other):", "",
              "| module | imports | why |", "| --- | --- | --- |"]
    lines += [f"| `{a}` | `{b}` | {why} |" for (a, b), why in UPWARD.items()]
    return "\n".join(lines)
