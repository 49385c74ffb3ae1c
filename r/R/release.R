#' Open one tier of the ICg-Bench release
#'
#' Reads the tier's Frictionless descriptor (`datapackage.json`): the small
#' tier's lies at the release root, every other tier's at
#' `datasets/<tier>/datapackage.json`; the paths it lists are relative to its
#' own folder. The data are synthetic: nothing in them is a carcinogenicity
#' classification of a real agent or a prediction about real people.
#'
#' @param root The release root (a clone of the repository, or an unpacked
#'   release). Defaults to the environment variable `ICGBENCH_RELEASE` (as
#'   the Python package reads it), else `ICGBENCH_ROOT`, else the
#'   working directory.
#' @param tier `"small"` (committed, the embedded default) or `"full"` (built
#'   with `icgbench data build --tier full` or downloaded).
#' @return An `icg_release`: a list with `root`, `tier`, `base` (the
#'   descriptor's folder) and `descriptor` (the parsed JSON).
#' @examples
#' root <- Sys.getenv("ICGBENCH_ROOT")
#' if (nzchar(root)) {
#'   release <- icg_release(root)
#'   icg_cohorts(release)
#' }
#' @export
icg_release <- function(root = default_root(), tier = "small") {
  if (!is.character(tier) || length(tier) != 1 || !grepl("^[a-z]+$", tier)) {
    fail("tier must be one name such as \"small\" or \"full\"")
  }
  relative <- if (tier == "small") "datapackage.json" else
    file.path("datasets", tier, "datapackage.json")
  path <- file.path(root, relative)
  if (!file.exists(path)) {
    fail("no %s-tier descriptor at %s (is %s the release root?%s)", tier, path, root,
         if (tier == "full") " the full tier's descriptor is committed under datasets/full" else "")
  }
  descriptor <- jsonlite::fromJSON(path, simplifyVector = FALSE)
  if (!identical(descriptor[["icgbench:tier"]], tier)) {
    fail("%s describes the %s tier, not %s", path, descriptor[["icgbench:tier"]], tier)
  }
  structure(list(root = root, tier = tier, base = dirname(path), descriptor = descriptor),
            class = "icg_release")
}

default_root <- function() {
  Sys.getenv("ICGBENCH_RELEASE", Sys.getenv("ICGBENCH_ROOT", "."))
}

#' @export
print.icg_release <- function(x, ...) {
  d <- x$descriptor
  cat(sprintf("ICg-Bench release %s, %s tier (%d cohorts, synthetic data) at %s\n",
              d$version, x$tier, length(d[["icgbench:cohorts"]]), x$base))
  invisible(x)
}

#' The cohorts of a release tier
#'
#' @param release An [icg_release()].
#' @return A data frame: `variant`, `variant_hash`, `seed` and the sizes of
#'   the `train`, `test` and `target_test` splits.
#' @export
icg_cohorts <- function(release) {
  check_release(release)
  cohorts <- release$descriptor[["icgbench:cohorts"]]
  data.frame(
    variant = vapply(cohorts, function(c) c$variant, ""),
    variant_hash = vapply(cohorts, function(c) c$variant_hash, ""),
    seed = vapply(cohorts, function(c) as.integer(c$seed), 0L),
    train = vapply(cohorts, function(c) as.integer(c$sizes$train), 0L),
    test = vapply(cohorts, function(c) as.integer(c$sizes$test), 0L),
    target_test = vapply(cohorts, function(c) as.integer(c$sizes$target_test), 0L),
    stringsAsFactors = FALSE)
}

check_release <- function(release) {
  if (!inherits(release, "icg_release")) fail("release must come from icg_release()")
}

cohort_seed <- function(release, variant, seed) {
  cohorts <- icg_cohorts(release)
  seeds <- cohorts$seed[cohorts$variant == variant]
  if (length(seeds) == 0) {
    fail("the %s tier has no variant %s; its variants: %s", release$tier,
         encodeString(variant, quote = "\""), paste(unique(cohorts$variant), collapse = ", "))
  }
  if (is.null(seed)) {
    if (length(seeds) > 1) {
      fail("the %s tier holds seeds %s of %s: name one", release$tier,
           paste(seeds, collapse = ", "), variant)
    }
    return(seeds)
  }
  if (!(seed %in% seeds)) {
    fail("the %s tier has no cohort (%s, seed %s); its seeds: %s", release$tier, variant,
         seed, paste(seeds, collapse = ", "))
  }
  as.integer(seed)
}

find_resource <- function(release, table, variant, seed, format = "csv") {
  for (r in release$descriptor$resources) {
    if (identical(r$format, format) && identical(r[["icgbench:table"]], table) &&
        identical(r[["icgbench:variant"]], variant) &&
        identical(as.integer(r[["icgbench:seed"]]), seed)) {
      return(r)
    }
  }
  tables <- unique(vapply(release$descriptor$resources, function(r) r[["icgbench:table"]], ""))
  fail("the %s tier has no table %s for (%s, seed %d); its tables: %s", release$tier,
       encodeString(table, quote = "\""), variant, seed, paste(sort(tables), collapse = ", "))
}

#' Read one table of one cohort
#'
#' Reads the table's gzip-compressed CSV, checks the file's SHA-256 against the
#' descriptor (a file with other bytes is accepted only when its CSV text has
#' the descriptor's `icgbench:csv_sha256`, as when another zlib compressed it),
#' its columns and row count, and gives every column the type of its Table
#' Schema: `integer` as integer, `number` as double (parsed correctly rounded),
#' `boolean` as logical, `string` as character, empty cells as `NA`.
#'
#' Truth tables (what the scorer grades against) are refused unless
#' `truth = TRUE`: fitting a model never needs them.
#'
#' @param release An [icg_release()].
#' @param table A table name, e.g. `"subjects"`, `"observations"`, `"masks"`,
#'   `"train_outcomes"` (see `schemas/tables/`).
#' @param variant The cohort's variant.
#' @param seed The cohort's seed; may be left out when the tier holds one seed
#'   of the variant.
#' @param truth `TRUE` to read a truth table.
#' @return A data frame.
#' @examples
#' root <- Sys.getenv("ICGBENCH_ROOT")
#' if (nzchar(root)) {
#'   release <- icg_release(root)
#'   masks <- icg_read_table(release, "masks", "partial_observability")
#'   str(masks)
#' }
#' @export
icg_read_table <- function(release, table, variant, seed = NULL, truth = FALSE) {
  check_release(release)
  seed <- cohort_seed(release, variant, seed)
  r <- find_resource(release, table, variant, seed)
  if (identical(r[["icgbench:role"]], "truth") && !isTRUE(truth)) {
    fail("%s is a truth table (what the scorer grades against; a model never needs it): pass truth = TRUE to read it",
         r$name)
  }
  path <- file.path(release$base, r$path)
  if (!file.exists(path)) {
    fail("%s: %s is missing (build or download the %s tier: icgbench data build --tier %s)",
         r$name, path, release$tier, release$tier)
  }
  check_csv_file(r, path)
  frame <- utils::read.csv(gzfile(path), colClasses = "character", na.strings = "",
                           check.names = FALSE, stringsAsFactors = FALSE,
                           encoding = "UTF-8")
  conform_table(frame, r$schema, r$name, r[["icgbench:rows"]])
}

check_csv_file <- function(r, path) {
  expected <- sub("^sha256:", "", r$hash)
  actual <- digest::digest(file = path, algo = "sha256")
  if (!identical(actual, expected)) {
    bytes <- tryCatch(memDecompress(read_bytes(path), "gzip"),
                      error = function(e) fail("%s: %s is not a readable gzip file", r$name, path))
    text_hash <- digest::digest(bytes, algo = "sha256", serialize = FALSE)
    if (!identical(paste0("sha256:", text_hash), r[["icgbench:csv_sha256"]])) {
      fail("%s: %s has SHA-256 %s, the descriptor says %s, and its CSV text differs too: the file is altered or from another release",
           r$name, path, actual, expected)
    }
  }
  invisible(path)
}

conform_table <- function(frame, schema, where, rows = NULL) {
  fields <- schema$fields
  names_expected <- vapply(fields, function(f) f$name, "")
  if (!identical(names(frame), names_expected)) {
    fail("%s: columns %s, the Table Schema says %s", where, paste(names(frame), collapse = ","),
         paste(names_expected, collapse = ","))
  }
  if (!is.null(rows) && nrow(frame) != rows) {
    fail("%s: %d rows, the descriptor says %d", where, nrow(frame), as.integer(rows))
  }
  for (f in fields) {
    frame[[f$name]] <- conform_column(frame[[f$name]], f, sprintf("%s$%s", where, f$name))
  }
  frame
}

conform_column <- function(x, field, where) {
  x <- as.character(x)
  present <- !is.na(x)
  if (isTRUE(field$constraints$required) && !all(present)) {
    fail("%s: a required value is missing (row %d)", where, which(!present)[1])
  }
  switch(field$type,
    string = {
      Encoding(x) <- "UTF-8"
      if (!all(validUTF8(x[present]))) fail("%s: a value is not valid UTF-8", where)
      x
    },
    number = {
      out <- rep(NA_real_, length(x))
      out[present] <- parse_doubles(x[present], where)
      out
    },
    integer = {
      bad <- present & !grepl("^-?[0-9]+$", x)
      if (any(bad)) fail("%s: %s is not an integer", where, x[bad][1])
      values <- parse_doubles(x[present], where)
      if (any(abs(values) > .Machine$integer.max)) {
        fail("%s: an integer beyond R's integer range", where)
      }
      out <- rep(NA_integer_, length(x))
      out[present] <- as.integer(values)
      out
    },
    boolean = {
      out <- rep(NA, length(x))
      out[present & x %in% c("true", "True", "TRUE", "1")] <- TRUE
      out[present & x %in% c("false", "False", "FALSE", "0")] <- FALSE
      if (any(present & is.na(out))) {
        fail("%s: %s is not a boolean", where, x[present & is.na(out)][1])
      }
      out
    },
    fail("%s: unknown Table Schema type %s", where, field$type))
}
