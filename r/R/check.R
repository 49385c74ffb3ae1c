# The submission checker `icgbench validate` runs, shared with the leaderboard page: its
# JavaScript (inst/checker, copied from the Python package by `make schemas`) runs in V8
# with the static facts (message templates, limits, the schema); R reads the file, unpacks
# gzip and hands over the facts of the release the submission names. So R and Python print
# the same verdict, in the same words, for every document.

checker <- new.env(parent = emptyenv())

DEFAULT_MAX_ERRORS <- 5L
MAX_BYTES <- 64 * 1024 * 1024

checker_file <- function(name) system.file("checker", name, package = "icgbench")

checker_context <- function() {
  if (is.null(checker$ctx)) {
    ctx <- V8::v8()
    ctx$source(checker_file("submission_schema.js"))
    ctx$source(checker_file("checker_core.js"))
    facts <- paste(readLines(checker_file("facts.json"), warn = FALSE, encoding = "UTF-8"),
                   collapse = "\n")
    ctx$eval(paste0("var icgFacts = ", facts, ";"))
    ctx$eval(paste(
      "var icgRun = null;",
      "function icgStart(maxErrors) {",
      "  var f = JSON.parse(JSON.stringify(icgFacts)); f.limits.max_errors = maxErrors;",
      "  icgRun = icgChecker(f, icgValidateSubmission); return true; }",
      "function icgRead(name, b64) {",
      "  return JSON.stringify(icgRun.read(name, icgRun.base64Bytes(b64))); }",
      "function icgFinish(tiers) { return JSON.stringify(icgRun.finish(JSON.parse(tiers))); }",
      sep = "\n"))
    checker$ctx <- ctx
    checker$facts <- jsonlite::fromJSON(facts, simplifyVector = FALSE)
  }
  checker$ctx
}

verdict_of <- function(v, document) {
  structure(list(document = document, valid = isTRUE(v$valid),
                 stage = if (is.null(v$stage)) NA_character_ else v$stage,
                 count = as.integer(if (is.null(v$count)) length(v$errors) else v$count),
                 errors = as.character(unlist(v$errors)),
                 note = if (is.null(v$note)) NULL else v$note),
            class = "icg_verdict")
}

invalid_verdict <- function(document, stage, message) {
  verdict_of(list(valid = FALSE, stage = stage, count = 1L, errors = message), document)
}

# The bytes of one gzip member with nothing after it, as the Python scorer requires, or a
# verdict saying why not in the same words. R's own readers cannot say why a stream is bad
# (gzcon stops in silence, memDecompress can loop on truncated input), so the member is
# inflated in V8 by pako, a port of zlib (inst/js/gunzip_member.js), at most max_bytes of it.
gunzip_member <- function(bytes, document, max_bytes) {
  need_v8("reading a gzip-compressed file")
  ctx <- gunzip_context()
  ctx$assign("icgGzip", bytes)
  found <- jsonlite::fromJSON(ctx$eval(sprintf(paste(
    "(function () { var r = icgGunzipMember(icgGzip, %.0f); icgGzip = null;",
    "icgInflated = r.bytes || new Uint8Array(0); delete r.bytes; return JSON.stringify(r); })()"),
    max_bytes)), simplifyVector = FALSE)
  if (!is.null(found$stage)) {
    return(invalid_verdict(document, found$stage, paste0("/: ", found$message)))
  }
  out <- ctx$get("icgInflated")
  ctx$eval("icgInflated = null;")
  if (is.null(out)) raw(0) else out
}

gunzip_context <- function() {
  if (is.null(checker$gunzip)) {
    ctx <- V8::v8()
    ctx$source(system.file("js", "pako_inflate.min.js", package = "icgbench"))
    ctx$source(system.file("js", "gunzip_member.js", package = "icgbench"))
    ctx$eval("var icgGzip = null, icgInflated = null;")
    checker$gunzip <- ctx
  }
  checker$gunzip
}

# One run per id: the checker's compact form of a split's ids (see checker.py: id_runs).
id_runs <- function(ids) lapply(as.character(ids), function(id) list(id, -1L, 1L, 0L))

named_list <- function() stats::setNames(list(), character())

# The facts of one tier for the submission's header: the release's version (and the earlier
# ones it grades as its own), the seeds of every variant, and the held-out ids of the
# header's cohort (when the release has it).
release_tier_facts <- function(release, header) {
  cohorts <- release$descriptor[["icgbench:cohorts"]]
  out <- named_list()
  for (c in cohorts) {
    if (is.null(out[[c$variant]])) out[[c$variant]] <- named_list()
    out[[c$variant]][[as.character(c$seed)]] <- named_list()
  }
  seed <- header$seed
  if (!is.null(out[[header$variant]]) && is.numeric(seed) &&
      !is.null(out[[header$variant]][[as.character(seed)]])) {
    subjects <- icg_read_table(release, "subjects", header$variant, seed)
    out[[header$variant]][[as.character(seed)]] <- list(
      test = id_runs(subjects$subject_id[subjects$split == "test"]),
      target_test = id_runs(subjects$subject_id[subjects$split == "target_test"]))
  }
  compatible <- as.list(names(release$descriptor[["icgbench:compatible_releases"]]))
  stats::setNames(list(list(version = release$descriptor$version, compatible = compatible,
                            cohorts = out)), release$tier)
}

# The facts a truth carries: its cohort only (icg_score grades against that cohort).
truth_tier_facts <- function(truth, header) {
  cohort <- truth$cohort
  tier <- if (is.null(cohort)) header$tier else cohort$tier
  variant <- if (is.null(cohort)) header$variant else cohort$variant
  seed <- if (is.null(cohort)) header$seed else cohort$seed
  version <- if (is.null(cohort)) header$data_version else cohort$data_version
  compatible <- if (is.null(cohort$compatible)) list() else cohort$compatible
  ids <- list(test = id_runs(truth$ids$test), target_test = id_runs(truth$ids$target_test))
  cohorts <- stats::setNames(list(stats::setNames(list(ids), as.character(seed))), variant)
  stats::setNames(list(list(version = version, compatible = compatible, cohorts = cohorts)),
                  tier)
}

# The facts of the release for a header's tier: NULL when no release was given and none is
# found (the schema alone is checked); no tier at all when the given release lacks it.
release_facts <- function(release) {
  function(header) {
    if (inherits(release, "icg_release") && identical(release$tier, header$tier)) {
      return(release_tier_facts(release, header))
    }
    root <- if (inherits(release, "icg_release")) release$root else if (
      is.character(release)) release else default_root()
    opened <- tryCatch(icg_release(root, header$tier), error = function(e) NULL)
    if (!is.null(opened)) return(release_tier_facts(opened, header))
    if (is.null(release)) NULL else named_list()
  }
}

# Check submission bytes: `facts_for(header)` gives the tier facts (NULL: schema only).
# `optional`: without V8, a valid verdict that says it checked nothing, instead of an error.
check_bytes <- function(bytes, document, facts_for, max_errors = DEFAULT_MAX_ERRORS,
                        optional = FALSE) {
  if (optional && !has_v8()) {
    say_unchecked()
    return(verdict_of(list(valid = TRUE, count = 0L, errors = list(),
                           note = "not checked: V8 is not installed"), document))
  }
  need_v8("validating a submission")
  if (length(bytes) > MAX_BYTES) {
    return(invalid_verdict(document, "size", sprintf(
      "/: file is over the limit of %.0f bytes", MAX_BYTES)))
  }
  if (length(bytes) >= 2 && bytes[1] == as.raw(0x1f) && bytes[2] == as.raw(0x8b)) {
    bytes <- gunzip_member(bytes, document, MAX_BYTES)
    if (inherits(bytes, "icg_verdict")) return(bytes)
  }
  max_errors <- as.integer(max_errors)
  if (length(max_errors) != 1 || is.na(max_errors) || max_errors < 1) {
    fail("max_errors must be one positive whole number")
  }
  ctx <- checker_context()
  ctx$call("icgStart", max_errors)
  first <- jsonlite::fromJSON(ctx$call("icgRead", basename(document),
                                       jsonlite::base64_enc(bytes)),
                              simplifyVector = FALSE)
  if (!is.null(first$verdict)) return(verdict_of(first$verdict, document))
  tiers <- facts_for(first$header)
  if (is.null(tiers)) {
    return(verdict_of(list(valid = TRUE, count = 0L, errors = list(), note = paste(
      "the JSON Schema holds; the header and the ids were not checked: no release was",
      "found (pass release = icg_release(...) or set ICGBENCH_RELEASE)")), document))
  }
  tiers_json <- jsonlite::toJSON(tiers, auto_unbox = TRUE, null = "null", digits = NA)
  verdict_of(jsonlite::fromJSON(ctx$call("icgFinish", as.character(tiers_json)),
                                simplifyVector = FALSE), document)
}

document_bytes <- function(x) {
  if (inherits(x, "json")) return(list(bytes = charToRaw(enc2utf8(as.character(x))),
                                       where = "<json>"))
  if (is.list(x)) return(list(bytes = charToRaw(enc2utf8(submission_json(x))),
                              where = "<submission>"))
  if (!is.character(x) || length(x) != 1 || is.na(x)) {
    fail("x must be a file path, a submission list or JSON text of class json")
  }
  list(bytes = read_bytes(x), where = x)
}

invalid_condition <- function(verdict) {
  lines <- paste0("  ", verdict$errors, collapse = "\n")
  structure(class = c("icg_invalid", "error", "condition"),
            list(message = sprintf("%s is invalid (%s): %d problem%s\n%s", verdict$document,
                                   verdict$stage, verdict$count,
                                   if (verdict$count == 1) "" else "s", lines),
                 call = NULL, verdict = verdict))
}
