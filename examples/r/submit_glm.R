#!/usr/bin/env Rscript
# A complete ICg-Bench submission from R, with base R and jsonlite only.
#
#   Rscript examples/r/submit_glm.R [RELEASE_ROOT] [VARIANT] [SEED] [OUT]
#
# Reads one cohort's public .csv.gz tables, fits a logistic glm for the event on the train
# split (exposures, KCC assay readouts, host proxies and the last visit's omics), predicts
# the source test and target-test subjects, and writes a submission with the
# risk_prediction and cross_host_generalization blocks. Then:
#   icgbench validate OUT && icgbench score OUT
# The data are synthetic: nothing here is a prediction about real people.

# The release: RELEASE_ROOT when given (an empty string means: locate it); else the folder
# ICGBENCH_RELEASE names; else the working folder or a parent holding the release; else the
# repository this script sits in. Found nowhere, it says where it looked and exits 2.
script <- sub("^--file=", "", grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE))
script_name <- "submit_glm.R"
source(file.path(if (length(script) == 1) dirname(script) else "examples/r",
                 "find_release.R"))

args <- commandArgs(trailingOnly = TRUE)
root <- find_release(if (length(args) >= 1) args[[1]] else "")
variant <- if (length(args) >= 2) args[[2]] else "linear_lowhet"
seed <- if (length(args) >= 3) as.integer(args[[3]]) else 0L
out <- if (length(args) >= 4) args[[4]] else "r_glm_submission.json"

suppressPackageStartupMessages(library(jsonlite))
pkg <- fromJSON(file.path(root, "datapackage.json"), simplifyVector = FALSE)
cohort <- Filter(function(c) c$variant == variant && c$seed == seed,
                 pkg[["icgbench:cohorts"]])
if (length(cohort) == 0) stop(sprintf("no cohort %s seed %d in this release", variant, seed))

table_path <- function(table) {
  r <- Filter(function(r) r$format == "csv" && r[["icgbench:variant"]] == variant &&
                r[["icgbench:seed"]] == seed && r[["icgbench:table"]] == table,
              pkg$resources)[[1]]
  stopifnot(r[["icgbench:role"]] == "public")
  file.path(root, r$path)
}
read_table <- function(table) {
  read.csv(gzfile(table_path(table)), na.strings = "", stringsAsFactors = FALSE)
}

subjects <- read_table("subjects")
outcomes <- read_table("train_outcomes")
observations <- read_table("observations")

# The last visit's omics, one row per subject; masked values become the train mean.
last <- observations[observations$visit_month == max(observations$visit_month), ]
omics <- grep("^(tx|epi|sig)__", names(last), value = TRUE)
last <- last[, c("subject_id", omics)]
data <- merge(subjects, last, by = "subject_id", all.x = TRUE)
features <- c("dose", grep("^(kcc_assay|proxy)__", names(subjects), value = TRUE), omics)
train_rows <- data$split == "train"
for (f in features) {
  missing <- is.na(data[[f]])
  if (any(missing)) data[[f]][missing] <- mean(data[[f]][train_rows], na.rm = TRUE)
}
train <- merge(data[train_rows, ], outcomes, by = "subject_id")
scaled <- scale(train[, features])
centers <- attr(scaled, "scaled:center")
scales <- attr(scaled, "scaled:scale")
scales[scales == 0] <- 1
design <- function(rows) as.data.frame(scale(rows[, features], centers, scales))
fit <- suppressWarnings(glm(train$event ~ ., data = design(train), family = binomial()))

block <- function(split) {
  rows <- data[data$split == split, ]
  list(subject_id = rows$subject_id,
       proba = unname(predict(fit, newdata = design(rows), type = "response")))
}
submission <- list(
  schema_version = "1.0",
  data_version = pkg$version,
  tier = pkg[["icgbench:tier"]],
  variant = variant,
  variant_hash = cohort[[1]]$variant_hash,
  seed = seed,
  model = list(name = "r-glm", version = "0.1.0", language = "R",
               description = "base-R glm on exposures, assays, proxies and last-visit omics"),
  risk_prediction = block("test"),
  cross_host_generalization = block("target_test")
)
write_json(submission, out, auto_unbox = TRUE, digits = NA)
cat(sprintf("wrote a %s seed %d submission (%d test, %d target subjects) to %s\n", variant,
            seed, length(submission$risk_prediction$subject_id),
            length(submission$cross_host_generalization$subject_id), out))
