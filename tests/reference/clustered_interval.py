"""Naive references for the cluster-corrected memberships intervals of the micro-F1 headline
(docs/multilabel.md §5, "Points as clusters"): the design effect from the delta method of the
ratio of two means (the gradient and the two counts' covariance), and the intervals from
scipy.stats' beta, normal and t distributions."""

from __future__ import annotations

import numpy as np
from scipy import stats


def membership_counts(Y, P) -> tuple[np.ndarray, np.ndarray]:
    """Each check's right memberships and memberships true or predicted, counted one
    membership at a time."""
    right, counted = [], []
    for y_row, p_row in zip(Y.tolist(), P.tolist(), strict=True):
        right.append(sum(1 for y, p in zip(y_row, p_row, strict=True) if y and p))
        counted.append(sum(1 for y, p in zip(y_row, p_row, strict=True) if y or p))
    return np.array(right, float), np.array(counted, float)


def design_effect(Y, P) -> float:
    """The delta method's variance of mean(a) / mean(d) — gradient (1/d̄, −ā/d̄²) against the
    two counts' covariance over the m checks (divisor m), divided by m — over the binomial
    variance p(1 − p) / Σd; at least 1, and 1 when p is 0 or 1."""
    a, d = membership_counts(Y, P)
    m = a.size
    p = a.sum() / d.sum()
    if p in (0.0, 1.0):
        return 1.0
    gradient = np.array([1.0 / d.mean(), -a.mean() / d.mean() ** 2])
    cov = np.cov(np.vstack([a, d]), bias=True)
    v_points = gradient @ cov @ gradient / m
    return max(1.0, v_points / (p * (1.0 - p) / d.sum()))


def clustered_interval(Y, P, level=0.95, korn_graubard=False) -> tuple[float, float]:
    """Clopper–Pearson from scipy.stats.beta on the effective counts Σa/deff of Σd/deff
    (times (z/t)² on the informative checks − 1 degrees of freedom with ``korn_graubard``),
    mapped to micro-F1 by 2p/(1 + p)."""
    a, d = membership_counts(Y, P)
    p = a.sum() / d.sum()
    n = d.sum() / design_effect(Y, P)
    if korn_graubard:
        df = int((d > 0).sum()) - 1
        if df < 1:
            return 0.0, 1.0
        q = 0.5 + level / 2
        n = n * (stats.norm.ppf(q) / stats.t.ppf(q, df)) ** 2
    x = p * n
    alpha = 1 - level
    low = 0.0 if p == 0 else stats.beta.ppf(alpha / 2, x, n - x + 1)
    high = 1.0 if p == 1 else stats.beta.ppf(1 - alpha / 2, x + 1, n - x)
    return 2 * low / (1 + low), 2 * high / (1 + high)
