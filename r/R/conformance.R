#' The conformance tolerance
#'
#' Two values agree when `|a - b| <= max(1e-9 * max(|a|, |b|), 1e-9)` (Python's
#' `math.isclose(a, b, rel_tol = 1e-9, abs_tol = 1e-9)`, the tolerance of
#' `icgbench.scorer.conformance`); `NA` agrees only with `NA`.
#'
#' @param a,b Numbers or `NA`.
#' @return `TRUE` or `FALSE`.
#' @examples
#' icg_close(0.1 + 0.2, 0.3)
#' @export
icg_close <- function(a, b) {
  if (is.null(a) || is.na(a) || is.null(b) || is.na(b)) {
    return((is.null(a) || is.na(a)) && (is.null(b) || is.na(b)))
  }
  if (a == b) return(TRUE)
  abs(a - b) <= max(1e-9 * max(abs(a), abs(b)), 1e-9)
}

#' Run one conformance fixture
#'
#' Each `schemas/conformance/<case>.json` of the repository holds a tiny truth
#' (parsed, or as truth tables in the release's layout), a submission's task
#' blocks and the metric values computed by hand (`expected`, and for some
#' cases `expected_baselines`). This reads the truth, checks and aligns the
#' blocks as [icg_score()] does, grades them and compares every expected value
#' with [icg_close()]: the evidence that this R port computes what the Python
#' scorer computes.
#'
#' @param path The fixture's path.
#' @return A data frame, one row per expected value: `case`, `task`,
#'   `metric`, `expected`, `actual`, `ok`.
#' @examples
#' root <- Sys.getenv("ICGBENCH_ROOT")
#' if (nzchar(root)) {
#'   checks <- icg_conformance(file.path(root, "schemas", "conformance", "auroc_ties.json"))
#'   all(checks$ok)
#' }
#' @export
icg_conformance <- function(path) {
  case <- jsonlite::fromJSON(path, simplifyVector = TRUE, simplifyDataFrame = FALSE,
                             simplifyMatrix = FALSE)
  raw <- jsonlite::fromJSON(path, simplifyVector = FALSE)
  truth <- if (!is.null(case$truth$tables)) icg_truth_from_tables(case$truth$tables) else
    truth_from_parsed(case$truth)
  blocks <- stats::setNames(lapply(names(case$blocks), function(b) {
    tryCatch(align_block(b, case$blocks[[b]], truth),
             error = function(e) fail("%s: fixture blocks are invalid: %s", basename(path),
                                      conditionMessage(e)))
  }), names(case$blocks))
  results <- grade_blocks(blocks, truth)
  name <- sub("\\.json$", "", basename(path))
  rows <- list()
  add <- function(task, metric, expected, actual) {
    expected <- if (is.null(expected)) NA_real_ else as.double(expected)
    actual <- if (is.null(actual)) NA_real_ else as.double(actual)
    rows[[length(rows) + 1]] <<- data.frame(
      case = name, task = task, metric = metric, expected = expected, actual = actual,
      ok = icg_close(expected, actual), stringsAsFactors = FALSE)
  }
  for (task in names(raw$expected)) {
    if (is.null(results[[task]])) fail("%s: the blocks do not grade task %s", name, task)
    for (metric in names(raw$expected[[task]])) {
      add(task, metric, raw$expected[[task]][[metric]], results[[task]]$metrics[[metric]])
    }
  }
  baselines <- icg_baselines(truth, names(raw$expected_baselines))
  for (task in names(raw$expected_baselines)) {
    for (metric in names(raw$expected_baselines[[task]])) {
      add(task, paste(metric, "(random baseline)"), raw$expected_baselines[[task]][[metric]],
          baselines[[task]][[metric]])
    }
  }
  do.call(rbind, rows)
}
