#' icgbench: the ICg-Bench synthetic causal benchmark from R
#'
#' ICg-Bench is a causal benchmark for mechanism-aware carcinogenicity models.
#' **Its data are synthetic by construction**: every subject, exposure, latent
#' state and outcome is simulated, and nothing the package reads, writes or
#' prints is a carcinogenicity classification of any real agent or a
#' prediction about real people.
#'
#' The workflow, in the functions' order:
#'
#' * [icg_release()], [icg_cohorts()], [icg_read_table()]: a release tier and
#'   its tables, hash-checked and typed by their Table Schemas;
#' * [icg_submission()], [icg_write_submission()], [icg_read_submission()]:
#'   a submission from data frames, written at full precision;
#' * [icg_validate()]: the published JSON Schemas, checked in V8 by the
#'   validators ajv compiled ahead (the page's code);
#' * [icg_truth()], [icg_score()], [icg_baselines()], [icg_metrics]: the
#'   metrics of the five tasks, ported from the Python scorer;
#' * [icg_conformance()]: the repository's hand-computed fixtures, which the
#'   port reproduces to 1e-9.
#'
#' The repository's docs/r.md walks through it; docs/tasks.md and
#' docs/scoring.md define every metric.
#'
#' @keywords internal
"_PACKAGE"
