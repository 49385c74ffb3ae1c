RESPONSIVE_THRESHOLD <- 0.005
TOLERANT_ZERO <- 1e-3
ZERO_DELTA <- 1e-12

few <- function(x) {
  shown <- paste(utils::head(x, 5), collapse = ", ")
  if (length(x) > 5) sprintf("%s (and %d more)", shown, length(x) - 5) else shown
}

block_arrays <- function(block, prefix = character()) {
  out <- list()
  for (key in names(block)) {
    value <- block[[key]]
    if (is.list(value)) {
      out <- c(out, block_arrays(value, c(prefix, key)))
    } else if (key != "k") {
      out[[paste(c(prefix, key), collapse = ".")]] <- value
    }
  }
  out
}

# The block's arrays as doubles in the truth's subject order, after the checks no schema
# can make: equal lengths, finite numbers, and ids exactly the split's subjects.
align_block <- function(name, block, truth) {
  arrays <- block_arrays(block)
  lengths <- vapply(arrays, length, 0L)
  if (length(unique(lengths)) > 1) {
    fail("%s: parallel arrays differ in length (%s)", name,
         paste(sprintf("%s has %d", names(lengths), lengths), collapse = ", "))
  }
  for (key in setdiff(names(arrays), c("subject_id", "source", "target"))) {
    x <- arrays[[key]]
    if (!is.numeric(x)) fail("%s.%s: numbers expected", name, key)
    if (!all(is.finite(x))) {
      fail("%s.%s[%d]: number is not finite", name, key, which(!is.finite(x))[1] - 1L)
    }
  }
  split <- block_split(name)
  if (is.null(split)) return(block)
  ids <- as.character(block$subject_id)
  expected <- truth$ids[[split]]
  if (identical(ids, expected)) {
    order <- NULL
  } else {
    position <- match(ids, expected)
    problems <- c(
      if (anyDuplicated(ids)) sprintf("duplicate ids: %s", few(unique(ids[duplicated(ids)]))),
      if (!all(expected %in% ids)) sprintf("%d %s subject(s) missing: %s",
                                           sum(!(expected %in% ids)), split,
                                           few(expected[!(expected %in% ids)])),
      if (anyNA(position)) sprintf("%d id(s) not in the %s split: %s", sum(is.na(position)),
                                   split, few(ids[is.na(position)])))
    if (length(problems)) fail("%s.subject_id: %s", name, paste(problems, collapse = "; "))
    order <- integer(length(position))
    order[position] <- seq_along(position)
  }
  reorder <- function(x) {
    if (is.list(x)) return(lapply(x, reorder))
    x <- as.double(x)
    if (is.null(order)) x else x[order]
  }
  lapply(block[setdiff(names(block), "subject_id")], reorder)
}

# Spearman's rho of p with the reachable risk of a split (NA without it).
reachable_correlation <- function(truth, split, p) {
  reach <- truth$reachable_risk[[split]]
  if (is.null(reach)) NA_real_ else icg_rank_correlation(reach, p)
}

score_risk <- function(blocks, truth) {
  p <- blocks$risk_prediction$proba
  y <- truth$event$test
  ranking <- ranking_metrics(y, p)
  list(metrics = list(spearman_reachable = reachable_correlation(truth, "test", p),
                      auroc = ranking[1], auprc = ranking[2], brier = icg_brier(y, p),
                      log_loss = icg_log_loss(y, p), ece = icg_ece(y, p),
                      mean_proba = mean(p), event_rate = mean(y)),
       details = list(n = length(y)))
}

score_latent <- function(blocks, truth) {
  states <- blocks$latent_recovery$states
  metrics <- list()
  for (s in intersect(icg_states(), names(states))) {
    metrics[[paste0("r2__", s)]] <- icg_r2(truth$end_states[[s]], states[[s]])
  }
  parts <- vapply(icg_states(), function(s) {
    value <- metrics[[paste0("r2__", s)]]
    if (is.null(value) || is.na(value)) 0 else value
  }, 0)
  metrics$r2_mean <- mean_parts(unname(parts))
  metrics$n_states <- length(states)
  list(metrics = metrics,
       details = list(states_submitted = intersect(icg_states(), names(states))))
}

true_effects <- function(truth) {
  stats::setNames(lapply(icg_interventions(), function(n) {
    if (is.null(truth$counterfactual[[n]])) fail("the truth has no counterfactual risk for %s", n)
    truth$counterfactual[[n]] - truth$true_risk$test
  }), icg_interventions())
}

delta_sign <- function(delta) if (abs(delta) < ZERO_DELTA) 0L else as.integer(sign(delta))

score_intervention <- function(blocks, truth, threshold = RESPONSIVE_THRESHOLD) {
  block <- blocks$intervention_conformity
  base <- block$proba
  submitted <- block$interventions
  true <- true_effects(truth)
  metrics <- list()
  details <- list()
  prior_ok <- tolerant_ok <- dgp_ok <- responsive_ok <- 0
  squared <- list()
  abs_errors <- numeric()
  for (name in icg_interventions()) {
    prior <- truth$prior_direction[[name]]
    dgp <- truth$dgp_direction[[name]]
    true_delta <- mean(true[[name]])
    present <- name %in% names(submitted)
    if (present) {
      effect <- submitted[[name]] - base
      delta <- dsum(effect) / length(effect)
    } else {
      effect <- numeric(length(true[[name]]))
      delta <- NA_real_
    }
    sign <- if (present) delta_sign(delta) else 0L
    p_ok <- present && sign == prior
    t_ok <- present && (sign == prior || abs(delta) <= TOLERANT_ZERO)
    d_ok <- present && sign == dgp
    r_ok <- d_ok && abs(delta) >= threshold
    prior_ok <- prior_ok + p_ok
    tolerant_ok <- tolerant_ok + t_ok
    dgp_ok <- dgp_ok + d_ok
    responsive_ok <- responsive_ok + r_ok
    squared[[name]] <- (effect - true[[name]])^2
    error <- (if (present) delta else 0) - true_delta
    abs_errors <- c(abs_errors, abs(error))
    metrics[[paste0("delta__", name)]] <- delta
    metrics[[paste0("ate_error__", name)]] <- error
    details[[name]] <- list(delta = delta, true_delta = true_delta, prior_direction = prior,
                            dgp_direction = dgp, prior_conforms = p_ok, dgp_conforms = d_ok,
                            responsive = r_ok, submitted = present)
  }
  k <- length(icg_interventions())
  metrics <- c(list(prior_conformity = prior_ok / k, prior_conformity_tolerant = tolerant_ok / k,
                    dgp_conformity = dgp_ok / k, responsive_dgp_conformity = responsive_ok / k,
                    pehe = sqrt(mean(unlist(squared, use.names = FALSE))),
                    ate_mae = mean(abs_errors)), metrics)
  list(metrics = metrics,
       details = list(responsive_threshold = threshold, tolerant_zero = TOLERANT_ZERO,
                      zero_delta = ZERO_DELTA, interventions = details))
}

true_gap <- function(truth) {
  icg_auroc(truth$event$test, truth$true_risk$test) -
    icg_auroc(truth$event$target_test, truth$true_risk$target_test)
}

score_cross_host <- function(blocks, truth) {
  source <- icg_auroc(truth$event$test, blocks$risk_prediction$proba)
  target <- icg_auroc(truth$event$target_test, blocks$cross_host_generalization$proba)
  gap <- source - target
  reference <- true_gap(truth)
  list(metrics = list(spearman_reachable_target = reachable_correlation(
                        truth, "target_test", blocks$cross_host_generalization$proba),
                      auroc_source = source, auroc_target = target, transfer_gap = gap,
                      excess_transfer_gap = gap - reference),
       details = list(n_target = length(truth$event$target_test), true_gap = reference))
}

task_blocks <- function(task) {
  for (t in static_facts()$tasks) if (identical(t[[1]], task)) return(unlist(t[[2]]))
  stop("unknown task ", task)
}

#' Random baselines of every metric, for one truth
#'
#' What a predictor carrying no information scores, as the score report's
#' `metric_info.<task>.<metric>.random_baseline` gives it; `NA` where a metric
#' has none. See docs/tasks.md for each formula.
#'
#' @param truth An [icg_truth()].
#' @param tasks The tasks to give.
#' @return A list: task -> metric -> value.
#' @export
icg_baselines <- function(truth, tasks = task_names()) {
  out <- list()
  n <- length(truth$ids$test)
  sd <- sqrt(1 / (6 * n))
  if ("risk_prediction" %in% tasks) {
    prevalence <- mean(truth$event$test)
    out$risk_prediction <- list(spearman_reachable = 0, auroc = 0.5, auprc = prevalence, brier = 1 / 3, log_loss = 1,
                                ece = ece_of_uniform(prevalence), mean_proba = 0.5,
                                event_rate = prevalence)
  }
  if ("latent_recovery" %in% tasks) {
    out$latent_recovery <- c(stats::setNames(as.list(rep(0, 9)), paste0("r2__", icg_states())),
                             list(r2_mean = 0, n_states = NA_real_))
  }
  if ("intervention_conformity" %in% tasks) {
    effects <- true_effects(truth)
    baseline <- list(
      prior_conformity = 0.5,
      prior_conformity_tolerant = 0.5 + 0.5 * p_abs_below(TOLERANT_ZERO, sd),
      dgp_conformity = 0.5,
      responsive_dgp_conformity = 0.5 * (1 - p_abs_below(RESPONSIVE_THRESHOLD, sd)),
      pehe = sqrt(1 / 6 + mean(unlist(effects, use.names = FALSE)^2)),
      ate_mae = mean(vapply(effects, function(e) expected_abs_normal(-mean(e), sd), 0)))
    descriptive <- paste0(rep(c("delta__", "ate_error__"), each = 7), icg_interventions())
    out$intervention_conformity <- c(baseline, stats::setNames(
      as.list(rep(NA_real_, length(descriptive))), descriptive))
  }
  if ("cross_host_generalization" %in% tasks) {
    out$cross_host_generalization <- list(spearman_reachable_target = 0, auroc_source = 0.5,
                                          auroc_target = 0.5,
                                          transfer_gap = 0, excess_transfer_gap = -true_gap(truth))
  }
  if ("structure_recovery" %in% tasks) {
    n_nodes <- length(truth$nodes)
    none <- c("k", "directed_precision", "directed_recall", "directed_f1", "skeleton_f1",
              "shd", "shd_reversal_2", "f1_range_k_pm5")
    out$structure_recovery <- c(
      stats::setNames(as.list(rep(NA_real_, length(none))), none),
      list(edge_auroc = 0.5, edge_auprc = nrow(truth$edges) / (n_nodes * (n_nodes - 1)),
           orientation_score = 0.5, orientation_auc_y1 = 0.5, orientation_auc_y2 = 0.5,
           n_scored_pairs = NA_real_))
  }
  out
}

grade_blocks <- function(blocks, truth, structure_k = NULL,
                         responsive_threshold = RESPONSIVE_THRESHOLD) {
  results <- list()
  present <- names(blocks)
  for (task in task_names()) {
    if (!all(task_blocks(task) %in% present)) next
    results[[task]] <- switch(task,
      risk_prediction = score_risk(blocks, truth),
      latent_recovery = score_latent(blocks, truth),
      intervention_conformity = score_intervention(blocks, truth, responsive_threshold),
      cross_host_generalization = score_cross_host(blocks, truth),
      structure_recovery = score_structure(blocks$structure_recovery, truth, structure_k))
  }
  results
}


# chance level and ceiling of every part of a task's category score
category_parts <- function(task, result, truth) {
  b <- result$random_baseline
  reach <- truth$reachable_risk
  switch(task,
    risk_prediction = {
      top <- score_risk(list(risk_prediction = list(proba = reach$test)), truth)$metrics
      list(spearman_reachable = c(b$spearman_reachable, top$spearman_reachable))
    },
    latent_recovery = list(r2_mean = c(0, 1)),
    intervention_conformity = {
      top <- score_intervention(list(intervention_conformity = list(
        proba = reach$test, interventions = truth$reachable_counterfactual)), truth)$metrics
      list(pehe = c(b$pehe, top$pehe), ate_mae = c(b$ate_mae, top$ate_mae))
    },
    cross_host_generalization = {
      top <- score_cross_host(list(risk_prediction = list(proba = reach$test),
                                   cross_host_generalization = list(proba = reach$target_test)),
                              truth)$metrics
      list(spearman_reachable_target = c(0, top$spearman_reachable_target))
    },
    structure_recovery = {
      n <- length(truth$nodes)
      e <- nrow(truth$edges)
      density <- if (e == 0) NA_real_ else e / (n * (n - 1))
      list(directed_f1 = c(density, 1), edge_auprc = c(b$edge_auprc, 1))
    })
}

LOWER_IS_BETTER <- c("pehe", "ate_mae")

# The floor of one part: the row of the panel's table marked as the floor (the answer
# chosen without the cohort's held-out subjects); NA without a panel.
part_floor <- function(task, metric, truth) {
  panel <- truth$panel
  if (is.null(panel)) return(list(value = NA_real_, answer = NA_character_))
  at <- which(panel$task == task & panel$metric == metric)
  if (!length(at)) return(list(value = NA_real_, answer = NA_character_))
  list(value = panel$value[at[1]], answer = panel$answer[at[1]])
}

# min((score - floor) / (ceiling - floor), 1): negative below the floor, a missing score
# counting as the floor; NA when the ceiling is not better than the floor.
normalize <- function(score, floor, ceiling, higher_is_better = TRUE) {
  if (is.null(floor) || is.null(ceiling) || !is.finite(floor) || !is.finite(ceiling)) {
    return(NA_real_)
  }
  if (if (higher_is_better) ceiling <= floor else ceiling >= floor) return(NA_real_)
  if (is.null(score) || !is.finite(score)) return(0)
  min(1, max(-1e12, (score - floor) / (ceiling - floor)))
}

IN_SAMPLE <- "in-sample: this cohort's own best K (not calibrated)"

# Per task: each part's score, floor (and the answer that sets it), ceiling and normalized
# value on this cohort; NA parts when the result cannot be normalized (a graph graded at
# its own best K).
normalized_parts <- function(results, truth) {
  out <- list()
  for (task in names(results)) {
    parts <- category_parts(task, results[[task]], truth)
    source <- results[[task]]$details$k_source
    blocked <- !is.null(source) && identical(source, IN_SAMPLE)
    out[[task]] <- lapply(stats::setNames(names(parts), names(parts)), function(p) {
      floor <- part_floor(task, p, truth)
      score <- results[[task]]$metrics[[p]]
      list(score = score, floor = floor$value, floor_answer = floor$answer,
           ceiling = parts[[p]][2],
           normalized = if (blocked) NA_real_ else
             normalize(score, floor$value, parts[[p]][2], !(p %in% LOWER_IS_BETTER)))
    })
  }
  out
}

normalized_of <- function(results, truth) {
  order <- category_order()
  scores <- stats::setNames(as.list(rep(NA_real_, length(order))), order)
  parts <- normalized_parts(results, truth)
  for (task in names(parts)) {
    values <- vapply(parts[[task]], function(p) p$normalized, 0)
    values <- values[!is.na(values)]
    scores[[task_category(task)]] <- if (length(values)) dsum(values) / length(values) else
      NA_real_
  }
  scores
}

summary_of <- function(results, truth) {
  get <- function(task, metric) {
    value <- results[[task]]$metrics[[metric]]
    if (is.null(value)) NA_real_ else value
  }
  auroc <- get("risk_prediction", "auroc")
  r2_mean <- get("latent_recovery", "r2_mean")
  conformity <- get("intervention_conformity", "responsive_dgp_conformity")
  parts <- c(auroc, r2_mean, conformity)
  parts <- parts[is.finite(parts)]
  normalized <- normalized_of(results, truth)
  blocked <- !is.null(results$structure_recovery) &&
    identical(results$structure_recovery$details$k_source, IN_SAMPLE)
  list(auroc = auroc, r2_mean = r2_mean, conformity = conformity,
       auroc_target = get("cross_host_generalization", "auroc_target"),
       transfer_gap = get("cross_host_generalization", "transfer_gap"),
       composite = if (length(parts)) mean_parts(parts) else NA_real_,
       prior_conformity_tolerant = get("intervention_conformity", "prior_conformity_tolerant"),
       normalized = normalized, parts = normalized_parts(results, truth),
       overall = if (blocked) NA_real_ else
         dsum(vapply(normalized, function(v) if (is.na(v)) 0 else v, 0)) /
         length(category_order()))
}

#' Grade a submission against a cohort's truth
#'
#' Checks the submission first as [icg_validate()] does, against the
#' truth's cohort (a file [icg_validate()] refuses is never graded; the
#' condition, of class `icg_invalid`, carries the verdict), then aligns every block to
#' the truth's subject order and grades every task whose blocks are all
#' present, exactly as the Python scorer does (the conformance fixtures prove
#' it; see [icg_conformance()]). The data are synthetic: these are scores of a
#' model on a simulated cohort.
#'
#' @param submission A submission list ([icg_submission()],
#'   [icg_read_submission()]) or the path of a submission file.
#' @param truth The cohort's [icg_truth()].
#' @param structure_k Grade `structure_recovery` at this K (a calibrated K*)
#'   instead of the block's `k` or, failing that, the in-sample best K.
#' @param responsive_threshold The `|delta|` an intervention's average risk
#'   change must reach to count as responsive.
#' @return A list: `tasks` (task -> `metrics`, `details`, `random_baseline`)
#'   and `summary` (the score report's headline numbers; `composite` is not
#'   the canonical metric; `normalized`, each category's score from 0, the
#'   model-free floor (the answer `model_free_scores` marks), to 1, the reachable
#'   ceiling, negative below the floor; `parts`, each normalized metric's score,
#'   floor, floor_answer, ceiling and normalized value; and `overall`, their mean
#'   with a category not attempted counting 0, NA when a graph was graded at its
#'   own best K).
#' @examples
#' root <- Sys.getenv("ICGBENCH_ROOT")
#' if (nzchar(root)) {
#'   release <- icg_release(root)
#'   truth <- icg_truth(release, "linear_lowhet")
#'   sub <- icg_submission(release, "linear_lowhet",
#'     model = list(name = "constant", version = "0.1", language = "R"),
#'     risk_prediction = data.frame(subject_id = truth$ids$test, proba = 0.3))
#'   icg_score(sub, truth)$tasks$risk_prediction$metrics$brier
#' }
#' @export
icg_score <- function(submission, truth, structure_k = NULL,
                      responsive_threshold = RESPONSIVE_THRESHOLD) {
  if (!inherits(truth, "icg_truth")) fail("truth must come from icg_truth()")
  doc <- document_bytes(submission)
  verdict <- check_bytes(doc$bytes, doc$where, function(h) truth_tier_facts(truth, h),
                         optional = TRUE)
  if (!verdict$valid) stop(invalid_condition(verdict))
  if (is.character(submission) && length(submission) == 1) {
    submission <- icg_read_submission(submission)
  }
  cohort <- truth$cohort
  if (!is.null(cohort)) {
    header <- list(tier = submission$tier, variant = submission$variant,
                   seed = as.integer(submission$seed), data_version = submission$data_version)
    for (field in names(header)) {
      same <- identical(header[[field]], cohort[[field]]) || (
        field == "data_version" && header[[field]] %in% unlist(cohort$compatible))
      if (!same) {
        fail("$.%s: the submission says %s, the truth is for %s", field,
             format(header[[field]]), format(cohort[[field]]))
      }
    }
  }
  present <- intersect(task_names(), names(submission))
  if (!length(present)) fail("the submission has no task block")
  for (block in present) {
    if (!any(vapply(task_names(), function(t) all(task_blocks(t) %in% present) &&
                      block %in% task_blocks(t), TRUE))) {
      fail("$.%s: no task can grade this block without risk_prediction", block)
    }
  }
  blocks <- stats::setNames(lapply(present, function(b) align_block(b, submission[[b]], truth)),
                            present)
  results <- grade_blocks(blocks, truth, structure_k, responsive_threshold)
  baselines <- icg_baselines(truth, names(results))
  for (task in names(results)) results[[task]]$random_baseline <- baselines[[task]]
  list(tasks = results, summary = summary_of(results, truth))
}
