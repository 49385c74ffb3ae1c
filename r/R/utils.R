fail <- function(...) stop(sprintf(...), call. = FALSE)

# V8 (a suggested package) runs the checker and unpacks gzip. Without it the package reads,
# writes and scores; what needs V8 stops with NO_V8, and what only checks on the way (icg_score,
# icg_write_submission) goes on, saying once per session that it did not check.
# (The option icgbench.without_v8 = TRUE makes the package behave as if V8 were absent.)
has_v8 <- function() {
  !isTRUE(getOption("icgbench.without_v8")) && requireNamespace("V8", quietly = TRUE)
}

NO_V8 <- paste(
  "%s needs the R package V8, which is not installed: install it (docs/r.md), or check the",
  "file with the Python command `icgbench validate FILE` or the leaderboard page's check.html")

need_v8 <- function(what) if (!has_v8()) fail(NO_V8, what)

said <- new.env(parent = emptyenv())

say_unchecked <- function() {
  if (is.null(said$unchecked)) {
    message("icgbench: V8 is not installed, so submissions are not validated here; ",
            "check them with `icgbench validate FILE` or check.html (docs/r.md)")
    said$unchecked <- TRUE
  }
}

#' Names of the nine bottleneck states, in the scorer's order
#'
#' The order is the one `r2_mean` sums in (left to right) and the submission
#' schema lists.
#' @return A character vector.
#' @examples
#' icg_states()
#' @export
icg_states <- function() {
  c("DNA_adducts", "ROS", "immune_clearance", "inflammation", "epigenetic_age",
    "proliferation", "mutation_rate", "driver_count_proxy", "clone_fraction")
}

#' Names of the seven `do_*` interventions, in the scorer's order
#'
#' @return A character vector.
#' @examples
#' icg_interventions()
#' @export
icg_interventions <- function() {
  unlist(static_facts()$interventions)
}

# The task registry as Python publishes it (schemas/checker/facts.json, which `make contract`
# writes and configure copies into inst/checker): the tasks in order, each one's blocks and
# the split each block covers. Nothing here lists them again.
static_facts <- local({
  facts <- NULL
  function() {
    if (is.null(facts)) {
      facts <<- jsonlite::fromJSON(system.file("checker", "facts.json", package = "icgbench"),
                                   simplifyVector = FALSE)
    }
    facts
  }
})

task_names <- function() {
  vapply(static_facts()$tasks, function(t) t[[1]], "")
}

block_split <- function(block) {
  static_facts()$block_splits[[block]]
}

# The categories in report order, and the one each task's normalized score counts for.
category_order <- function() {
  unlist(static_facts()$categories)
}

task_category <- function(task) {
  static_facts()$task_categories[[task]]
}

# Left-to-right sum in doubles: base R's sum() and cumsum() accumulate in long double,
# which can differ from the contract's double sum in the last bits.
dsum <- function(x) {
  total <- 0
  for (v in x) total <- total + v
  total
}

# Decimal text to doubles, correctly rounded: R's own parser (as.numeric, read.csv) is
# off by one unit in the last place for some inputs; jsonlite's is not.
parse_doubles <- function(text, where) {
  if (length(text) == 0) return(numeric(0))
  ok <- grepl("^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?$", text)
  if (!all(ok)) {
    fail("%s: %s is not a number", where, encodeString(text[!ok][1], quote = "\""))
  }
  as.double(jsonlite::parse_json(paste0("[", paste(text, collapse = ","), "]"),
                                 simplifyVector = TRUE))
}

read_bytes <- function(path) {
  if (!file.exists(path) || dir.exists(path)) fail("%s: no such file", path)
  readBin(path, "raw", n = file.size(path))
}

# The bytes of a file, gunzipped when they start with the gzip magic number (one member,
# nothing after it, not truncated: see gunzip_member).
read_document_bytes <- function(path) {
  bytes <- read_bytes(path)
  if (length(bytes) >= 2 && bytes[1] == as.raw(0x1f) && bytes[2] == as.raw(0x8b)) {
    bytes <- gunzip_member(bytes, path, MAX_BYTES)
    if (inherits(bytes, "icg_verdict")) fail("%s: %s", path, sub("^/: ", "", bytes$errors[1]))
  }
  bytes
}

utf8_text <- function(bytes, where) {
  text <- rawToChar(bytes)
  Encoding(text) <- "UTF-8"
  if (!validUTF8(text)) fail("%s: not valid UTF-8", where)
  text
}
