cohort_submission <- function(release, variant, truth) {
  set.seed(3)
  test <- truth$ids$test
  target <- truth$ids$target_test
  states <- as.data.frame(lapply(truth$end_states, function(x) x + stats::rnorm(length(x))))
  base <- stats::runif(length(test))
  dos <- as.data.frame(stats::setNames(lapply(icg_interventions(), function(n) {
    pmin(pmax(base + stats::rnorm(length(test), 0, 0.01), 0), 1)
  }), icg_interventions()))
  icg_submission(
    release, variant, model = model(),
    risk_prediction = data.frame(subject_id = test, proba = truth$true_risk$test),
    latent_recovery = data.frame(subject_id = test, states),
    intervention_conformity = data.frame(subject_id = test, proba = base, dos),
    cross_host_generalization = data.frame(subject_id = target,
                                           proba = truth$true_risk$target_test),
    structure_recovery = data.frame(source = truth$edges$source, target = truth$edges$target,
                                    score = seq_len(nrow(truth$edges))))
}

test_that("a whole cohort is graded, in any row order, with its baselines", {
  release <- small_release()
  truth <- cached_truth("linear_lowhet")
  sub <- cohort_submission(release, "linear_lowhet", truth)
  score <- icg_score(sub, truth)
  expect_identical(names(score$tasks), c("risk_prediction", "latent_recovery",
                                         "intervention_conformity",
                                         "cross_host_generalization", "structure_recovery"))
  expect_equal(score$tasks$cross_host_generalization$metrics$excess_transfer_gap, 0)
  expect_equal(score$tasks$structure_recovery$metrics$directed_f1, 1)
  expect_equal(score$tasks$structure_recovery$metrics$k, nrow(truth$edges))
  expect_gt(score$summary$auroc, 0.6)
  expect_equal(score$tasks$risk_prediction$random_baseline$auprc, mean(truth$event$test))
  shuffled <- sub
  o <- rev(seq_along(sub$risk_prediction$subject_id))
  shuffled$risk_prediction <- lapply(sub$risk_prediction, function(x) x[o])
  shuffled$latent_recovery$subject_id <- sub$latent_recovery$subject_id[o]
  shuffled$latent_recovery$states <- lapply(sub$latent_recovery$states, function(x) x[o])
  again <- icg_score(shuffled, truth)
  expect_identical(again$tasks$risk_prediction$metrics, score$tasks$risk_prediction$metrics)
  expect_identical(again$tasks$latent_recovery$metrics, score$tasks$latent_recovery$metrics)
  skip_if_not_installed("V8")  # reading gzip back needs V8
  path <- tempfile(fileext = ".json.gz")
  icg_write_submission(sub, path)
  expect_identical(icg_score(path, truth), score)
})

test_that("ids must be exactly the split's subjects; the cohort must match", {
  skip_if_not_installed("V8")  # the checker's messages
  release <- small_release()
  truth <- cached_truth("nonlinear_mixhost")
  test <- truth$ids$test
  sub <- icg_submission(release, "nonlinear_mixhost", model = model(),
                        risk_prediction = data.frame(subject_id = test, proba = 0.5))
  broken <- sub
  broken$risk_prediction$subject_id[1:2] <- c(test[3], "TE999999")
  expect_error(icg_score(broken, truth), "/risk_prediction/subject_id: duplicate ids: ",
               class = "icg_invalid")
  expect_error(icg_score(broken, truth), "2 test subject\\(s\\) missing: ")
  expect_error(icg_score(broken, truth), "1 id\\(s\\) not in the test split: TE999999")
  short <- sub
  short$risk_prediction$proba <- short$risk_prediction$proba[-1]
  expect_error(icg_score(short, truth), "parallel arrays differ in length")
  other <- sub
  other$variant <- "linear_lowhet"
  expect_error(icg_score(other, truth), "/variant_hash: ", class = "icg_invalid")
  lonely <- sub
  lonely$cross_host_generalization <- lonely$risk_prediction
  lonely$risk_prediction <- NULL
  expect_error(icg_score(lonely, truth), "without risk_prediction")
})

test_that("structure_k and responsive_threshold are the scorer's options", {
  release <- small_release()
  truth <- cached_truth("linear_lowhet")
  sub <- cohort_submission(release, "linear_lowhet", truth)
  expect_equal(icg_score(sub, truth, structure_k = 3)$tasks$structure_recovery$metrics$k, 3)
  loose <- icg_score(sub, truth, responsive_threshold = 0)
  expect_equal(loose$tasks$intervention_conformity$details$responsive_threshold, 0)
})

test_that("without V8 a submission is written and scored, unchecked, and validating says how", {
  old <- options(icgbench.without_v8 = TRUE)
  on.exit(options(old))
  release <- small_release()
  truth <- cached_truth("linear_lowhet")
  sub <- icg_submission(release, "linear_lowhet", model = model(),
                        risk_prediction = data.frame(subject_id = truth$ids$test, proba = 0.3))
  path <- tempfile(fileext = ".json")
  icg_write_submission(sub, path)
  expect_equal(icg_score(path, truth)$tasks$risk_prediction$metrics$auroc, 0.5)
  expect_error(icg_validate(path), "validating a submission needs the R package V8")
  expect_error(icg_validate(path, "score-report"), "validating a document needs the R package V8")
  gz <- tempfile(fileext = ".json.gz")
  icg_write_submission(sub, gz)
  expect_error(icg_read_submission(gz), "reading a gzip-compressed file needs the R package V8")
})
