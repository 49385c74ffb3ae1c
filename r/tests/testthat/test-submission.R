hard_doubles <- function() {
  set.seed(1)
  c(0.1, 0.2 + 0.1, 1 / 3, 2 / 3, 0.933840784504193, 7823.541597592372,
    5.741702597780566e-152, 8.771792285560009e-308, 2^-1074, .Machine$double.xmax,
    -.Machine$double.xmax, 1e22, 1e23, 123456789012345678, -0.5, 0, 1, 1 - 2^-53,
    stats::runif(2000), stats::rnorm(2000) * 10^stats::runif(2000, -300, 300))
}

test_that("doubles are written in full precision and read back identically", {
  x <- hard_doubles()
  text <- icg_format_doubles(x)
  expect_identical(as.double(jsonlite::parse_json(paste0("[", paste(text, collapse = ","), "]"),
                                                  simplifyVector = TRUE)), x)
  expect_true(all(nchar(sub("^0+", "", gsub("[-.]|e.*$", "", text))) <= 17))
  expect_identical(icg_format_doubles(c(0.1, 0.5, 1e-5)), c("0.1", "0.5", "1e-05"))
  lossy <- jsonlite::parse_json(as.character(jsonlite::toJSON(x, digits = NA)),
                                simplifyVector = TRUE)
  expect_false(identical(lossy, x))
})

test_that("a written submission reads back identically, plain and gzipped", {
  x <- hard_doubles()
  x <- x[x >= 0 & x <= 1]
  ids <- sprintf("TE%06d", seq_along(x))
  sub <- list(schema_version = "1.0", data_version = "5.0.0", tier = "small",
              variant = "linear_lowhet", variant_hash = "bcfaa11dd012", seed = 0L,
              model = model(), risk_prediction = list(subject_id = ids, proba = x))
  for (ext in c(".json", if (requireNamespace("V8", quietly = TRUE)) ".json.gz")) {
    path <- tempfile(fileext = ext)
    icg_write_submission(sub, path)
    expect_identical(icg_read_submission(path), sub)
    magic <- readBin(path, "raw", 2)
    expect_equal(identical(magic, as.raw(c(0x1f, 0x8b))), ext == ".json.gz")
    again <- tempfile(fileext = ext)
    icg_write_submission(sub, again)
    expect_identical(readBin(again, "raw", 1e7), readBin(path, "raw", 1e7))
  }
  expect_error(icg_write_submission(sub, file.path(tempfile(), "x.json")), "no folder")
})

test_that("header values are scalars and block arrays stay arrays at length one", {
  sub <- list(schema_version = "1.0", seed = 0, model = list(name = "a"),
              risk_prediction = list(subject_id = "TE000001", proba = 0.25),
              structure_recovery = list(source = "ROS", target = "event", score = 2, k = 3L))
  expect_identical(icgbench:::submission_json(sub), paste0(
    '{"schema_version":"1.0","seed":0,"model":{"name":"a"},',
    '"risk_prediction":{"subject_id":["TE000001"],"proba":[0.25]},',
    '"structure_recovery":{"source":["ROS"],"target":["event"],"score":[2],"k":3}}'))
})

test_that("non-finite and missing values are refused, naming where", {
  sub <- list(schema_version = "1.0", risk_prediction = list(subject_id = c("a", "b"),
                                                             proba = c(0.1, NaN)))
  expect_error(icg_write_submission(sub, tempfile(), validate = FALSE),
               "risk_prediction\\$proba\\[2\\]: NaN is not finite")
  sub$risk_prediction$proba <- c(0.1, NA)
  expect_error(icg_write_submission(sub, tempfile(), validate = FALSE),
               "risk_prediction\\$proba\\[2\\]: a value is missing")
})

test_that("icg_submission builds every block from data frames, with the release's header", {
  release <- small_release()
  subjects <- icg_read_table(release, "subjects", "misspecified_signs")
  test <- subjects$subject_id[subjects$split == "test"]
  target <- subjects$subject_id[subjects$split == "target_test"]
  states <- as.data.frame(stats::setNames(rep(list(0.5), 9), icg_states()))
  dos <- as.data.frame(stats::setNames(rep(list(0.4), 7), icg_interventions()))
  sub <- icg_submission(
    release, "misspecified_signs", model = model(),
    risk_prediction = data.frame(subject_id = test, proba = 0.5),
    latent_recovery = data.frame(subject_id = test, states),
    intervention_conformity = data.frame(subject_id = test, proba = 0.5, dos),
    cross_host_generalization = data.frame(subject_id = target, proba = 0.5),
    structure_recovery = data.frame(source = "ROS", target = "inflammation", score = 1), k = 5)
  expect_identical(sub$variant_hash, "6ca653c6ed63")
  expect_identical(sub$data_version, release$descriptor$version)
  expect_identical(names(sub$latent_recovery$states), icg_states())
  expect_identical(sub$structure_recovery$k, 5L)
  if (requireNamespace("V8", quietly = TRUE)) expect_true(icg_validate(sub)$valid)
  expect_error(icg_submission(release, "misspecified_signs", model = model()), "at least one")
  expect_error(icg_submission(release, "misspecified_signs", model = model(),
                              latent_recovery = data.frame(subject_id = test, bogus = 1)),
               "bogus is not a state")
})
