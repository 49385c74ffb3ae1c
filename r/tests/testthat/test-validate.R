# Past the schema layer: valid, or refused only by the release's checks (the example's
# header and ids are not a cohort of this release).
schema_ok <- function(verdict) verdict$valid || identical(verdict$stage, "semantic")

test_that("the shipped schemas are the repository's published ones", {
  for (name in c("submission", "score-report", "leaderboard-entry")) {
    published <- file.path(repo_root(), "schemas", paste0(name, ".schema.json"))
    expect_identical(readBin(icg_schema_path(name), "raw", 1e7), readBin(published, "raw", 1e7),
                     info = name)
  }
})

test_that("each schema example is valid against its own schema only", {
  skip_if_not_installed("V8")
  for (name in c("submission", "score-report", "leaderboard-entry")) {
    example <- file.path(repo_root(), "schemas", "examples", paste0(name, ".json"))
    for (schema in c("submission", "score-report", "leaderboard-entry")) {
      verdict <- icg_validate(example, schema)
      expect_identical(schema_ok(verdict), schema == name, info = paste(name, "against", schema))
    }
  }
})

test_that("a conformance fixture is not a submission", {
  skip_if_not_installed("V8")
  for (path in Sys.glob(file.path(repo_root(), "schemas", "conformance", "*.json"))) {
    verdict <- icg_validate(path)
    expect_false(verdict$valid, info = path)
    expect_true(any(verdict$errors == '/: "schema_version" is required'), info = path)
  }
})

submission_example <- function() {
  jsonlite::fromJSON(file.path(repo_root(), "schemas", "examples", "submission.json"),
                     simplifyVector = TRUE, simplifyDataFrame = FALSE, simplifyMatrix = FALSE)
}

test_that("the schema layer's verdicts on broken submissions, in the scorer's words", {
  skip_if_not_installed("V8")
  base <- submission_example()
  expect_true(schema_ok(icg_validate(base)))
  cases <- list(
    list(function(d) { d$extra <- 1L; d }, '/: unknown key(s) not allowed: "extra"'),
    list(function(d) { d$model <- NULL; d }, '/: "model" is required'),
    list(function(d) { d$risk_prediction$proba[2] <- 1.5; d },
         "/risk_prediction/proba/1: 1.5 is greater than the maximum of 1"),
    list(function(d) { d$risk_prediction$subject_id[1] <- "XX000001"; d },
         '/risk_prediction/subject_id/0: "XX000001" is not a subject id: TR, TE or TG'),
    list(function(d) { d$seed <- -1L; d }, "/seed: -1 is less than the minimum of 0"),
    list(function(d) { d$seed <- 1.5; d }, "/seed: 1.5 is not of type integer"),
    list(function(d) { d$model$name <- "oracle"; d }, "oracle"),
    list(function(d) { d$model$name <- "r-glm\n"; d }, '/model/name: "r-glm\\n" is not a name of 1 to 64'),
    list(function(d) { d$model$url <- "javascript:alert(1)"; d }, "/model/url: "),
    list(function(d) { d$variant_hash <- "XYZ"; d },
         '/variant_hash: "XYZ" is not a hash of 12 lowercase hexadecimal digits'))
  for (case in cases) {
    verdict <- icg_validate(case[[1]](base))
    expect_identical(verdict$stage, "schema", info = case[[2]])
    expect_true(any(startsWith(verdict$errors, case[[2]])) ||
                  any(grepl(case[[2]], verdict$errors, fixed = TRUE)), info = case[[2]])
  }
  integral <- base
  integral$seed <- 0
  expect_true(schema_ok(icg_validate(integral)))
})

test_that("files: gzip, not JSON, not UTF-8, JSON text", {
  skip_if_not_installed("V8")
  example <- file.path(repo_root(), "schemas", "examples", "submission.json")
  gz <- tempfile(fileext = ".json.gz")
  con <- gzfile(gz, "wb")
  writeBin(readBin(example, "raw", 1e6), con)
  close(con)
  expect_true(schema_ok(icg_validate(gz)))
  junk <- tempfile(fileext = ".json")
  writeLines("{not json", junk)
  verdict <- icg_validate(junk)
  expect_false(verdict$valid)
  expect_match(verdict$errors, "^/: not valid JSON: ")
  latin1 <- tempfile(fileext = ".json")
  writeBin(as.raw(c(0x22, 0xe9, 0x22)), latin1)
  expect_identical(icg_validate(latin1)$errors,
                   "/: not valid UTF-8 at byte offset 1 (invalid continuation byte)")
  truncated <- tempfile(fileext = ".json.gz")
  con <- gzfile(truncated, "wb")
  writeBin(readBin(example, "raw", 1e6), con)
  close(con)
  whole <- readBin(truncated, "raw", 1e6)
  writeBin(whole[seq_len(length(whole) - 20)], truncated)
  expect_identical(icg_validate(truncated)$errors, "/: truncated gzip data")
  writeBin(c(whole, as.raw(1:3)), truncated)
  expect_match(icg_validate(truncated)$errors, "^/: 3 byte\\(s\\) after the end of the gzip")
  nan <- tempfile(fileext = ".json")
  writeLines('{"seed": NaN}', nan)
  expect_false(icg_validate(nan)$valid)
  expect_false(icg_validate(jsonlite::toJSON(list(seed = 0), auto_unbox = TRUE))$valid)
  expect_error(icg_validate(example, "nope"), "schema must be .* got \"nope\"")
  expect_error(icg_validate(example, icg_schema_path("submission")), "the published schemas")
  expect_output(print(icg_validate(junk)), "INVALID")
})

test_that("a verdict prints untrusted text with nothing hidden, as Python escapes it", {
  skip_if_not_installed("V8")
  # issue 49, item 14: the R package printed untrusted text raw
  hidden <- paste0("a", intToUtf8(0x200B), "b", intToUtf8(0xFEFF), "c", intToUtf8(0xE0041),
                   "d", intToUtf8(0x202E), "e", intToUtf8(0x1B), "f\n")
  expect_equal(icgbench:::printable_text(hidden),
               "a\\u200bb\\ufeffc\\U000e0041d\\u202ee\\x1bf\\n")
  expect_equal(icgbench:::printable_text("plain é text"), "plain é text")
  verdict <- structure(list(document = hidden, valid = FALSE, stage = "schema", count = 1L,
                            errors = paste0("/model/name: ", hidden)), class = "icg_verdict")
  printed <- paste(capture.output(print(verdict)), collapse = "\n")
  expect_false(grepl(intToUtf8(0x200B), printed, fixed = TRUE))
  expect_true(grepl("a\\u200bb", printed, fixed = TRUE))
})
