test_that("every conformance fixture is reproduced to the stated tolerance", {
  paths <- Sys.glob(file.path(repo_root(), "schemas", "conformance", "*.json"))
  expect_length(paths, 27)
  checks <- do.call(rbind, lapply(paths, icg_conformance))
  expect_setequal(unique(checks$case), sub("\\.json$", "", basename(paths)))
  failed <- checks[!checks$ok, ]
  expect_equal(nrow(failed), 0,
               info = paste(failed$case, failed$task, failed$metric, failed$expected,
                            failed$actual, collapse = "\n"))
  expect_equal(nrow(checks), 220)  # as Python's run_case over the same files
})

test_that("the pinned wrong rules give values the tolerance refuses", {
  paths <- Sys.glob(file.path(repo_root(), "schemas", "conformance", "*.json"))
  for (path in paths) {
    case <- jsonlite::fromJSON(path, simplifyVector = FALSE)
    checks <- icg_conformance(path)
    for (metric in names(case$wrong_rule_gives)) {
      actual <- checks$actual[checks$metric %in% c(metric, paste(metric, "(normalized)"))]
      expect_false(icg_close(case$wrong_rule_gives[[metric]], actual),
                   info = paste(basename(path), metric))
    }
  }
})

test_that("the tolerance is math.isclose(rel_tol = 1e-9, abs_tol = 1e-9)", {
  expect_true(icg_close(1, 1 + 1e-10))
  expect_false(icg_close(0, 2e-9))
  expect_true(icg_close(1e12, 1e12 + 900))
  expect_false(icg_close(1e12, 1e12 + 1100))
  expect_true(icg_close(NA, NULL))
  expect_false(icg_close(NA, 0))
  expect_true(icg_close(-.Machine$double.xmax, -.Machine$double.xmax))
})

test_that("a fixture whose blocks do not match its truth is refused", {
  path <- file.path(repo_root(), "schemas", "conformance", "auroc_ties.json")
  case <- jsonlite::fromJSON(path, simplifyVector = FALSE)
  case$blocks$risk_prediction$proba[[1]] <- NULL
  broken <- tempfile(fileext = ".json")
  writeLines(jsonlite::toJSON(case, auto_unbox = TRUE, digits = NA, null = "null"), broken)
  expect_error(icg_conformance(broken), "fixture blocks are invalid")
})
