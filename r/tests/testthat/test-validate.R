test_that("the shipped schemas are the repository's published ones", {
  for (name in c("submission", "score-report", "leaderboard-entry")) {
    published <- file.path(repo_root(), "schemas", paste0(name, ".schema.json"))
    expect_identical(readBin(icg_schema_path(name), "raw", 1e7), readBin(published, "raw", 1e7),
                     info = name)
  }
})

test_that("each schema example is valid against its own schema only", {
  for (name in c("submission", "score-report", "leaderboard-entry")) {
    example <- file.path(repo_root(), "schemas", "examples", paste0(name, ".json"))
    for (schema in c("submission", "score-report", "leaderboard-entry")) {
      verdict <- icg_validate(example, schema)
      expect_identical(verdict$valid, schema == name, info = paste(name, "against", schema))
    }
  }
})

test_that("a conformance fixture is not a submission", {
  for (path in Sys.glob(file.path(repo_root(), "schemas", "conformance", "*.json"))) {
    verdict <- icg_validate(path)
    expect_false(verdict$valid, info = path)
    expect_true(any(grepl("must have required property 'schema_version'", verdict$errors)))
  }
})

submission_example <- function() {
  jsonlite::fromJSON(file.path(repo_root(), "schemas", "examples", "submission.json"),
                     simplifyVector = TRUE, simplifyDataFrame = FALSE, simplifyMatrix = FALSE)
}

test_that("ajv's verdicts on broken submissions", {
  base <- submission_example()
  expect_true(icg_validate(base)$valid)
  cases <- list(
    list(function(d) { d$extra <- 1L; d }, "must NOT have additional properties"),
    list(function(d) { d$model <- NULL; d }, "required property 'model'"),
    list(function(d) { d$risk_prediction$proba[2] <- 1.5; d }, "/risk_prediction/proba/1 must be <= 1"),
    list(function(d) { d$risk_prediction$subject_id[1] <- "XX000001"; d }, "must match pattern"),
    list(function(d) { d$seed <- -1L; d }, "/seed must be >= 0"),
    list(function(d) { d$seed <- 1.5; d }, "/seed must be integer"),
    list(function(d) { d$model$name <- "oracle"; d }, "oracle"),
    list(function(d) { d$model$name <- "r-glm\n"; d }, "/model/name must match pattern"),
    list(function(d) { d$model$url <- "javascript:alert(1)"; d }, "/model/url must match pattern"),
    list(function(d) { d$variant_hash <- "XYZ"; d }, "/variant_hash must match pattern"))
  for (case in cases) {
    verdict <- icg_validate(case[[1]](base))
    expect_false(verdict$valid)
    expect_true(any(grepl(case[[2]], verdict$errors, fixed = TRUE)) ||
                  any(grepl(case[[2]], verdict$errors)), info = case[[2]])
  }
  integral <- base
  integral$seed <- 0
  expect_true(icg_validate(integral)$valid)
})

test_that("files: gzip, not JSON, not UTF-8, JSON text", {
  example <- file.path(repo_root(), "schemas", "examples", "submission.json")
  gz <- tempfile(fileext = ".json.gz")
  con <- gzfile(gz, "wb")
  writeBin(readBin(example, "raw", 1e6), con)
  close(con)
  expect_true(icg_validate(gz)$valid)
  junk <- tempfile(fileext = ".json")
  writeLines("{not json", junk)
  verdict <- icg_validate(junk)
  expect_false(verdict$valid)
  expect_match(verdict$errors, "not readable JSON")
  latin1 <- tempfile(fileext = ".json")
  writeBin(as.raw(c(0x22, 0xe9, 0x22)), latin1)
  expect_identical(icg_validate(latin1)$errors, "/ not valid UTF-8")
  nan <- tempfile(fileext = ".json")
  writeLines('{"seed": NaN}', nan)
  expect_false(icg_validate(nan)$valid)
  expect_false(icg_validate(jsonlite::toJSON(list(seed = 0), auto_unbox = TRUE))$valid)
  expect_error(icg_validate(example, "nope"), "no such file")
  expect_output(print(icg_validate(junk)), "INVALID")
})
