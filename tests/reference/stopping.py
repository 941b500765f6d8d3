"""Direct implementations of the stopping rules and the binomial intervals (issue 24).

Plain loops over Python lists, written from the papers' descriptions
(docs/mathematics.md §"Knowing when to stop"), for :mod:`rlscore.core.evaluation.stopping_rules` and
:mod:`rlscore.core.evaluation.accuracy_interval`; the intervals are found by root finding on the
binomial test they invert, not by their closed forms.
"""

from __future__ import annotations

import math

from scipy.optimize import brentq
from scipy.stats import binom, norm


def kappa(a, b) -> float:
    """Cohen's κ from the contingency counts; 1 for two identical one-class labelings."""
    n = len(a)
    values = sorted(set(a) | set(b))
    agree = sum(1 for x, z in zip(a, b, strict=True) if x == z) / n
    chance = sum((list(a).count(v) / n) * (list(b).count(v) / n) for v in values)
    if chance == 1.0:
        return 1.0 if agree == 1.0 else 0.0
    return (agree - chance) / (1.0 - chance)


def first_stable(kappas, lag, window, threshold, min_step=0):
    """First t ≥ min_step whose ``window`` comparisons t, t − lag, … are defined and average
    at least ``threshold``."""
    for t in range(len(kappas)):
        if t < min_step:
            continue
        picked = []
        for j in range(window):
            s = t - j * lag
            if s < 0 or kappas[s] is None or math.isnan(kappas[s]):
                break
            picked.append(kappas[s])
        if len(picked) == window and sum(picked) / window >= threshold:
            return t
    return None


def first_drop(confidence, lag, patience, min_step=0):
    """First t ≥ min_step after ``patience`` consecutive drops of the confidence, ``lag``
    steps apart."""
    for t in range(len(confidence)):
        if t < min_step:
            continue
        drops = 0
        for j in range(patience):
            later, earlier = t - j * lag, t - (j + 1) * lag
            if earlier < 0:
                break
            a, b = confidence[later], confidence[earlier]
            if a is None or b is None or math.isnan(a) or math.isnan(b) or not a < b:
                break
            drops += 1
        if drops == patience:
            return t
    return None


def first_flat(curve, window, epsilon, relative, min_step=0):
    """First t ≥ max(min_step, window) whose last window + 1 values span at most
    ``epsilon`` (times |c_t| when relative)."""
    for t in range(len(curve)):
        if t < min_step or t < window:
            continue
        values = curve[t - window : t + 1]
        if any(v is None or math.isnan(v) for v in values):
            continue
        scale = abs(curve[t]) if relative else 1.0
        if max(values) - min(values) <= epsilon * scale:
            return t
    return None


def wilson_by_root(k: int, n: int, level: float) -> tuple[float, float]:
    """The p where the score statistic |k/n − p| / sqrt(p(1−p)/n) equals z, on each side."""
    z = norm.ppf(0.5 + level / 2)
    p_hat = k / n

    def score(p):
        return abs(p_hat - p) / math.sqrt(p * (1 - p) / n) - z

    inside = min(max(p_hat, 1e-12), 1 - 1e-12)  # where the statistic is below z
    lo = 0.0 if k == 0 else brentq(score, 1e-12, inside)
    hi = 1.0 if k == n else brentq(score, inside, 1 - 1e-12)
    return lo, hi


def clopper_pearson_by_root(k: int, n: int, level: float) -> tuple[float, float]:
    """The p where P(X ≥ k) and P(X ≤ k) equal α/2 (X binomial(n, p))."""
    alpha = 1 - level
    lo = 0.0 if k == 0 else brentq(lambda p: binom.sf(k - 1, n, p) - alpha / 2, 1e-12, 1)
    hi = 1.0 if k == n else brentq(lambda p: binom.cdf(k, n, p) - alpha / 2, 0, 1 - 1e-12)
    return lo, hi
