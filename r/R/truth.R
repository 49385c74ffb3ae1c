#' The ground truth of one cohort
#'
#' `icg_truth()` reads a cohort's truth tables from the release (each file's
#' SHA-256 checked, as for [icg_read_table()]); `icg_truth_from_tables()`
#' builds the same object from truth tables in the release's layout (data
#' frames, or lists of columns), which is how conformance fixtures with
#' `tables` are read. The rules are the Python scorer's: per split, the rows of
#' `test_outcomes` in file order; the end-of-follow-up states are the rows of
#' the test split at the largest `month` of `test_states`; the true risk under
#' each intervention comes from the `risk__<intervention>` columns of
#' `counterfactual_risks` (test split), the directions from
#' `intervention_effects` (its rounded `mean_effect` is not used); the model-free
#' panel's floor of each metric from `model_free_scores` (the row marked `floor`,
#' chosen without the cohort's held-out subjects: where the normalized scores
#' start).
#'
#' @param release An [icg_release()].
#' @param variant,seed The cohort.
#' @param tables A named list of truth tables: `test_outcomes` (required),
#'   and as available `test_states`, `counterfactual_risks`,
#'   `intervention_effects`, `graph`, `nodes`, `model_free_scores`.
#' @return An `icg_truth` list: `ids`, `event` and `true_risk` (per split
#'   `test` and `target_test`), `end_states` and `counterfactual` (test
#'   order), `prior_direction` and `dgp_direction` (named integers), `edges`
#'   (a data frame of `source`, `target`), `nodes` and `panel` (a data frame of
#'   `task`, `metric`, `value`, `answer`: each metric's floor).
#' @export
icg_truth <- function(release, variant, seed = NULL) {
  check_release(release)
  seed <- cohort_seed(release, variant, seed)
  needed <- c("test_outcomes", "test_states", "counterfactual_risks", "reachable_risks",
              "intervention_effects", "graph", "nodes", "model_free_scores")
  tables <- lapply(needed, function(t) icg_read_table(release, t, variant, seed, truth = TRUE))
  truth <- icg_truth_from_tables(stats::setNames(tables, needed))
  truth$cohort <- list(tier = release$tier, variant = variant, seed = seed,
                       data_version = release$descriptor$version,
                       compatible = as.list(names(
                         release$descriptor[["icgbench:compatible_releases"]])))
  truth
}

#' @rdname icg_truth
#' @export
icg_truth_from_tables <- function(tables) {
  column <- function(table, name) {
    t <- tables[[table]]
    if (is.null(t[[name]])) fail("truth table %s has no column %s", table, name)
    unlist(t[[name]], use.names = FALSE)
  }
  if (is.null(tables$test_outcomes)) fail("the truth needs the test_outcomes table")
  split <- as.character(column("test_outcomes", "split"))
  by_split <- function(name, convert) {
    values <- convert(column("test_outcomes", name))
    list(test = values[split == "test"], target_test = values[split == "target_test"])
  }
  ids <- by_split("subject_id", as.character)
  truth <- list(ids = ids, event = by_split("event", as.double),
                true_risk = by_split("true_risk", as.double), end_states = list(),
                counterfactual = list(), prior_direction = integer(),
                dgp_direction = integer(),
                edges = data.frame(source = character(), target = character()),
                nodes = character())
  if (!is.null(tables$test_states)) {
    month <- as.double(column("test_states", "month"))
    end <- as.character(column("test_states", "split")) == "test" & month == max(month)
    if (!identical(as.character(column("test_states", "subject_id"))[end], ids$test)) {
      fail("test_states and test_outcomes order test subjects differently")
    }
    truth$end_states <- stats::setNames(
      lapply(icg_states(), function(s) as.double(column("test_states", s))[end]), icg_states())
  }
  if (!is.null(tables$counterfactual_risks)) {
    test <- as.character(column("counterfactual_risks", "split")) == "test"
    risks <- grep("^risk__", names(tables$counterfactual_risks), value = TRUE)
    truth$counterfactual <- stats::setNames(
      lapply(risks, function(c) as.double(column("counterfactual_risks", c))[test]),
      sub("^risk__", "", risks))
  }
  if (!is.null(tables$reachable_risks)) {
    reach_split <- as.character(column("reachable_risks", "split"))
    risk <- as.double(column("reachable_risks", "risk"))
    truth$reachable_risk <- list(test = risk[reach_split == "test"],
                                 target_test = risk[reach_split == "target_test"])
    risks <- grep("^risk__", names(tables$reachable_risks), value = TRUE)
    truth$reachable_counterfactual <- stats::setNames(
      lapply(risks, function(c) as.double(column("reachable_risks", c))[reach_split == "test"]),
      sub("^risk__", "", risks))
  }
  if (!is.null(tables$intervention_effects)) {
    interventions <- as.character(column("intervention_effects", "intervention"))
    truth$prior_direction <- stats::setNames(
      as.integer(column("intervention_effects", "prior_direction")), interventions)
    truth$dgp_direction <- stats::setNames(
      as.integer(column("intervention_effects", "dgp_direction")), interventions)
  }
  if (!is.null(tables$graph)) {
    truth$edges <- data.frame(source = as.character(column("graph", "source")),
                              target = as.character(column("graph", "target")),
                              stringsAsFactors = FALSE)
  }
  if (!is.null(tables$nodes)) truth$nodes <- as.character(column("nodes", "node"))
  if (!is.null(tables$model_free_scores)) {
    floor <- as.logical(column("model_free_scores", "floor"))
    truth$panel <- data.frame(
      task = as.character(column("model_free_scores", "task"))[floor],
      metric = as.character(column("model_free_scores", "metric"))[floor],
      value = as.double(column("model_free_scores", "value"))[floor],
      answer = as.character(column("model_free_scores", "answer"))[floor],
      stringsAsFactors = FALSE)
  }
  structure(truth, class = "icg_truth")
}

# The truth of a conformance fixture in its parsed form (simplified JSON).
truth_from_parsed <- function(t) {
  splits <- intersect(c("test", "target_test"), names(t))
  part <- function(name, convert) {
    stats::setNames(lapply(splits, function(s) convert(unlist(t[[s]][[name]]))), splits)
  }
  as_doubles <- function(x) lapply(x, function(v) as.double(unlist(v)))
  directions <- function(x) {
    if (is.null(x)) integer() else stats::setNames(as.integer(unlist(x)), names(x))
  }
  edges <- t$edges
  structure(list(
    ids = part("subject_id", as.character),
    event = part("event", as.double),
    true_risk = part("true_risk", as.double),
    end_states = as_doubles(t$end_states),
    counterfactual = as_doubles(t$counterfactual),
    prior_direction = directions(t$prior_direction),
    dgp_direction = directions(t$dgp_direction),
    edges = data.frame(source = vapply(edges, function(e) as.character(e[[1]]), ""),
                       target = vapply(edges, function(e) as.character(e[[2]]), ""),
                       stringsAsFactors = FALSE),
    nodes = as.character(unlist(t$nodes))), class = "icg_truth")
}
