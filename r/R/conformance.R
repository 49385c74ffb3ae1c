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
  name <- sub("\\.json$", "", basename(path))
  if (!is.null(raw$means)) return(means_checks(name, raw$means))
  truth <- if (!is.null(case$truth$tables)) icg_truth_from_tables(case$truth$tables) else
    truth_from_parsed(case$truth)
  blocks <- stats::setNames(lapply(names(case$blocks), function(b) {
    tryCatch(align_block(b, case$blocks[[b]], truth),
             error = function(e) fail("%s: fixture blocks are invalid: %s", basename(path),
                                      conditionMessage(e)))
  }), names(case$blocks))
  results <- grade_blocks(blocks, truth)
  rows <- list()
  add <- function(task, metric, expected, actual) {
    expected <- if (is.null(expected)) NA_real_ else as.double(expected)
    actual <- if (is.null(actual)) NA_real_ else as.double(actual)
    rows[[length(rows) + 1]] <<- data.frame(
      case = name, task = task, metric = metric, expected = expected, actual = actual,
      ok = icg_close(expected, actual), stringsAsFactors = FALSE)
  }
  add_text <- function(task, metric, expected, actual) {
    rows[[length(rows) + 1]] <<- data.frame(
      case = name, task = task, metric = metric, expected = NA_real_, actual = NA_real_,
      ok = identical(as.character(expected), as.character(actual)),
      stringsAsFactors = FALSE)
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
  if (!is.null(raw$expected_normalized) || !is.null(raw$expected_overall)) {
    chance <- icg_baselines(truth, names(results))
    for (task in names(results)) results[[task]]$random_baseline <- chance[[task]]
    parts <- normalized_parts(results, truth)
    categories <- normalized_of(results, truth)
    for (task in names(raw$expected_normalized)) {
      for (key in names(raw$expected_normalized[[task]])) {
        actual <- if (key == "score") categories[[task_category(task)]] else {
          at <- strsplit(key, ".", fixed = TRUE)[[1]]
          parts[[task]][[at[1]]][[at[2]]]
        }
        add(task, paste(key, "(normalized)"), raw$expected_normalized[[task]][[key]], actual)
      }
    }
    for (task in names(raw$expected_floor_answers)) {
      for (metric in names(raw$expected_floor_answers[[task]])) {
        add_text(task, paste(metric, "(floor answer)"),
                 raw$expected_floor_answers[[task]][[metric]],
                 parts[[task]][[metric]]$floor_answer)
      }
    }
    if (!is.null(raw$expected_overall)) {
      add("summary", "overall", raw$expected_overall,
          dsum(vapply(categories, function(v) if (is.na(v)) 0 else v, 0)) /
            length(category_order()))
    }
  }
  do.call(rbind, rows)
}

# The normalized mean over one variant's cohorts of one metric: min(sum(s - f) /
# sum(c - f), 1) over the cohorts whose ceiling is better than their floor (negative below
# the floor), a missing score counting as the floor; a gain is at least -1e12 spans
# (icgbench.tasks.normalized.mean_normalized).
mean_normalized <- function(cohorts, higher_is_better) {
  turn <- if (higher_is_better) 1 else -1
  gains <- c()
  spans <- c()
  for (cohort in cohorts) {
    score <- cohort[[1]]
    floor <- as.double(cohort[[2]])
    ceiling <- as.double(cohort[[3]])
    span <- turn * (ceiling - floor)
    if (!(span > 0)) next
    spans <- c(spans, span)
    gains <- c(gains, if (is.null(score)) 0 else
      max(turn * (as.double(score) - floor), -1e12 * span))
  }
  if (!length(spans)) return(NA_real_)
  min(1, max(-1e12, dsum(gains) / dsum(spans)))
}

means_checks <- function(name, means) {
  rows <- lapply(names(means), function(key) {
    spec <- means[[key]]
    actual <- mean_normalized(spec$cohorts, isTRUE(spec$higher_is_better))
    data.frame(case = name, task = "mean", metric = key, expected = as.double(spec$expected),
               actual = actual, ok = icg_close(as.double(spec$expected), actual),
               stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
}
