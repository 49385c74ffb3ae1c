test_that("AUROC counts ties one half and is NA with one class", {
  expect_equal(icg_auroc(c(0, 1, 0, 1), c(0.5, 0.5, 0.2, 0.9)), 0.875)
  expect_equal(icg_auroc(c(0, 1), c(0.3, 0.3)), 0.5)
  expect_true(is.na(icg_auroc(c(1, 1), c(0.2, 0.3))))
  expect_equal(icg_auprc(c(1, 1), c(0.2, 0.3)), 1)
  expect_true(is.na(icg_auprc(c(0, 0), c(0.2, 0.3))))
})

test_that("ECE bins p = 0.3 into [0.3, 0.4) and p = 1 into the last bin", {
  expect_equal(icg_ece(c(0, 1), c(0.3, 1)), 0.5 * 0.3 + 0.5 * 0)
  expect_equal(icg_ece(1, 0.3), 0.7)
})

test_that("log loss clips at 1 - 1e-15 in doubles", {
  expect_equal(icg_log_loss(0, 1), 53 * log(2) - log(9))
})

test_that("R^2 is rescaled on overflow, floored, and NA for a constant truth", {
  expect_equal(icg_r2(c(0, 1e154), c(-1e154, 2e154)), -3)
  expect_equal(icg_r2(c(0, 2), c(1e300, -1e300)), -.Machine$double.xmax)
  expect_true(is.na(icg_r2(c(1, 1), c(1, 2))))
  expect_equal(icg_r2(c(1, 2, 3), c(1, 2, 3)), 1)
})

test_that("the double helpers match C's frexp and nextafter", {
  expect_equal(icgbench:::frexp_exponent(1), 1)
  expect_equal(icgbench:::frexp_exponent(0.75), 0)
  expect_equal(icgbench:::frexp_exponent(2^1021), 1022)
  expect_equal(icgbench:::frexp_exponent(.Machine$double.xmax), 1024)
  low <- -1.5e308 / 16
  expect_true(icgbench:::next_down(low) < low)
  expect_equal(icgbench:::next_down(2^60), 2^60 - 2^7)
  expect_equal(icgbench:::next_down(2^60 + 2^8), 2^60)
  expect_equal(icgbench:::next_down(-2^60), -2^60 - 2^8)
})

test_that("the intervention delta is summed left to right in doubles", {
  x <- c(1e16, 1, -1e16, 1)
  expect_equal(icgbench:::dsum(x), 1)
})

test_that("the state and intervention names are the published schema's, in its order", {
  schema <- jsonlite::fromJSON(icg_schema_path("submission"), simplifyVector = FALSE)
  expect_identical(names(schema$properties$latent_recovery$properties$states$properties),
                   icg_states())
  expect_identical(
    names(schema$properties$intervention_conformity$properties$interventions$properties),
    icg_interventions())
})

test_that("Spearman's rho ranks ties at their average and is 0 for a constant prediction", {
  expect_equal(icg_rank_correlation(c(0.1, 0.2, 0.2, 0.4), c(0.3, 0.3, 0.3, 0.9)),
               3 / sqrt(13.5))
  expect_equal(icg_rank_correlation(c(0.1, 0.2, 0.3), c(0.5, 0.5, 0.5)), 0)
  expect_true(is.na(icg_rank_correlation(c(1, 1, 1), c(0.1, 0.2, 0.3))))
  expect_equal(icg_rank_correlation(c(1, 2, 3, 4), c(4, 3, 2, 1)), -1)
})
