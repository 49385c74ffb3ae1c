"""The R package (r/): its testthat suite, and agreement with the Python scorer and validator.

The package is installed into a temporary library; its tests read the repository's release,
fixtures and schemas through ICGBENCH_ROOT. The R validator (ajv in V8) must give the
Python validator's verdict on the schema layer, and the R metrics the Python scorer's on a
reference model's submissions for real small-tier cohorts.
"""

from __future__ import annotations

import copy
import filecmp
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import reference_submission, require, require_tool
from leaderboard_helpers import submission_doc

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "r"
R_PACKAGES = ("jsonlite", "digest", "testthat")
HINT = "install r-base-core, r-cran-jsonlite, r-cran-digest and r-cran-testthat"
V8_HINT = ("install r-cran-v8 (where Node.js is not Debian's: ICGBENCH_REPLACE_SYSTEM_PACKAGES=1 "
           "make system-deps, or CRAN's V8, docs/r.md)")
TOLERANCE = 1e-9


def _r_has(rscript: str, package: str) -> bool:
    code = f"quit(status = !requireNamespace('{package}', quietly = TRUE))"
    return subprocess.run([rscript, "-e", code], capture_output=True, check=False).returncode == 0


def _env(library: Path | None = None) -> dict[str, str]:
    env = {**os.environ, "ICGBENCH_ROOT": str(ROOT)}
    if library is not None:
        env["R_LIBS"] = os.pathsep.join(filter(None, [str(library), os.environ.get("R_LIBS")]))
    return env


def _run(command: list[str], cwd: Path | None = None, library: Path | None = None,
         timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=_env(library), capture_output=True, text=True,
                          check=False, timeout=timeout)


@pytest.fixture(scope="module")
def rscript() -> str:
    path = require_tool("Rscript", HINT)
    for package in R_PACKAGES:
        require(_r_has(path, package), f"R package {package}", HINT)
    return path


@pytest.fixture(scope="module")
def v8(rscript) -> None:
    """V8 is installed: what validates or reads gzip needs it (the rest of the package not)."""
    require(_r_has(rscript, "V8"), "R package V8", V8_HINT)


def test_the_r_package_copies_its_contract_from_the_one_source(rscript, library):
    """R CMD INSTALL runs r/configure, which copies the schemas, the checker's code and its
    facts from where they live (schemas/; checker_core.js from the Python package's
    templates): the installed package holds them byte for byte."""
    installed = library / "icgbench"
    pairs = [(ROOT / "schemas" / p.name, installed / "schemas" / p.name)
             for p in (ROOT / "schemas").glob("*.schema.json")]
    pairs += [(ROOT / "schemas" / "checker" / "facts.json", installed / "checker" / "facts.json")]
    pairs += [(ROOT / "src/icgbench/leaderboard/templates/checker_core.js",
               installed / "checker" / "checker_core.js")]
    pairs += [(p, installed / "checker" / p.name) for p in (ROOT / "schemas/checker").glob(
        "*_schema.js")]
    assert len(pairs) == 8
    assert not (installed / "js" / "ajv7.bundle.js").exists()  # one validator: no ajv at run time
    for source, shipped in pairs:
        assert shipped.read_bytes() == source.read_bytes(), shipped
    tracked = subprocess.run(["git", "ls-files", "r/inst/schemas", "r/inst/checker"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    assert tracked == ""  # no committed copy to drift


@pytest.fixture(scope="module")
def library(rscript, tmp_path_factory) -> Path:
    """A temporary R library holding the package, installed from r/ (not byte-compiled and
    not staged, which halves the 4 s install; R CMD check in make test-slow does both)."""
    lib = tmp_path_factory.mktemp("r-library")
    result = _run([str(Path(rscript).with_name("R")), "CMD", "INSTALL", "--no-test-load",
                   "--no-docs", "--no-html", "--no-byte-compile", "--no-staged-install",
                   "-l", str(lib), str(PACKAGE)], cwd=lib)
    assert result.returncode == 0, result.stdout + result.stderr
    return lib


def _r(rscript: str, library: Path, script: str, *args: str,
       timeout: int = 300) -> subprocess.CompletedProcess:
    result = _run([rscript, "-e", script, *args], library=library, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.mark.slow
def test_the_testthat_suite_passes(rscript, library):
    script = ("testthat::test_dir(commandArgs(TRUE)[1], package = 'icgbench', "
              "load_package = 'installed', stop_on_failure = TRUE, "
              "reporter = testthat::CheckReporter$new())")
    result = _r(rscript, library, script, str(PACKAGE / "tests" / "testthat"))
    assert "[ FAIL 0 |" in result.stdout, result.stdout


# --- the validators agree -------------------------------------------------------------------

def _documents(folder: Path) -> dict[Path, str]:
    """Every conformance fixture and schema example; each fixture's blocks under a valid
    header; the broken submissions of the ajv test. Path -> label."""
    from scoring_helpers import template
    from test_schemas_ajv import _broken_submissions

    docs: dict[Path, str] = {}
    for path in sorted((ROOT / "schemas" / "conformance").glob("*.json")):
        if "blocks" not in json.loads(path.read_text()):
            continue  # a fixture of the rules over cohorts: no submission in it
        docs[path] = f"fixture {path.stem}"
        header = {k: v for k, v in template().items() if not isinstance(v, dict) or k == "model"}
        wrapped = folder / f"wrapped_{path.stem}.json"
        wrapped.write_text(json.dumps({**header, **json.loads(path.read_text())["blocks"]}))
        docs[wrapped] = f"blocks of {path.stem} under a header"
    for path in sorted((ROOT / "schemas" / "examples").glob("*.json")):
        docs[path] = f"example {path.stem}"
    for i, (label, doc) in enumerate(_broken_submissions()):
        path = folder / f"broken_{i:02d}.json"
        path.write_text(json.dumps(doc))
        docs[path] = f"submission: {label}"
    return docs


def _python_verdict(path: Path) -> tuple[bool, str]:
    """icgbench's own verdict (R checks the same layers, against the same release)."""
    from icgbench.scorer import SubmissionInvalid, check_submission

    try:
        check_submission(path)
    except SubmissionInvalid as exc:
        return False, f"{exc.stage}: {exc.errors[:2]}"
    return True, "valid"


@pytest.mark.slow  # a corpus campaign through R (tens of seconds)
def test_r_and_python_validators_agree_on_fixtures_examples_and_broken_submissions(
        rscript, v8, library, tmp_path):
    documents = _documents(tmp_path)
    listing = tmp_path / "documents.txt"
    listing.write_text("\n".join(map(str, documents)) + "\n")
    script = """
library(icgbench)
paths <- readLines(commandArgs(TRUE)[1])
cat(vapply(paths, function(p) if (icg_validate(p)$valid) "valid" else "invalid", ""), sep = "\\n")
"""
    verdicts = _r(rscript, library, script, str(listing)).stdout.split()
    assert len(verdicts) == len(documents)
    disagreements = []
    for (path, label), r_verdict in zip(documents.items(), verdicts, strict=True):
        python_valid, why = _python_verdict(path)
        if python_valid != (r_verdict == "valid"):
            disagreements.append(f"{label}: R {r_verdict}, Python {why}")
    assert disagreements == []
    assert verdicts.count("valid") >= 6  # the example, the wrapped fixtures, the valid cases


def test_r_validates_each_schema_example_as_python_does(rscript, v8, library):
    from icgbench import contract
    from icgbench.scorer.schema_check import schema_errors

    names = ("submission", "score-report", "leaderboard-entry")
    script = """
library(icgbench)
root <- Sys.getenv("ICGBENCH_ROOT")
for (doc in commandArgs(TRUE)) for (schema in commandArgs(TRUE)) {
  path <- file.path(root, "schemas", "examples", paste0(doc, ".json"))
  v <- icg_validate(path, schema)  # the schema layer: a semantic refusal is past it
  cat(doc, schema, v$valid || identical(v$stage, "semantic"), "\\n")
}
"""
    lines = _r(rscript, library, script, *names).stdout.splitlines()
    assert len(lines) == 9
    for line in lines:
        doc, schema, valid = line.split()
        example = json.loads((ROOT / "schemas" / "examples" / f"{doc}.json").read_text())
        python = schema_errors(copy.deepcopy(example), contract.json_schema(schema))[1] == 0
        assert (valid == "TRUE") == python == (doc == schema), line


#: Two mistakes as R users make them: jsonlite's defaults (every scalar boxed) and
#: link-scale predictions (log-odds written as probabilities).
R_MISTAKES = """
library(icgbench)
out <- commandArgs(TRUE)
release <- icg_release(Sys.getenv("ICGBENCH_ROOT"))
truth <- icg_truth(release, "linear_lowhet")
sub <- icg_submission(release, "linear_lowhet",
  model = list(name = "glm", version = "0.1", language = "R"),
  risk_prediction = data.frame(subject_id = truth$ids$test, proba = 0.3))
jsonlite::write_json(sub, out[1])
sub$risk_prediction$proba <- stats::qlogis(seq(0.05, 0.95, length.out = length(truth$ids$test)))
jsonlite::write_json(sub, out[2], auto_unbox = TRUE, digits = NA)
"""

CORPUS_SCRIPT = """
library(icgbench)
args <- commandArgs(TRUE)
release <- icg_release(Sys.getenv("ICGBENCH_ROOT"))
truth <- icg_truth(release, "linear_lowhet")
paths <- readLines(args[1])
out <- lapply(paths, function(p) {
  v <- icg_validate(p, release = release)
  scored <- tryCatch({ icg_score(p, truth); "scored" },
                     icg_invalid = function(e) paste("invalid", e$verdict$stage),
                     error = function(e) paste("R error:", conditionMessage(e)))
  list(file = basename(p), valid = v$valid, stage = if (v$valid) NULL else v$stage,
       count = v$count, errors = I(v$errors), scored = scored)
})
writeLines(jsonlite::toJSON(out, auto_unbox = TRUE, null = "null"), args[2])
"""


@pytest.mark.slow  # a corpus campaign through R (tens of seconds)
def test_r_and_python_say_the_same_thing_about_every_file_of_the_corpus(rscript, v8, library,
                                                                          tmp_path):
    """icg_validate and `icgbench validate` give the same verdict, stage, count and
    messages (hints included) for each typical mistake; icg_score grades exactly the files
    both accept and stops on the others with an icg_invalid condition, never an R error."""
    from check_corpus import write_corpus

    files = write_corpus(tmp_path / "corpus")
    r_written = [tmp_path / "corpus" / f"r_{name}.json" for name in ("jsonlite_defaults",
                                                                      "link_scale")]
    _r(rscript, library, R_MISTAKES, *map(str, r_written))
    files += r_written
    done = subprocess.run([str(Path(sys.executable).parent / "icgbench"), "validate", "--json",
                           *map(str, files)], capture_output=True, text=True, timeout=300,
                          env=_env(), check=False)
    python = {Path(v["file"]).name: v for v in json.loads(done.stdout)}
    listing, found = tmp_path / "files.txt", tmp_path / "r.json"
    listing.write_text("\n".join(map(str, files)) + "\n")
    _r(rscript, library, CORPUS_SCRIPT, str(listing), str(found))
    r = {v["file"]: v for v in json.loads(found.read_text())}
    assert len(r) == len(files) >= 70
    disagree = []
    for name, want in python.items():
        got = r[name]
        mine = (got["valid"], got.get("stage"), got["count"], list(got["errors"]))
        theirs = (want["valid"], want["stage"], want["count"], want["errors"])
        if want["stage"] == "usage":  # no such tier here: each says where it looked
            mine, theirs = mine[:3], theirs[:3]
        if mine != theirs:
            disagree.append((name, mine, theirs))
        if got["scored"].startswith("R error"):
            disagree.append((name, got["scored"]))
        elif want["valid"] != (got["scored"] == "scored"):
            disagree.append((name, "icg_score", got["scored"], want["valid"]))
    from icgbench.cli import main

    for path in files:  # icgbench score refuses exactly what icgbench validate refuses
        graded = main(["score", str(path), "--out", str(tmp_path / "report.json")]) == 0
        if graded != python[path.name]["valid"]:
            disagree.append((path.name, "icgbench score", graded))
    assert not disagree, "\n".join(map(repr, disagree))
    hints = [n for n, v in python.items() if any("unbox" in e or "columnar" in e
                                                  for e in v["errors"])]
    assert len(hints) >= 3  # the hints are part of what is compared


#: What R may spend refusing a file Python refuses (issue 38: V8 died at 1.95 GB after 83 s).
R_MEMORY_BOUND = 1024**3


@pytest.mark.slow
def test_r_refuses_millions_of_wrong_types_within_a_bounded_memory(rscript, v8, library,
                                                                   tmp_path):
    """A 50 KB gzip of 2.5 million wrong-typed probabilities: icg_validate gives Python's
    verdict and count (the checker counts long arrays in one loop before ajv) and its
    process never holds more than 1 GB."""
    doc = submission_doc("mbcnet_v0_1", "linear_lowhet")
    doc["risk_prediction"]["proba"] = ["a"] * 2_500_000
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(json.dumps(doc).encode(), mtime=0))
    assert bomb.stat().st_size < 64 * 1024
    script = ("v <- icgbench::icg_validate(commandArgs(TRUE)[1]); "
              "cat(v$stage, v$count, v$errors[1], sep = '\\n')")
    measure = ("import resource, subprocess, sys; "
               "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "sys.stdout.write(done.stdout + done.stderr); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)")
    done = _run([sys.executable, "-c", measure, rscript, "-e", script, str(bomb)],
                library=library, timeout=600)
    *lines, peak = done.stdout.strip().splitlines()
    assert lines == ["schema", "2500000", '/risk_prediction/proba/0: "a" is not of type number']
    assert int(peak) < R_MEMORY_BOUND, f"R held {int(peak) / 1024**2:.0f} MB"


# --- the metrics agree ----------------------------------------------------------------------

#: The floor (every block, structure included) and the mechanism model (four blocks).
COHORTS = (("partial_observability", "random"), ("misspecified_signs", "mbcnet_sign_constrained"))

SCORE_SCRIPT = """
library(icgbench)
args <- commandArgs(TRUE)
release <- icg_release(Sys.getenv("ICGBENCH_ROOT"))
num <- function(x) if (is.null(x) || is.na(x)) "NA" else sprintf("%.17g", x)
for (i in seq(1, length(args), by = 2)) {
  variant <- args[i]
  score <- icg_score(args[i + 1], icg_truth(release, variant))
  for (task in names(score$tasks)) {
    result <- score$tasks[[task]]
    for (m in names(result$metrics)) cat(variant, task, m, num(result$metrics[[m]]), "\\n")
    for (m in names(result$random_baseline)) {
      cat(variant, task, paste0("baseline:", m), num(result$random_baseline[[m]]), "\\n")
    }
    if (task == "structure_recovery") {
      cat(variant, task, "detail:best_k_in_sample", num(result$details$best_k_in_sample), "\\n")
    }
  }
  for (m in names(score$summary)) {
    if (m == "normalized") {
      for (c in names(score$summary$normalized)) {
        cat(variant, "summary", paste0("normalized:", c), num(score$summary$normalized[[c]]),
            "\\n")
      }
    } else if (m == "parts") {
      for (task in names(score$summary$parts)) {
        for (metric in names(score$summary$parts[[task]])) {
          part <- score$summary$parts[[task]][[metric]]
          for (field in c("floor", "ceiling", "normalized")) {
            cat(variant, task, paste0(field, ":", metric), num(part[[field]]), "\\n")
          }
          cat(variant, task, paste0("floor_answer:", metric), part$floor_answer, "\\n")
        }
      }
    } else {
      cat(variant, "summary", m, num(score$summary[[m]]), "\\n")
    }
  }
}
"""


def _python_values(report: dict) -> dict[tuple[str, str], float | None]:
    values: dict[tuple[str, str], float | None] = {}
    for task, result in report["tasks"].items():
        values.update({(task, m): v for m, v in result["metrics"].items()})
        values.update({(task, f"baseline:{m}"): info["random_baseline"]
                       for m, info in report["metric_info"][task].items()})
        if task == "structure_recovery":
            values[(task, "detail:best_k_in_sample")] = result["details"]["best_k_in_sample"]
        for metric, part in result["normalized"]["parts"].items():
            for field in ("floor", "ceiling", "normalized", "floor_answer"):
                values[(task, f"{field}:{metric}")] = part[field]
    values.update({("summary", m): v for m, v in report["summary"].items()
                   if not m.endswith("_note") and m != "normalized"})
    values.update({("summary", f"normalized:{c}"): v
                   for c, v in report["summary"]["normalized"].items()})
    return values


def _close(a: float | str | None, b: float | str | None) -> bool:
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def test_r_metrics_equal_the_python_scorer_on_reference_submissions(rscript, v8, library,
                                                                    tmp_path):
    """Reference models' submissions for real small-tier cohorts, graded by both scorers."""
    from icgbench.scorer import score

    reports = {}
    for variant, model in COHORTS:
        text = reference_submission(model, variant)
        (tmp_path / f"{variant}.json").write_text(text)
        reports[variant] = score(text.encode()).document
    args = [str(x) for variant, _ in COHORTS for x in (variant, tmp_path / f"{variant}.json")]
    lines = _r(rscript, library, SCORE_SCRIPT, *args).stdout.splitlines()
    r_values: dict[tuple[str, str, str], float | str | None] = {}
    for line in lines:
        variant, task, metric, value = line.split()
        r_values[(variant, task, metric)] = (None if value == "NA" else value
                                             if metric.startswith("floor_answer:")
                                             else float(value))
    for variant, _ in COHORTS:
        python = _python_values(reports[variant])
        mine = {k[1:]: v for k, v in r_values.items() if k[0] == variant}
        assert set(mine) == set(python), (variant, set(mine) ^ set(python))
        differ = [f"{task}.{metric}: R {mine[(task, metric)]}, Python {value}"
                  for (task, metric), value in python.items()
                  if not _close(mine[(task, metric)], value)]
        assert differ == [], variant
    assert len(r_values) > 120


def test_r_reads_tables_exactly_as_pyarrow_does(rscript, library):
    """Every value of three public tables (booleans, nullable integers, masked numbers)."""
    from icgbench import contract
    from icgbench.api.tables import load_arrow

    variant = "partial_observability"
    tables = ("subjects", "masks", "observations")
    script = """
library(icgbench)
release <- icg_release(Sys.getenv("ICGBENCH_ROOT"))
out <- lapply(commandArgs(TRUE)[-1], function(name) {
  table <- icg_read_table(release, name, commandArgs(TRUE)[1])
  lapply(table, function(x) list(type = typeof(x),
                                 values = if (is.double(x)) sprintf("%.17g", x) else x))
})
cat(jsonlite::toJSON(out, auto_unbox = TRUE, na = "null"))
"""
    tables_r = json.loads(_r(rscript, library, script, variant, *tables).stdout)
    kinds = {"string": "character", "integer": "integer", "number": "double",
             "boolean": "logical"}
    for name, columns in zip(tables, tables_r, strict=True):
        arrow = load_arrow(variant, name)
        fields = contract.table_schema(name)["fields"]
        assert list(columns) == [f["name"] for f in fields] == arrow.column_names
        for field in fields:
            column = columns[field["name"]]
            assert column["type"] == kinds[field["type"]], (name, field["name"])
            expected = arrow[field["name"]].to_pylist()
            values = column["values"]
            if field["type"] == "number":
                values = [None if v == "NA" else float(v) for v in values]
            assert values == expected, (name, field["name"])


# --- generated files and R CMD check --------------------------------------------------------

@pytest.mark.slow
def test_roxygen_namespace_and_man_are_up_to_date(rscript, tmp_path):
    require(_r_has(rscript, "roxygen2"), "R package roxygen2", "install r-cran-roxygen2")
    copy_dir = tmp_path / "r"
    shutil.copytree(PACKAGE, copy_dir)
    shutil.rmtree(copy_dir / "man")
    (copy_dir / "NAMESPACE").unlink()
    result = _run([rscript, "-e", "roxygen2::roxygenise(commandArgs(TRUE)[1])", str(copy_dir)])
    assert result.returncode == 0, result.stdout + result.stderr
    generated = sorted(p.name for p in (copy_dir / "man").iterdir())
    assert generated == sorted(p.name for p in (PACKAGE / "man").iterdir())
    stale = [name for name in ["NAMESPACE", "DESCRIPTION", *[f"man/{g}" for g in generated]]
             if not filecmp.cmp(copy_dir / name, PACKAGE / name, shallow=False)]
    assert stale == [], "run Rscript -e 'roxygen2::roxygenise(\"r\")' and commit the result"


@pytest.mark.slow
def test_r_cmd_check_passes_without_errors_or_warnings(rscript, v8, tmp_path):
    r = str(Path(rscript).with_name("R"))
    staged = _run(["sh", "configure"], cwd=PACKAGE)  # the copies R CMD build must ship
    assert staged.returncode == 0, staged.stderr
    build = _run([r, "CMD", "build", "--no-manual", str(PACKAGE)], cwd=tmp_path)
    assert build.returncode == 0, build.stdout + build.stderr
    (tarball,) = tmp_path.glob("icgbench_*.tar.gz")
    env_check = {"_R_CHECK_FORCE_SUGGESTS_": "false"}
    check = subprocess.run([r, "CMD", "check", "--no-manual", tarball.name], cwd=tmp_path,
                           env={**_env(), **env_check}, capture_output=True, text=True,
                           check=False, timeout=900)
    output = check.stdout + check.stderr
    assert check.returncode == 0, output
    assert "ERROR" not in output and "WARNING" not in output, output
    assert "Status: OK" in output or "NOTE" in output, output


BOARD_SCRIPT = """
library(icgbench)
args <- commandArgs(TRUE)
release <- icg_release(Sys.getenv("ICGBENCH_ROOT"), "full")
jobs <- utils::read.csv(args[1], colClasses = "character")
num <- function(x) if (is.null(x) || is.na(x)) "NA" else sprintf("%.17g", x)
truths <- list()
for (i in seq_len(nrow(jobs))) {
  job <- jobs[i, ]
  cohort <- paste(job$variant, job$seed)
  if (is.null(truths[[cohort]])) {
    truths[[cohort]] <- icg_truth(release, job$variant, as.integer(job$seed))
  }
  k <- if (nzchar(job$k)) as.integer(job$k) else NULL
  score <- icg_score(job$path, truths[[cohort]], structure_k = k)
  for (task in names(score$tasks)) {
    metrics <- score$tasks[[task]]$metrics
    for (m in names(metrics)) cat(job$entry, task, m, num(metrics[[m]]), "\\n")
    parts <- score$summary$parts[[task]]
    for (m in names(parts)) {
      cat(job$entry, task, paste0(m, "__floor"), num(parts[[m]]$floor), "\\n")
      cat(job$entry, task, paste0(m, "__ceiling"), num(parts[[m]]$ceiling), "\\n")
    }
  }
  cat(job$entry, "summary composite", num(score$summary$composite), "\\n")
  cat(job$entry, "summary overall", num(score$summary$overall), "\\n")
  for (c in names(score$summary$normalized)) {
    cat(job$entry, "summary", paste0("normalized_", c), num(score$summary$normalized[[c]]),
        "\\n")
  }
}
"""


#: Seeds per variant whose every entry R re-grades, beside the calibration cohort: R grades
#: one submission at a time (270 files took over 300 s here), so the whole board (5,040)
#: would take over 90 minutes.
R_SEEDS_PER_VARIANT = 2


def _r_sample(entries: list, calibration: tuple[str, int]) -> list:
    """Every entry on the calibration cohort and on ``R_SEEDS_PER_VARIANT`` seeds of each
    variant drawn from a SeedSequence (the same draw every run), every model on them."""
    import numpy as np

    seeds: dict[str, list[int]] = {}
    for e in entries:
        seeds.setdefault(e.variant_name, [])
        if e.seed not in seeds[e.variant_name]:
            seeds[e.variant_name].append(e.seed)
    rng = np.random.default_rng(np.random.SeedSequence(20261202))
    chosen = {calibration}
    for variant, found in sorted(seeds.items()):
        for seed in rng.choice(sorted(found), R_SEEDS_PER_VARIANT, replace=False):
            chosen.add((variant, int(seed)))
    return [e for e in entries if (e.variant_name, e.seed) in chosen]


@pytest.mark.slow
def test_r_regrades_a_sample_of_the_committed_board_exactly(rscript, v8, library, tmp_path,
                                                             full_tier_root):
    """Each sampled entry's stored submission, graded by the R package against the full
    tier (at the structure K* its calibration entry fixed), gives the recorded scores to
    1e-12: every model on the calibration cohort and two seeds of each variant."""
    from icgbench.api.tables import tier_descriptor
    from icgbench.leaderboard.board import known_k
    from icgbench.leaderboard.store import load_board

    board = load_board(ROOT / "leaderboard", new_tier=None).entries
    known = known_k(board)
    calibration = tier_descriptor("full").calibration_cohort
    entries = _r_sample(board, calibration)
    jobs = tmp_path / "jobs.csv"
    with jobs.open("w") as out:
        out.write("entry,path,variant,seed,k\n")
        for i, e in enumerate(entries):
            k = "" if (e.variant_name, e.seed) == calibration or "structure_recovery" not in \
                e.scores else str(known[(e.model_name, e.package_version, *calibration)])
            out.write(f"{i},{ROOT / 'leaderboard' / e.submission_path},{e.variant_name},"
                      f"{e.seed},{k}\n")
    # a hang guard, not a time target: 270 files on a loaded 2-core machine took over 300 s
    lines = _r(rscript, library, BOARD_SCRIPT, str(jobs), timeout=1800).stdout.splitlines()
    found = {}
    for line in lines:
        entry, task, metric, value = line.split()
        found[(int(entry), task, metric)] = None if value == "NA" else float(value)
    largest, compared, differ = 0.0, 0, []
    for i, e in enumerate(entries):
        for task, metrics in e.scores.items():
            for metric, recorded in metrics.items():
                mine = found.get((i, task, metric), "missing")
                compared += 1
                if recorded is None or mine is None or mine == "missing":
                    if mine != recorded:
                        differ.append(f"{e.label} {task}.{metric}: R {mine}, board {recorded}")
                    continue
                largest = max(largest, abs(mine - recorded))
                if abs(mine - recorded) > 1e-12:
                    differ.append(f"{e.label} {task}.{metric}: R {mine!r}, board {recorded!r}")
    print(f"R re-graded {len(entries)} entries, {compared} recorded scores; largest absolute "
          f"difference {largest:.3g}")
    assert differ == []
    models, variants = {e.model_name for e in board}, {e.variant_name for e in board}
    assert len(entries) == len(models) * (1 + R_SEEDS_PER_VARIANT * len(variants))
    documented = " ".join((ROOT / "docs" / "r.md").read_text().split())
    assert f"({len(entries)} of the {len(board):,} entries;" in documented
    assert compared > 2000


# --- docs/r.md runs as written ------------------------------------------------------------

#: A doc output line standing for lines left out (``#>   ... (four more ...)``).
ELISION = re.compile(r"^\s*\.\.\. \((?!\d).*\)$")


def _doc_blocks(text: str) -> list[str]:
    return re.findall(r"^```r\n(.*?)^```", text, re.S | re.M)


def _runnable(blocks: list[str]) -> tuple[str, list[list[str]]]:
    """The doc's R code with a marker printed before each statement whose output the doc
    shows (its ``#>`` lines), and those lines."""
    script, shown = ["options(width = 200)"], []
    for block in blocks:
        lines = block.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("#>"):
                continue
            following = []
            for later in lines[i + 1:]:
                if not later.startswith("#>"):
                    break
                following.append(later[3:] if later.startswith("#> ") else later[2:])
            if following:
                script.append(f'cat("@@@{len(shown)}\\n")')
                shown.append(following)
                script.append(f"local({{.v <- withVisible({line.split('  #')[0]}); "
                              "if (.v$visible) print(.v$value)})")
                script.append('cat("@@@end\\n")')
            else:
                script.append(line)
    return "\n".join(script), shown


def _matches(doc: list[str], got: list[str]) -> bool:
    """``got`` as the doc shows it: each line equal (trailing spaces aside), an elision
    line standing for one or more lines."""
    if not doc:
        return not got
    if ELISION.match(doc[0]):
        return any(_matches(doc[1:], got[k:]) for k in range(1, len(got) + 1))
    return bool(got) and got[0].rstrip() == doc[0].rstrip() and _matches(doc[1:], got[1:])


@pytest.mark.slow
def test_the_r_guide_prints_what_it_says(rscript, v8, library, tmp_path):
    """Every R block of docs/r.md runs in order from the repository's root; each output the
    guide shows (``#>``) is what R prints, and the AUROC it states is the package's."""
    text = (ROOT / "docs" / "r.md").read_text()
    script, shown = _runnable(_doc_blocks(text))
    path = tmp_path / "guide.R"
    path.write_text(script)
    try:
        done = _run([rscript, str(path)], cwd=ROOT, library=library, timeout=600)
    finally:
        for name in ("r_glm.json.gz", "defaults.json"):  # what the guide writes
            (ROOT / name).unlink(missing_ok=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    outputs = re.findall(r"^@@@(\d+)\n(.*?)^@@@end$", done.stdout, re.S | re.M)
    assert len(outputs) == len(shown)
    wrong = [(shown[int(k)], got.splitlines()) for k, got in outputs
             if not _matches(shown[int(k)], got.splitlines())]
    assert not wrong, "\n".join(map(repr, wrong))
    stated = re.search(r"metrics\$auroc\s+# ([0-9.]+)", text)
    assert stated and f"all.equal(score$tasks$risk_prediction$metrics$auroc, {stated[1]}" in text


# --- without V8 -----------------------------------------------------------------------------

def _site_libraries(rscript: str) -> list[Path]:
    found = subprocess.run([rscript, "-e", "cat(.libPaths(), .Library, sep = '\\n')"],
                           capture_output=True, text=True, check=True).stdout.split()
    paths = [Path(p) for p in found]
    return [p for p in paths[:-1] if p != paths[-1]]  # every library but R's own


@pytest.fixture(scope="module")
def without_v8(rscript, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """An R whose libraries hold every installed package but V8 (a site library of links),
    and the package installed into it there: the machine of a user whose Node.js is not
    Debian's, where r-cran-v8 cannot install."""
    site = tmp_path_factory.mktemp("site-without-v8")
    for library in _site_libraries(rscript):
        for package in library.iterdir():
            if package.name != "V8" and not (site / package.name).exists():
                (site / package.name).symlink_to(package)
    lib = tmp_path_factory.mktemp("r-library-without-v8")
    env = {**os.environ, "ICGBENCH_ROOT": str(ROOT), "ICGBENCH_RELEASE": str(ROOT),
           "R_LIBS_SITE": str(site), "R_LIBS_USER": str(lib), "R_LIBS": str(lib)}
    probe = subprocess.run([rscript, "-e", "quit(status = requireNamespace('V8', quietly = "
                            "TRUE))"], env=env, capture_output=True, check=False)
    assert probe.returncode == 0, "V8 is still reachable"
    installed = subprocess.run([str(Path(rscript).with_name("R")), "CMD", "INSTALL",
                                "--no-test-load", "--no-docs", "--no-html", "-l", str(lib),
                                str(PACKAGE)], env=env, cwd=lib, capture_output=True,
                               text=True, check=False, timeout=600)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return lib, env


def _quickstart_r_blocks() -> list[str]:
    import re

    page = (ROOT / "docs" / "quickstart.md").read_text()
    section = page.split("## In R", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```r\n(.*?)```", section, re.S)


@pytest.mark.slow
def test_without_v8_the_quickstart_reads_fits_writes_and_scores(rscript, without_v8, v8,
                                                                library, tmp_path):
    """R CMD INSTALL needs no V8; the quickstart's R model is read, fitted, written and
    scored there, and validating says in one line how to do it instead."""
    _, env = without_v8
    fit = _quickstart_r_blocks()[0]
    check = """
library(icgbench)
release <- icg_release()
score <- icg_score("r_model/linear_lowhet__seed0.json", icg_truth(release, "linear_lowhet"))
cat("overall", score$summary$overall, "\\n")
tryCatch(icg_validate("r_model/linear_lowhet__seed0.json"),
         error = function(e) cat("refused:", conditionMessage(e), "\\n"))
"""
    ran = subprocess.run([rscript, "-e", fit + check], env=env, cwd=tmp_path,
                         capture_output=True, text=True, check=False, timeout=600)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "V8 is not installed, so submissions are not validated here" in ran.stderr
    overall = float(ran.stdout.split("overall", 1)[1].split()[0])
    with_v8 = subprocess.run([rscript, "-e", fit.replace('dir.create("r_model")', "") + check],
                             env=_env(library), cwd=tmp_path, capture_output=True, text=True,
                             check=False, timeout=600)
    assert with_v8.returncode == 0, with_v8.stderr
    assert overall == float(with_v8.stdout.split("overall", 1)[1].split()[0]) > 0
    refused = [line for line in ran.stdout.splitlines() if line.startswith("refused:")]
    assert len(refused) == 1 and "validating a submission needs the R package V8" in \
        refused[0] and "icgbench validate FILE" in refused[0]


@pytest.mark.slow
def test_without_v8_the_testthat_suite_passes_skipping_only_what_needs_it(rscript,
                                                                          without_v8):
    _, env = without_v8
    script = ("testthat::test_dir(commandArgs(TRUE)[1], package = 'icgbench', "
              "load_package = 'installed', stop_on_failure = TRUE, "
              "reporter = testthat::CheckReporter$new())")
    ran = subprocess.run([rscript, "-e", script, str(PACKAGE / "tests" / "testthat")],
                         env=env, capture_output=True, text=True, check=False, timeout=900)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "[ FAIL 0 |" in ran.stdout, ran.stdout
    skipped = int(ran.stdout.split("| SKIP ", 1)[1].split()[0])
    assert skipped > 0 and "V8" in ran.stdout, ran.stdout
