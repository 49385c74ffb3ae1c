#' Metric functions of the scorer
#'
#' Pure functions, ported from `src/icgbench/tasks/metrics.py` and defined in
#' docs/tasks.md. `NA` stands for the Python scorer's `null` (undefined, e.g.
#' AUROC with one class).
#'
#' * `icg_auroc()`: area under the ROC curve, a tied (positive, negative) pair
#'   counting one half.
#' * `icg_auprc()`: average precision, `sum_n (R_n - R_{n-1}) P_n` over the
#'   distinct thresholds from the highest score down.
#' * `icg_brier()`: mean of `(p - y)^2`, against the observed event.
#' * `icg_log_loss()`: mean of `-(y log p + (1 - y) log(1 - p))`, `p` clipped
#'   to `[1e-15, 1 - 1e-15]`.
#' * `icg_ece()`: expected calibration error over the bins
#'   `[0, .1), ..., [.9, 1]`, the bin of `p` being `min(floor(10 p), 9)`.
#' * `icg_rank_correlation()`: Spearman's rho of `p` with `y` (the Pearson
#'   correlation of their average ranks); 0 for a constant `p`, `NA` for a
#'   constant `y` (risk_prediction's `spearman_reachable`, with `y` the
#'   reachable risk).
#' * `icg_r2()`: `1 - SS_res / SS_tot`; `NA` for a constant truth; computed
#'   rescaled when `SS_res` overflows, and never below the most negative double.
#'
#' @param y The truth: 0/1 events, or true values for `icg_r2()`.
#' @param p Predicted probabilities (or values for `icg_r2()`), in the order
#'   of `y`.
#' @return A number, or `NA` where undefined.
#' @examples
#' y <- c(0, 0, 1, 1)
#' p <- c(0.1, 0.4, 0.35, 0.8)
#' c(auroc = icg_auroc(y, p), auprc = icg_auprc(y, p), brier = icg_brier(y, p),
#'   log_loss = icg_log_loss(y, p), ece = icg_ece(y, p), r2 = icg_r2(y, p))
#' @name icg_metrics
NULL

LOWEST <- -.Machine$double.xmax

# (AUROC, average precision), NA where undefined: one sort serves both.
ranking_metrics <- function(y, p) {
  y <- as.double(y)
  p <- as.double(p)
  n <- length(y)
  positives <- sum(y == 1)
  if (positives == 0) return(c(NA_real_, NA_real_))
  if (positives == n) return(c(NA_real_, 1))
  o <- order(p, decreasing = TRUE, method = "radix")
  scores <- p[o]
  last <- c(which(diff(scores) != 0), n)
  tps <- cumsum(y[o])[last]
  fps <- last - tps
  tpr <- c(0, tps) / tps[length(tps)]
  fpr <- c(0, fps) / fps[length(fps)]
  m <- length(tpr)
  area <- sum(diff(fpr) * (tpr[-1] + tpr[-m]) / 2)
  precision <- tps / (tps + fps)
  recall <- tps / tps[length(tps)]
  c(area, sum(diff(c(0, recall)) * precision))
}

#' @rdname icg_metrics
#' @export
icg_auroc <- function(y, p) ranking_metrics(y, p)[1]

#' @rdname icg_metrics
#' @export
icg_auprc <- function(y, p) ranking_metrics(y, p)[2]

#' @rdname icg_metrics
#' @export
icg_brier <- function(y, p) mean((p - y)^2)

#' @rdname icg_metrics
#' @export
icg_log_loss <- function(y, p) {
  q <- pmin(pmax(p, 1e-15), 1 - 1e-15)
  -mean(y * log(q) + (1 - y) * log1p(-q))
}

#' @rdname icg_metrics
#' @export
icg_ece <- function(y, p) {
  bins <- 10
  index <- pmin(floor(p * bins), bins - 1)
  total <- 0
  for (b in seq_len(bins) - 1) {
    inside <- index == b
    count <- sum(inside)
    if (count > 0) {
      gap <- abs(sum(p[inside]) / count - sum(y[inside]) / count)
      total <- total + count / length(p) * gap
    }
  }
  total
}

ece_of_uniform <- function(prevalence, bins = 10) {
  mean(abs((seq_len(bins) - 0.5) / bins - prevalence))
}

#' @rdname icg_metrics
#' @export
icg_r2 <- function(y, p) {
  ss_tot <- sum((y - mean(y))^2)
  if (ss_tot == 0) return(NA_real_)
  ss_res <- sum((y - p)^2)
  if (is.finite(ss_res)) return(1 - ss_res / ss_tot)
  half <- y / 2 - p / 2
  scale <- max(abs(half))
  share <- sum((half / scale)^2)
  value <- 1 - (2 * scale / sqrt(ss_tot))^2 * share
  if (is.finite(value)) value else LOWEST
}

#' @rdname icg_metrics
#' @export
icg_rank_correlation <- function(y, p) {
  a <- rank(y, ties.method = "average")
  b <- rank(p, ties.method = "average")
  a <- a - mean(a)
  b <- b - mean(b)
  sa <- sum(a * a)
  sb <- sum(b * b)
  if (sa == 0) return(NA_real_)
  if (sb == 0) return(0)
  sum(a * b) / sqrt(sa * sb)
}

# Mean summed left to right in doubles; each part divided first when that sum overflows.
mean_parts <- function(values) {
  n <- length(values)
  total <- dsum(values)
  if (is.finite(total)) return(total / n)
  min(max(dsum(values / n), LOWEST), -LOWEST)
}

# erf(t / (sd sqrt 2)) = P(|N(0, sd)| <= t)
p_abs_below <- function(t, sd) 1 - 2 * stats::pnorm(-abs(t) / sd)

expected_abs_normal <- function(mu, sd) {
  z <- mu / sd
  sd * sqrt(2 / pi) * exp(-z * z / 2) + mu * sign(z) * p_abs_below(abs(z), 1)
}
