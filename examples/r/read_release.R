#!/usr/bin/env Rscript
# Read one cohort's public tables of the ICg-Bench release with base R (+ jsonlite),
# print their dimensions and the train event rate, and check one file's SHA-256.
#
#   Rscript examples/r/read_release.R [RELEASE_ROOT] [VARIANT] [SEED]
#
# The data are synthetic by construction: nothing here is a carcinogenicity
# classification or a prediction about real people.

# The release: RELEASE_ROOT when given (an empty string means: locate it); else the folder
# ICGBENCH_RELEASE names; else the working folder or a parent holding the release; else the
# repository this script sits in. Found nowhere, it says where it looked and exits 2.
script <- sub("^--file=", "", grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE))
script_name <- "read_release.R"
source(file.path(if (length(script) == 1) dirname(script) else "examples/r",
                 "find_release.R"))

args <- commandArgs(trailingOnly = TRUE)
root <- find_release(if (length(args) >= 1) args[[1]] else "")
variant <- if (length(args) >= 2) args[[2]] else "linear_lowhet"
seed <- if (length(args) >= 3) as.integer(args[[3]]) else 0L

suppressPackageStartupMessages(library(jsonlite))
pkg <- fromJSON(file.path(root, "datapackage.json"), simplifyVector = FALSE)
cat(sprintf("ICg-Bench release %s (%s tier); synthetic data\n",
            pkg$version, pkg[["icgbench:tier"]]))

is_wanted <- function(r) {
  r$format == "csv" && r[["icgbench:variant"]] == variant &&
    r[["icgbench:seed"]] == seed && r[["icgbench:role"]] == "public"
}
resources <- Filter(is_wanted, pkg$resources)
if (length(resources) == 0) {
  stop(sprintf("no public CSV resources for variant %s, seed %d", variant, seed))
}

tables <- list()
for (r in resources) {
  name <- r[["icgbench:table"]]
  tbl <- read.csv(gzfile(file.path(root, r$path)), na.strings = "",
                  stringsAsFactors = FALSE)
  if (nrow(tbl) != r[["icgbench:rows"]]) {
    stop(sprintf("%s: %d rows, the descriptor says %d", name, nrow(tbl), r[["icgbench:rows"]]))
  }
  tables[[name]] <- tbl
  cat(sprintf("%-18s %7d rows x %3d columns\n", name, nrow(tbl), ncol(tbl)))
}
cat(sprintf("variant %s (hash %s), seed %d\n", variant,
            resources[[1]][["icgbench:variant_hash"]], seed))
cat(sprintf("train event rate: %.4f\n", mean(tables$train_outcomes$event)))

checked <- resources[[which(vapply(resources, function(r) r[["icgbench:table"]] ==
                                     "train_outcomes", logical(1)))]]
file <- file.path(root, checked$path)
expected <- sub("^sha256:", "", checked$hash)
actual <- NULL
if (requireNamespace("digest", quietly = TRUE)) {
  actual <- digest::digest(file = file, algo = "sha256")
} else if (requireNamespace("openssl", quietly = TRUE)) {
  con <- file(file, "rb")
  actual <- as.character(openssl::sha256(con))
  close(con)
}
if (is.null(actual)) {
  cat("sha256 check skipped: install the digest or openssl R package\n")
} else if (identical(actual, expected)) {
  cat(sprintf("sha256 OK: %s\n", checked$path))
} else {
  cat(sprintf("sha256 MISMATCH: %s (%s != %s)\n", checked$path, actual, expected))
  quit(status = 1)
}
