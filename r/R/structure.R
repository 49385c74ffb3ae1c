# Structure recovery, ported from src/icgbench/tasks/graph_metrics.py; the conventions are
# written out in docs/tasks.md ("Structure recovery conventions").

K_MAX <- 120
SCORE_EXPONENT <- 1020

# The exponent e of x = m 2^e with m in [0.5, 1) (C's frexp), for finite x > 0.
frexp_exponent <- function(x) {
  e <- floor(log2(x)) + 1
  while (x >= 2^e) e <- e + 1
  while (x < 2^(e - 1)) e <- e - 1
  e
}

# The next double below x (C's nextafter(x, -Inf)), for finite x != 0.
next_down <- function(x) {
  e <- frexp_exponent(abs(x))
  step <- if (x > 0 && abs(x) == 2^(e - 1)) 2^(e - 54) else 2^(e - 53)
  x - max(step, 2^-1074)
}

# A submission's scores as a dense matrix over the node list (NA: not predicted), rescaled
# by a power of two when their largest magnitude exceeds 2^1020.
scored_matrix <- function(nodes, source, target, score) {
  n <- length(nodes)
  m <- matrix(NA_real_, n, n, dimnames = list(nodes, nodes))
  at <- cbind(match(source, nodes), match(target, nodes))
  if (anyNA(at)) {
    fail("structure_recovery: %s is not a node of this cohort",
         c(source, target)[is.na(c(at[, 1], at[, 2]))][1])
  }
  m[at] <- as.double(score)
  if (length(score)) {
    largest <- max(abs(m), na.rm = TRUE)
    if (largest > 2^SCORE_EXPONENT) m <- m * 2^(SCORE_EXPONENT - frexp_exponent(largest))
  }
  m
}

# Scores with 'not predicted' as min(submitted) - 1 (the next double below the minimum
# when min - 1 rounds back to it; 0 when nothing was submitted).
filled <- function(m) {
  present <- m[!is.na(m)]
  fill <- 0
  if (length(present)) {
    low <- min(present)
    fill <- if (low - 1 < low) low - 1 else next_down(low)
  }
  m[is.na(m)] <- fill
  m
}

# Every unordered pair (a, b), a's name before b's in code-point order, in that order.
name_pairs <- function(nodes) {
  o <- order(nodes, method = "radix")
  n <- length(o)
  if (n < 2) return(matrix(integer(), 0, 2))
  x <- unlist(lapply(seq_len(n - 1), function(i) rep(i, n - i)))
  y <- unlist(lapply(seq_len(n - 1), function(i) seq(i + 1, n)))
  cbind(o[x], o[y])
}

# Every scored unordered pair, best first, as the oriented edge (row, column) it predicts.
ranked_selection <- function(m) {
  s <- m
  s[is.na(s)] <- -Inf
  pairs <- name_pairs(rownames(m))
  ab <- s[pairs]
  ba <- s[pairs[, 2:1, drop = FALSE]]
  best <- pmax(ab, ba)
  keep <- best > -Inf
  from <- ifelse(ab >= ba, pairs[, 1], pairs[, 2])
  to <- ifelse(ab >= ba, pairs[, 2], pairs[, 1])
  o <- order(-best[keep], seq_len(sum(keep)), method = "radix")
  cbind(from[keep][o], to[keep][o])
}

f1 <- function(precision, recall) {
  ifelse(precision + recall == 0, 0, 2 * precision * recall / (precision + recall))
}

# Every top-K metric for K = 1..K_MAX (K beyond the scored pairs selects them all).
sensitivity_curve <- function(m, truth_matrix) {
  selection <- ranked_selection(m)
  skeleton <- truth_matrix | t(truth_matrix)
  n_true <- sum(truth_matrix)
  n_skeleton <- sum(skeleton[upper.tri(skeleton, diag = TRUE)])
  tp <- c(0, cumsum(truth_matrix[selection]))
  tp_skel <- c(0, cumsum(skeleton[selection]))
  k <- seq_len(K_MAX)
  used <- pmin(k, nrow(selection))
  d_tp <- tp[used + 1]
  s_tp <- tp_skel[used + 1]
  precision <- ifelse(used > 0, d_tp / used, 0)
  recall <- if (n_true > 0) d_tp / n_true else rep(0, K_MAX)
  skel_p <- ifelse(used > 0, s_tp / used, 0)
  skel_r <- if (n_skeleton > 0) s_tp / n_skeleton else rep(0, K_MAX)
  data.frame(k = k, k_effective = used, directed_precision = precision,
             directed_recall = recall, directed_f1 = f1(precision, recall),
             skeleton_f1 = f1(skel_p, skel_r),
             shd = (n_skeleton - s_tp) + (used - s_tp) + (s_tp - d_tp),
             shd_reversal_2 = (used - d_tp) + (n_true - d_tp))
}

robustness <- function(curve, k, window = 5) {
  near <- curve$directed_f1[curve$k >= k - window & curve$k <= k + window]
  spread <- if (length(near)) max(near) - min(near) else 0
  label <- if (spread < 0.1) "robust" else if (spread < 0.2) "moderate" else "sensitive"
  list(spread = spread, label = label)
}

orientation <- function(m, truth_matrix) {
  s <- filled(m)
  pairs <- name_pairs(rownames(m))
  reverse <- pairs[, 2:1, drop = FALSE]
  y_hat <- s[pairs] - s[reverse]
  y <- ifelse(truth_matrix[pairs], 1, ifelse(truth_matrix[reverse], -1, 0))
  auc1 <- icg_auroc(as.double(y == 1), y_hat)
  auc2 <- icg_auroc(as.double(y >= 0), y_hat)
  score <- if (is.na(auc1) || is.na(auc2)) NA_real_ else 0.5 * (auc1 + auc2)
  c(score, auc1, auc2)
}

score_structure <- function(block, truth, k_override = NULL) {
  nodes <- truth$nodes
  m <- scored_matrix(nodes, block$source, block$target, block$score)
  adjacency <- matrix(FALSE, length(nodes), length(nodes))
  adjacency[cbind(match(truth$edges$source, nodes), match(truth$edges$target, nodes))] <- TRUE
  curve <- sensitivity_curve(m, adjacency)
  in_sample <- curve$k[which.max(curve$directed_f1)]
  if (!is.null(k_override)) {
    k <- as.double(k_override)
    source <- "calibration (given to the scorer)"
  } else if (!is.null(block$k)) {
    k <- as.double(block$k)  # a double: a declared k may exceed any integer
    source <- "calibration (declared in the submission)"
  } else {
    k <- in_sample
    source <- "in-sample: this cohort's own best K (not calibrated)"
  }
  at <- curve[min(max(k, 1), K_MAX), ]
  spread <- robustness(curve, k)
  off <- row(adjacency) != col(adjacency)
  ranking <- ranking_metrics(as.double(adjacency[off]), filled(m)[off])
  orient <- orientation(m, adjacency)
  metrics <- list(
    k = k, directed_precision = at$directed_precision, directed_recall = at$directed_recall,
    directed_f1 = at$directed_f1, skeleton_f1 = at$skeleton_f1, shd = at$shd,
    shd_reversal_2 = at$shd_reversal_2, f1_range_k_pm5 = spread$spread,
    edge_auroc = ranking[1], edge_auprc = ranking[2], orientation_score = orient[1],
    orientation_auc_y1 = orient[2], orientation_auc_y2 = orient[3],
    n_scored_pairs = nrow(ranked_selection(m)))
  list(metrics = metrics,
       details = list(k_source = source, best_k_in_sample = in_sample,
                      robustness = spread$label, true_edges = nrow(truth$edges),
                      curve = curve))
}
