test_that("tables are typed by their Table Schema", {
  release <- small_release()
  masks <- icg_read_table(release, "masks", "partial_observability")
  expect_type(masks$transcriptomic, "logical")
  expect_type(masks$visit_month, "integer")
  expect_type(masks$subject_id, "character")
  expect_true(any(!masks$transcriptomic))
  observations <- icg_read_table(release, "observations", "partial_observability")
  expect_type(observations$mut_total_count, "integer")
  expect_type(observations$tx__p53_checkpoint, "double")
  expect_true(anyNA(observations$tx__p53_checkpoint))
  expect_equal(nrow(observations), 10000)
  expect_identical(names(observations), vapply(
    jsonlite::fromJSON(file.path(repo_root(), "schemas", "tables", "observations.json"),
                       simplifyVector = FALSE)$fields, function(f) f$name, ""))
})

test_that("numbers are read correctly rounded, not by R's own parser", {
  release <- small_release()
  path <- file.path(release$base, "datasets", "small", "linear_lowhet", "seed0",
                    "subjects.csv.gz")
  text <- utils::read.csv(gzfile(path), colClasses = "character")$dose
  table <- icg_read_table(release, "subjects", "linear_lowhet")
  exact <- jsonlite::parse_json(paste0("[", paste(text, collapse = ","), "]"),
                                simplifyVector = TRUE)
  expect_identical(table$dose, exact)
  wrong <- which(as.numeric(text) != exact)
  expect_gt(length(wrong), 0)  # R's own parser misreads some of these literals
  expect_identical(table$dose[wrong], exact[wrong])
})

test_that("every table of the small tier reads, public and truth", {
  release <- small_release()
  resources <- Filter(function(r) r$format == "csv" && r[["icgbench:variant"]] == "nonlinear_obs" &&
                        r[["icgbench:table"]] != "observations", release$descriptor$resources)
  for (r in resources) {
    table <- icg_read_table(release, r[["icgbench:table"]], "nonlinear_obs", truth = TRUE)
    expect_equal(nrow(table), r[["icgbench:rows"]])
    types <- vapply(r$schema$fields, function(f) f$type, "")
    expected <- c(string = "character", integer = "integer", number = "double",
                  boolean = "logical")[types]
    expect_identical(unname(vapply(table, typeof, "")), unname(expected), info = r$name)
  }
})

test_that("a truth table needs truth = TRUE; unknown names are named", {
  release <- small_release()
  expect_error(icg_read_table(release, "test_outcomes", "linear_lowhet"), "truth table")
  expect_error(icg_read_table(release, "nope", "linear_lowhet"), "no table \"nope\"")
  expect_error(icg_read_table(release, "subjects", "nope"), "no variant \"nope\"")
  expect_error(icg_read_table(release, "subjects", "linear_lowhet", seed = 7), "no cohort")
  expect_error(icg_release(tempdir()), "no small-tier descriptor")
})

copy_release <- function(release, table) {
  root <- tempfile("release-")
  r <- Filter(function(r) r$format == "csv" && r[["icgbench:table"]] == table &&
                r[["icgbench:variant"]] == "linear_lowhet", release$descriptor$resources)[[1]]
  dir.create(file.path(root, dirname(r$path)), recursive = TRUE)
  file.copy(file.path(release$base, "datapackage.json"), root)
  list(root = root, path = file.path(root, r$path), source = file.path(release$base, r$path))
}

test_that("an altered file is refused; recompressed identical text is accepted", {
  release <- small_release()
  copy <- copy_release(release, "train_outcomes")
  con <- gzfile(copy$source)
  lines <- readLines(con)
  close(con)
  con <- gzfile(copy$path, "w", compression = 1)
  writeLines(lines, con, sep = "\n")
  close(con)
  reread <- icg_read_table(icg_release(copy$root), "train_outcomes", "linear_lowhet")
  expect_identical(reread, icg_read_table(release, "train_outcomes", "linear_lowhet"))
  lines[2] <- sub(",[01]$", ",9", lines[2])
  con <- gzfile(copy$path, "w")
  writeLines(lines, con, sep = "\n")
  close(con)
  expect_error(icg_read_table(icg_release(copy$root), "train_outcomes", "linear_lowhet"),
               "SHA-256 .* CSV text differs")
})

test_that("the full tier's files are read when present", {
  root <- repo_root()
  if (!file.exists(file.path(root, "datasets", "full", "linear_lowhet", "seed1",
                             "subjects.csv.gz"))) {
    skip("the full tier is not built (icgbench data build --tier full)")
  }
  full <- icg_release(root, "full")
  expect_equal(unique(icg_cohorts(full)$seed), 1:60)
  expect_error(icg_read_table(full, "subjects", "linear_lowhet"), "name one")
  expect_equal(nrow(icg_read_table(full, "train_outcomes", "linear_lowhet", seed = 2)), 600)
})
