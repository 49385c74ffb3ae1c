#' Build a submission from data frames
#'
#' Assembles one cohort's submission in the layout of
#' `schemas/submission.schema.json`: the header (data version, tier, variant
#' hash and seed taken from the release's descriptor, so they match it) and one
#' columnar block per data frame given. Give at least one block.
#'
#' @param release An [icg_release()]: the release the model was fitted on.
#' @param variant The cohort's variant.
#' @param seed The cohort's seed (may be left out when the tier holds one seed).
#' @param model A list with `name`, `version` and `language` (and optionally
#'   `url`, `description`); see docs/submission.md for the allowed characters.
#' @param risk_prediction A data frame with `subject_id` (every `test` subject)
#'   and `proba`.
#' @param latent_recovery A data frame with `subject_id` (every `test`
#'   subject) and one column per submitted state (see [icg_states()]).
#' @param intervention_conformity A data frame with `subject_id` (every `test`
#'   subject), `proba` (no intervention) and one column per `do_*` intervention
#'   (see [icg_interventions()]).
#' @param cross_host_generalization A data frame with `subject_id` (every
#'   `target_test` subject) and `proba`, from the same fitted model as
#'   `risk_prediction`.
#' @param structure_recovery A data frame with `source`, `target` and `score`:
#'   scored directed edges between the public nodes.
#' @param k Optional: the sparsity K* the structure block commits to.
#' @return A list ready for [icg_write_submission()], [icg_validate()] and
#'   [icg_score()].
#' @examples
#' root <- Sys.getenv("ICGBENCH_ROOT")
#' if (nzchar(root)) {
#'   release <- icg_release(root)
#'   subjects <- icg_read_table(release, "subjects", "linear_lowhet")
#'   test <- subjects[subjects$split == "test", ]
#'   sub <- icg_submission(release, "linear_lowhet",
#'     model = list(name = "constant", version = "0.1", language = "R"),
#'     risk_prediction = data.frame(subject_id = test$subject_id, proba = 0.5))
#'   if (requireNamespace("V8", quietly = TRUE)) icg_validate(sub)$valid
#' }
#' @export
icg_submission <- function(release, variant, seed = NULL, model,
                           risk_prediction = NULL, latent_recovery = NULL,
                           intervention_conformity = NULL, cross_host_generalization = NULL,
                           structure_recovery = NULL, k = NULL) {
  check_release(release)
  seed <- cohort_seed(release, variant, seed)
  cohorts <- icg_cohorts(release)
  if (!is.list(model) || is.null(names(model))) {
    fail("model must be a list with name, version and language")
  }
  sub <- list(
    schema_version = "1.0",
    data_version = release$descriptor$version,
    tier = release$tier,
    variant = variant,
    variant_hash = cohorts$variant_hash[cohorts$variant == variant][1],
    seed = seed,
    model = model)
  if (!is.null(risk_prediction)) {
    sub$risk_prediction <- proba_block(risk_prediction, "risk_prediction")
  }
  if (!is.null(latent_recovery)) {
    frame <- check_frame(latent_recovery, "latent_recovery", "subject_id")
    states <- setdiff(names(frame), "subject_id")
    unknown <- setdiff(states, icg_states())
    if (length(unknown)) {
      fail("latent_recovery: %s is not a state (states: %s)", unknown[1],
           paste(icg_states(), collapse = ", "))
    }
    sub$latent_recovery <- list(subject_id = as.character(frame$subject_id),
                                states = lapply(frame[states], as.double))
  }
  if (!is.null(intervention_conformity)) {
    frame <- check_frame(intervention_conformity, "intervention_conformity",
                         c("subject_id", "proba"))
    dos <- setdiff(names(frame), c("subject_id", "proba"))
    unknown <- setdiff(dos, icg_interventions())
    if (length(unknown)) {
      fail("intervention_conformity: %s is not an intervention (interventions: %s)",
           unknown[1], paste(icg_interventions(), collapse = ", "))
    }
    sub$intervention_conformity <- list(subject_id = as.character(frame$subject_id),
                                        proba = as.double(frame$proba),
                                        interventions = lapply(frame[dos], as.double))
  }
  if (!is.null(cross_host_generalization)) {
    sub$cross_host_generalization <- proba_block(cross_host_generalization,
                                                 "cross_host_generalization")
  }
  if (!is.null(structure_recovery)) {
    frame <- check_frame(structure_recovery, "structure_recovery",
                         c("source", "target", "score"))
    sub$structure_recovery <- list(source = as.character(frame$source),
                                   target = as.character(frame$target),
                                   score = as.double(frame$score))
    if (!is.null(k)) sub$structure_recovery$k <- as.integer(k)
  } else if (!is.null(k)) {
    fail("k is the structure block's sparsity: give structure_recovery too")
  }
  if (!any(task_names() %in% names(sub))) fail("a submission needs at least one block")
  sub
}

check_frame <- function(frame, block, required) {
  if (!is.data.frame(frame)) fail("%s must be a data frame", block)
  missing <- setdiff(required, names(frame))
  if (length(missing)) fail("%s: no column %s", block, missing[1])
  frame
}

proba_block <- function(frame, block) {
  frame <- check_frame(frame, block, c("subject_id", "proba"))
  extra <- setdiff(names(frame), c("subject_id", "proba"))
  if (length(extra)) fail("%s: unexpected column %s", block, extra[1])
  list(subject_id = as.character(frame$subject_id), proba = as.double(frame$proba))
}

#' Format doubles as the shortest decimal text that reads back to the same double
#'
#' Tries 15, then 16, then 17 significant digits for each value and keeps the
#' first that parses back exactly (17 always does). jsonlite's `digits = NA`
#' keeps only 15 digits, which changes about one double in ten.
#'
#' @param x A numeric vector of finite values.
#' @return A character vector.
#' @examples
#' icg_format_doubles(c(0.1, 1 / 3, 2^-1074))
#' @export
icg_format_doubles <- function(x) {
  x <- as.double(x)
  if (!all(is.finite(x))) fail("icg_format_doubles: a value is not finite")
  out <- sprintf("%.15g", x)
  for (digits in c(16, 17)) {
    redo <- parse_doubles(out, "icg_format_doubles") != x
    if (!any(redo)) break
    out[redo] <- sprintf(paste0("%.", digits, "g"), x[redo])
  }
  out
}

json_strings <- function(x) {
  text <- as.character(jsonlite::toJSON(enc2utf8(x), auto_unbox = FALSE))
  substring(text, 2, nchar(text) - 1)
}

json_atoms <- function(x, where) {
  if (is.factor(x)) x <- as.character(x)
  missing <- which(is.na(x) & !is.nan(x))
  if (length(missing)) fail("%s[%d]: a value is missing (NA)", where, missing[1])
  if (is.character(x)) return(json_strings(x))
  if (is.logical(x)) return(paste(ifelse(x, "true", "false"), collapse = ","))
  if (is.integer(x)) return(paste(as.character(x), collapse = ","))
  if (is.numeric(x)) {
    bad <- which(!is.finite(x))
    if (length(bad)) fail("%s[%d]: %s is not finite (JSON has no NaN or Infinity)", where,
                          bad[1], format(x[bad[1]]))
    return(paste(icg_format_doubles(x), collapse = ","))
  }
  fail("%s: cannot write a %s as JSON", where, class(x)[1])
}

# One JSON value; inside a task block every vector is an array (even of length one)
# except the scalar `k`, elsewhere every vector is a scalar.
json_value <- function(x, where, arrays) {
  if (is.list(x)) {
    keys <- names(x)
    if (length(x) && (is.null(keys) || any(!nzchar(keys)))) {
      fail("%s: every element needs a name", where)
    }
    parts <- vapply(seq_along(x), function(i) {
      key <- keys[i]
      inner <- arrays || key %in% task_names()
      if (identical(key, "k")) inner <- FALSE
      paste0(json_strings(key), ":", json_value(x[[i]], paste0(where, "$", key), inner))
    }, "")
    return(paste0("{", paste(parts, collapse = ","), "}"))
  }
  if (arrays) return(paste0("[", json_atoms(x, where), "]"))
  if (length(x) != 1) fail("%s: a single value is expected, not %d", where, length(x))
  json_atoms(x, where)
}

submission_json <- function(submission) {
  if (!is.list(submission) || is.data.frame(submission)) {
    fail("a submission is a named list (see icg_submission())")
  }
  json_value(submission, "submission", FALSE)
}

#' Write a submission to a JSON file
#'
#' Writes `.json`, or gzip-compressed JSON when `path` ends in `.gz`: blocks
#' as columnar arrays (an array stays an array at length one), header values
#' as scalars, every double in the shortest form that reads back exactly. The
#' text is validated against the JSON Schema first unless `validate = FALSE`;
#' the file is written to a temporary name and renamed, so it is never left
#' half-written.
#'
#' @param submission A list from [icg_submission()] (or one of the same
#'   shape).
#' @param path Where to write; `.json` or `.json.gz`.
#' @param validate Check against `submission.schema.json` before writing and
#'   stop naming the first violations (as [icg_validate()] words them) and
#'   their number.
#' @return `path`, invisibly.
#' @export
icg_write_submission <- function(submission, path, validate = TRUE) {
  text <- submission_json(submission)
  if (validate) {
    verdict <- check_bytes(charToRaw(enc2utf8(text)), "the submission", function(h) NULL,
                           optional = TRUE)
    if (!verdict$valid) {
      fail("the submission is invalid (%s), not written: %d problem%s\n%s", verdict$stage,
           verdict$count, if (verdict$count == 1) "" else "s",
           paste0("  ", verdict$errors, collapse = "\n"))
    }
  }
  if (!dir.exists(dirname(path))) fail("%s: no folder %s to write into", path, dirname(path))
  partial <- tempfile(".icgbench-", tmpdir = dirname(path))
  on.exit(unlink(partial))
  con <- if (grepl("\\.gz$", path)) gzfile(partial, "wb") else file(partial, "wb")
  writeBin(charToRaw(enc2utf8(text)), con)
  close(con)
  if (!file.rename(partial, path)) fail("cannot write %s", path)
  invisible(path)
}

#' Read a submission file
#'
#' Reads a `.json` or gzip-compressed submission exactly (numbers correctly
#' rounded): arrays become vectors, objects named lists.
#'
#' @param path The file.
#' @return A list in the shape [icg_submission()] returns.
#' @export
icg_read_submission <- function(path) {
  text <- utf8_text(read_document_bytes(path), path)
  tryCatch(jsonlite::fromJSON(text, simplifyVector = TRUE, simplifyDataFrame = FALSE,
                              simplifyMatrix = FALSE),
           error = function(e) fail("%s: not valid JSON (%s)", path, conditionMessage(e)))
}
