"""Small pure metric functions; every definition is written out in docs/tasks.md."""

from __future__ import annotations

import numpy as np

ECE_BINS = 10
LOG_LOSS_EPS = 1e-15
#: The most negative double: a metric whose exact value lies below it is reported as this.
LOWEST = -float(np.finfo(np.float64).max)


def mean(values: list[float]) -> float:
    """Arithmetic mean, left to right; without overflow when the plain sum would overflow."""
    n = len(values)
    total = 0.0
    for v in values:
        total += v
    if np.isfinite(total):
        return total / n
    return min(max(float(sum(v / n for v in values)), LOWEST), -LOWEST)


def ranking_curve(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative (false, true) positives at each distinct score, highest score first.

    The same points scikit-learn's ``roc_curve`` and ``precision_recall_curve`` are built
    from; one sort serves both AUROC and AUPRC (a test checks equality with scikit-learn).
    """
    order = np.argsort(p)[::-1]
    scores, labels = p[order], y[order]
    last = np.r_[np.flatnonzero(np.diff(scores)), len(scores) - 1]
    tps = np.cumsum(labels, dtype=np.float64)[last]
    return 1.0 + last - tps, tps


def ranking_metrics(y: np.ndarray, p: np.ndarray) -> tuple[float | None, float | None]:
    """(AUROC with ties counting one half, average precision); None where undefined."""
    positives = int(np.sum(y == 1))
    if positives == 0 or positives == len(y):
        return None, (None if positives == 0 else 1.0)
    fps, tps = ranking_curve(y, p)
    tpr = np.r_[0.0, tps] / tps[-1]
    fpr = np.r_[0.0, fps] / fps[-1]
    area = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))
    precision = tps / (tps + fps)
    recall = tps / tps[-1]
    average_precision = float(np.sum(np.diff(np.r_[0.0, recall]) * precision))
    return area, average_precision


def auroc(y: np.ndarray, p: np.ndarray) -> float | None:
    """Area under the ROC curve (ties count one half); None with a single class."""
    return ranking_metrics(y, p)[0]


def auprc(y: np.ndarray, p: np.ndarray) -> float | None:
    """Average precision (step-wise area under the precision-recall curve)."""
    return ranking_metrics(y, p)[1]


def brier(y: np.ndarray, p: np.ndarray) -> float:
    """Mean squared difference between probability and outcome."""
    return float(np.mean((p - y) ** 2))


def log_loss(y: np.ndarray, p: np.ndarray) -> float:
    """Mean negative log-likelihood, probabilities clipped to [1e-15, 1 - 1e-15]."""
    q = np.clip(p, LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log1p(-q)))


def ece(y: np.ndarray, p: np.ndarray, bins: int = ECE_BINS) -> float:
    """Expected calibration error over equal-width bins [0, .1), ..., [.9, 1]."""
    index = np.minimum((p * bins).astype(np.int64), bins - 1)
    count = np.bincount(index, minlength=bins)
    sum_p = np.bincount(index, weights=p, minlength=bins)
    sum_y = np.bincount(index, weights=y.astype(float), minlength=bins)
    used = count > 0
    gap = np.abs(sum_p[used] / count[used] - sum_y[used] / count[used])
    return float(np.sum(count[used] / len(p) * gap))


def ece_of_uniform(prevalence: float, bins: int = ECE_BINS) -> float:
    """Expected ECE of uniform random predictions: mean over bins of |centre - prevalence|."""
    centres = (np.arange(bins) + 0.5) / bins
    return float(np.mean(np.abs(centres - prevalence)))


def r2(y: np.ndarray, y_hat: np.ndarray) -> float | None:
    """Coefficient of determination 1 - SS_res / SS_tot; None when y is constant.

    Absurd predictions (near the largest double) cannot overflow it into a missing value:
    SS_res is then rescaled before dividing, and a value below the most negative double is
    reported as :data:`LOWEST`.
    """
    ss_tot = float(np.sum((y - np.mean(y)) ** 2))
    if ss_tot == 0.0:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        ss_res = float(np.sum((y - y_hat) ** 2))
        if np.isfinite(ss_res):
            return 1.0 - ss_res / ss_tot
        half = y / 2.0 - y_hat / 2.0  # exact halving: no overflow in the difference
        scale = float(np.max(np.abs(half)))
        share = float(np.sum((half / scale) ** 2))
        ratio = (2.0 * scale / np.sqrt(ss_tot)) ** 2 * share
        value = 1.0 - float(ratio)
    return value if np.isfinite(value) else LOWEST


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``x``, tied values sharing their average rank (R's ``rank``)."""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    sorted_x = x[order]
    first = np.r_[0, np.flatnonzero(sorted_x[1:] != sorted_x[:-1]) + 1]
    last = np.r_[first[1:], len(x)]
    ranks = np.empty(len(x))
    ranks[order] = np.repeat((first + last + 1) / 2.0, last - first)
    return ranks


def rank_correlation(truth: np.ndarray, predicted: np.ndarray) -> float | None:
    """Spearman's rho: the Pearson correlation of the average ranks of ``truth`` and
    ``predicted``; 0.0 when the prediction is constant (it ranks nobody), None when the
    truth is (nothing to rank)."""
    a = average_ranks(truth)
    b = average_ranks(predicted)
    a -= a.mean()
    b -= b.mean()
    sa, sb = float(np.sum(a * a)), float(np.sum(b * b))
    if sa == 0.0:
        return None
    if sb == 0.0:
        return 0.0
    return float(np.sum(a * b)) / float(np.sqrt(sa * sb))
