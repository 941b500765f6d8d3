"""Intervals for an accuracy measured on n labeled points: Wilson and Clopper–Pearson.

An accuracy estimated from ``k`` correct out of ``n`` points is a binomial proportion when the
``n`` points are drawn uniformly at random from the population the accuracy is about (the
audit sample of :mod:`rlscore.sessions.stopping.accuracy_estimate`). Two intervals for it
(docs/mathematics.md §"Knowing when to stop"):

* **Wilson** (1927), the score interval: the set of p whose score test does not reject, a
  closed form; close to nominal coverage on average and never outside [0, 1];
* **Clopper–Pearson** (1934), the exact interval: beta quantiles, coverage at least nominal
  for every p (conservative).

Both are the textbook forms of Brown, Cai & DasGupta (2001), *Interval estimation for a
binomial proportion*, Statistical Science 16(2), eqs. 4 and 5 (Wilson) and §4.1.3
(Clopper–Pearson).
"""

from __future__ import annotations

import math

#: the methods :func:`accuracy_interval` accepts
INTERVAL_METHODS = ("wilson", "clopper-pearson")


def _check(k: int, n: int, level: float) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a whole number ≥ 0, got {n!r}")
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= n:
        raise ValueError(f"k must be a whole number between 0 and n = {n}, got {k!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level!r}")


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion of ``k`` successes in ``n`` trials.

    ``(p̂ + z²/2n ± z·sqrt(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n)`` with ``z`` the two-sided
    normal quantile of ``level``; ``(0, 1)`` when ``n`` is 0 (nothing measured).
    """
    _check(k, n, level)
    return wilson_bounds(k / n if n else 0.0, n, level)


def wilson_bounds(p: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """The Wilson interval of :func:`wilson_interval` for a share ``p`` measured on an
    *effective* number ``n`` of trials (real, ≥ 0: a weighted or model-assisted estimate
    whose variance is that of ``n`` Bernoulli trials); ``(0, 1)`` when ``n`` is 0."""
    if not 0.0 <= p <= 1.0 or not n >= 0.0:
        raise ValueError(f"need a share p in [0, 1] and n ≥ 0, got p={p!r}, n={n!r}")
    if n == 0:
        return 0.0, 1.0
    from scipy.special import ndtri  # here, as in clopper_pearson_interval

    z = float(ndtri(0.5 + level / 2.0))
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
    # the interval always holds p: the min/max only undo rounding at p = 0 or 1
    return min(max(0.0, centre - half), p), max(min(1.0, centre + half), p)


def clopper_pearson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Clopper–Pearson (exact) interval: ``Beta(α/2; k, n−k+1)`` to ``Beta(1−α/2; k+1, n−k)``,
    0 and 1 at the ends; ``(0, 1)`` when ``n`` is 0."""
    _check(k, n, level)
    if n == 0:
        return 0.0, 1.0
    alpha = 1.0 - level
    # scipy.special's inverses, not scipy.stats' distributions: the same functions (beta.ppf
    # is betaincinv, norm.ppf is ndtri) without scipy.stats' 1 s of import; imported here, as
    # the app's first page draws no interval (scipy.special: 0.03 s more)
    from scipy.special import betaincinv

    lower = 0.0 if k == 0 else float(betaincinv(k, n - k + 1, alpha / 2.0))
    upper = 1.0 if k == n else float(betaincinv(k + 1, n - k, 1.0 - alpha / 2.0))
    return lower, upper


def accuracy_interval(
    k: int, n: int, level: float = 0.95, method: str = "wilson"
) -> tuple[float, float]:
    """The ``method`` interval (:data:`INTERVAL_METHODS`) for ``k`` correct of ``n``."""
    if method == "wilson":
        return wilson_interval(k, n, level)
    if method == "clopper-pearson":
        return clopper_pearson_interval(k, n, level)
    raise ValueError(f"method {method!r} is unknown: choose one of {list(INTERVAL_METHODS)}")


__all__ = [
    "INTERVAL_METHODS",
    "accuracy_interval",
    "clopper_pearson_interval",
    "wilson_bounds",
    "wilson_interval",
]
