validator <- new.env(parent = emptyenv())

validator_js <- "
var icgValidators = {};
function icgCompile(key, schemaText) {
  var ajv = new ajv7({allErrors: true, strict: true});
  icgValidators[key] = ajv.compile(JSON.parse(schemaText));
  return true;
}
function icgValidate(key, text) {
  var doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return JSON.stringify({valid: false, errors: ['/ not readable JSON: ' + err.message]});
  }
  var validate = icgValidators[key];
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
  if (is.null(validator$ctx)) {
    ctx <- V8::v8()
    ctx$source(system.file("js", "ajv7.bundle.js", package = "icgbench"))
    ctx$eval(validator_js)
    validator$ctx <- ctx
    validator$compiled <- character()
  }
  validator$ctx
}

compiled_key <- function(schema) {
  published <- c("submission", "score-report", "leaderboard-entry")
  path <- if (schema %in% published) icg_schema_path(schema) else schema
  text <- utf8_text(read_bytes(path), path)
  key <- digest::digest(text, algo = "sha256", serialize = FALSE)
  ctx <- context()
  if (!(key %in% validator$compiled)) {
    tryCatch(ctx$call("icgCompile", key, text),
             error = function(e) fail("%s: ajv cannot compile this schema (%s)", path,
                                      conditionMessage(e)))
    validator$compiled <- c(validator$compiled, key)
  }
  key
}

validate_text <- function(text, schema, where) {
  key <- compiled_key(schema)
  verdict <- jsonlite::fromJSON(context()$call("icgValidate", key, text),
                                simplifyVector = TRUE)
  structure(list(document = where, valid = verdict$valid,
                 errors = as.character(unlist(verdict$errors))),
            class = "icg_verdict")
}

#' Validate a document against a published JSON Schema with ajv
#'
#' The schema layer of `icgbench validate`, run in R: ajv 8 (draft-07,
#' `allErrors`, `strict`, the same options as `tools/ajv/validate.js`)
#' evaluated in a V8 context. A file is read as UTF-8 (gunzipped when it is
#' gzip) and parsed with JavaScript's strict `JSON.parse`; a list is first
#' written exactly as [icg_write_submission()] writes it. The checks that need
#' the release's truth (each block's ids, the data version, the variant hash)
#' are not part of the schema: [icg_score()] makes the id checks, the Python
#' `icgbench validate` all of them.
#'
#' @param x A file path, a submission list, or JSON text of class `json`
#'   (e.g. from [jsonlite::toJSON()]).
#' @param schema `"submission"`, `"score-report"`, `"leaderboard-entry"`, or
#'   the path of a draft-07 schema file.
#' @return An `icg_verdict`: a list with `document`, `valid` (`TRUE` or
#'   `FALSE`) and `errors` (`"/instance/path message"` lines).
#' @examples
#' doc <- jsonlite::toJSON(list(schema_version = "1.0"), auto_unbox = TRUE)
#' icg_validate(doc)
#' @export
icg_validate <- function(x, schema = "submission") {
  if (inherits(x, "json")) return(validate_text(enc2utf8(as.character(x)), schema, "<json>"))
  if (is.list(x)) return(validate_text(submission_json(x), schema, "<submission>"))
  if (!is.character(x) || length(x) != 1) {
    fail("x must be a file path, a submission list or JSON text of class json")
  }
  bytes <- read_document_bytes(x)
  text <- tryCatch(utf8_text(bytes, x), error = function(e) NULL)
  if (is.null(text)) {
    return(structure(list(document = x, valid = FALSE, errors = "/ not valid UTF-8"),
                     class = "icg_verdict"))
  }
  validate_text(text, schema, x)
}

#' @export
print.icg_verdict <- function(x, ...) {
  cat(sprintf("%s: %s\n", x$document, if (x$valid) "valid" else "INVALID"))
  if (length(x$errors)) cat(paste0("  ", x$errors, "\n"), sep = "")
  invisible(x)
}
