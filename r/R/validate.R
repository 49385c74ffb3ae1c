# The published schemas other than the submission's are checked by their validators compiled
# ahead by ajv (tools/ajv/build-checker.js: standalone code, no ajv at run time), shipped in
# inst/checker beside the submission checker. One JavaScript validator per schema, the
# same code on the page, in R and in the repository's tests.
validator <- new.env(parent = emptyenv())

# Published schema -> (its compiled validator's file in inst/checker, the global it defines).
COMPILED <- list(
  "score-report" = c("score_report_schema.js", "icgValidateScoreReport"),
  "leaderboard-entry" = c("leaderboard_entry_schema.js", "icgValidateLeaderboardEntry"))

validator_js <- "
function icgValidate(name, text) {
  var doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return JSON.stringify({valid: false, errors: ['/ not readable JSON: ' + err.message]});
  }
  var validate = globalThis[name];
  var valid = validate(doc);
  var errors = (validate.errors || []).map(function (e) {
    return (e.instancePath || '/') + ' ' + e.message;
  });
  return JSON.stringify({valid: Boolean(valid), errors: errors});
}
"

#' Path of a published JSON Schema shipped with the package
#'
#' The package carries copies of the repository's `schemas/*.schema.json`
#' (draft-07); the test suite checks that they are identical.
#'
#' @param name `"submission"`, `"score-report"` or `"leaderboard-entry"`.
#' @return The file's path.
#' @examples
#' icg_schema_path("submission")
#' @export
icg_schema_path <- function(name = "submission") {
  path <- system.file("schemas", paste0(name, ".schema.json"), package = "icgbench")
  if (!nzchar(path)) {
    fail("no published schema %s (schemas: submission, score-report, leaderboard-entry)",
         encodeString(name, quote = "\""))
  }
  path
}

context <- function() {
  need_v8("validating a document")
  if (is.null(validator$ctx)) {
    ctx <- V8::v8()
    for (compiled in COMPILED) ctx$source(checker_file(compiled[[1]]))
    ctx$eval(validator_js)
    validator$ctx <- ctx
  }
  validator$ctx
}

validate_text <- function(text, schema, where) {
  verdict <- jsonlite::fromJSON(context()$call("icgValidate", COMPILED[[schema]][[2]], text),
                                simplifyVector = TRUE)
  errors <- as.character(unlist(verdict$errors))
  structure(list(document = where, valid = verdict$valid,
                 stage = if (verdict$valid) NA_character_ else "schema",
                 count = length(errors), errors = errors),
            class = "icg_verdict")
}

#' Validate a submission as `icgbench validate` does
#'
#' Runs the checks of the Python `icgbench validate`, with its messages, on a
#' submission: reading (gzip of one member, UTF-8, strict JSON: no duplicate
#' keys, no `NaN`), the JSON Schema (ajv in V8), then the checks against the
#' release the submission names (data version, tier, variant hash, cohort,
#' parallel lengths, finite numbers, each held-out subject exactly once,
#' edges). The checker is the same JavaScript the leaderboard page runs, with
#' the same message templates as the Python scorer. Messages are `/pointer:
#' text` lines (JSON Pointer, 0-based), in document order: the first
#' `max_errors`, then how many there are in all. The other published schemas
#' (`"score-report"`, `"leaderboard-entry"`) are checked by their validators
#' compiled ahead by ajv, with ajv's messages.
#'
#' @param x A file path, a submission list, or JSON text of class `json`
#'   (e.g. from [jsonlite::toJSON()]).
#' @param schema `"submission"`, `"score-report"` or `"leaderboard-entry"`
#'   (the published schemas; another schema file needs a JSON Schema validator
#'   of its own, such as the jsonvalidate package).
#' @param release The release to check the header and ids against: an
#'   [icg_release()] or a release root. By default the one at
#'   `ICGBENCH_RELEASE` (else `ICGBENCH_ROOT`, else the working folder); when
#'   none is found only the schema is checked, and the verdict says so.
#' @param max_errors How many problems to list (all are counted).
#' @return An `icg_verdict`: a list with `document`, `valid`, `stage`
#'   (`"parse"`, `"size"`, `"schema"`, `"semantic"`, `"usage"`, or `NA` when
#'   valid), `count` (problems found) and `errors` (the listed lines).
#' @details Validation runs in V8, a suggested package: without it this stops, saying
#' in one line how to check the file instead.
#' @examples
#' doc <- jsonlite::toJSON(list(schema_version = "1.0"), auto_unbox = TRUE)
#' if (requireNamespace("V8", quietly = TRUE)) icg_validate(doc)
#' @export
icg_validate <- function(x, schema = "submission", release = NULL,
                         max_errors = DEFAULT_MAX_ERRORS) {
  if (!is.character(schema) || length(schema) != 1 ||
      !(schema %in% c("submission", names(COMPILED)))) {
    fail(paste("schema must be \"submission\", \"score-report\" or \"leaderboard-entry\"",
               "(the published schemas); got %s"),
         if (is.character(schema) && length(schema) == 1) encodeString(schema, quote = "\"")
         else sprintf("a %s of length %d", class(schema)[1], length(schema)))
  }
  if (identical(schema, "submission")) {
    doc <- document_bytes(x)
    return(check_bytes(doc$bytes, doc$where, release_facts(release), max_errors))
  }
  if (inherits(x, "json")) return(validate_text(enc2utf8(as.character(x)), schema, "<json>"))
  if (is.list(x)) return(validate_text(submission_json(x), schema, "<submission>"))
  if (!is.character(x) || length(x) != 1) {
    fail("x must be a file path, a submission list or JSON text of class json")
  }
  bytes <- read_document_bytes(x)
  text <- tryCatch(utf8_text(bytes, x), error = function(e) NULL)
  if (is.null(text)) {
    return(structure(list(document = x, valid = FALSE, stage = "parse", count = 1L,
                          errors = "/: not valid UTF-8"), class = "icg_verdict"))
  }
  validate_text(text, schema, x)
}

#' @export
print.icg_verdict <- function(x, ...) {
  if (x$valid) {
    cat(sprintf("VALID %s%s\n", printable_text(x$document),
                if (is.null(x$note)) "" else paste0(": ", printable_text(x$note))))
  } else {
    count <- if (is.null(x$count)) length(x$errors) else x$count
    cat(sprintf("INVALID %s (%s): %d problem%s\n", printable_text(x$document),
                if (is.null(x$stage) || is.na(x$stage)) "schema" else x$stage, count,
                if (count == 1) "" else "s"))
  }
  if (length(x$errors)) cat(paste0("  ", printable_text(x$errors), "\n"), sep = "")
  invisible(x)
}

# Untrusted text as printable: every character of the facts' unprintable ranges (Unicode's
# Cc, Cf, Co, Cs, Zl, Zp and the tag block, as Python's icgbench.io.unprintable) replaced
# by the escape Python writes (\n, \x1b, \u200b, \U000e0041), so a name or a message
# cannot hide or reorder what is printed.
printable_text <- function(text) {
  ranges <- unprintable_ranges()
  vapply(as.character(text), function(s) {
    if (is.na(s)) return("NA")
    codes <- utf8ToInt(enc2utf8(s))
    if (length(codes) == 0 || anyNA(codes)) return(s)
    hidden <- vapply(codes, function(code) any(code >= ranges[, 1] & code <= ranges[, 2]),
                     logical(1))
    if (!any(hidden)) return(s)
    out <- vapply(codes, intToUtf8, "")
    out[hidden] <- vapply(codes[hidden], escaped_code, "")
    paste(out, collapse = "")
  }, "", USE.NAMES = FALSE)
}

escaped_code <- function(code) {
  if (code == 10) return("\\n")
  if (code == 13) return("\\r")
  if (code == 9) return("\\t")
  if (code <= 0xFF) return(sprintf("\\x%02x", code))
  if (code <= 0xFFFF) return(sprintf("\\u%04x", code))
  sprintf("\\U%08x", code)
}

unprintable_ranges <- function() {
  if (is.null(checker$unprintable)) {
    facts <- jsonlite::fromJSON(checker_file("facts.json"), simplifyVector = FALSE)
    checker$unprintable <- do.call(rbind, lapply(facts$unprintable, function(r) unlist(r)))
  }
  checker$unprintable
}
