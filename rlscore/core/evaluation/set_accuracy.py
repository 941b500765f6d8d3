"""How good the predicted label sets are over the pool: a micro-F1 estimate from the random
checks, with an interval (docs/multilabel.md §5).

As for single-label projects (:mod:`rlscore.core.evaluation.pool_accuracy`), only the *random
checks* among the labels — points drawn uniformly from the unlabeled pool, not chosen by the
strategy — are a fair sample of the pool; each is predicted by the model fitted on all the other
labels (its exact leave-one-out sets, ``MultiLabelRLS.loo_decision_ > 0``). Micro-F1 is a ratio
of sums over the points, ``2ΣTP / (2ΣTP + ΣFP + ΣFN)`` = ``2p / (1 + p)`` with
``p = ΣTP / (ΣTP + ΣFP + ΣFN)``, the right share of the memberships true or predicted. The shown
interval (``memberships``) is Clopper–Pearson's for ``p``, mapped to micro-F1: of the intervals
measured on labeling runs (``benchmarks/multilabel_trust.py``, docs/benchmarks/multilabel.md) the
one nearest its nominal 95 % — 88–100 % per task on fresh seeds, where the percentile bootstrap
over the checks held in 67–92 %.

The others of ``method``, measured beside it: ``percentile`` (the checks resampled with
replacement, the ratio recomputed; shown before), ``bca`` (Efron's bias-corrected and
accelerated bootstrap), ``studentized`` (the bootstrap-t, each resample standardised by its
delta-method error) and ``delta-t`` (the ratio's delta-method error with a Student t quantile
on m − 1 degrees of freedom). Two correct ``memberships`` for the points' memberships being
correlated (docs/multilabel.md §5, "Points as clusters"): ``clustered`` divides the counts by the
design effect of the points as clusters (Kish), ``clustered-t`` shrinks them further for the few
informative checks that estimate it (Korn and Graubard); measured, not shown (one cell short of
the target on fresh seeds, docs/benchmarks/multilabel.md "Third block"). Every interval is
clipped to [0, 1].
The session's headline for multi-label projects (rlscore/sessions) is built on these pure
functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlscore.core.evaluation.accuracy_interval import clopper_pearson_interval
from rlscore.core.evaluation.multilabel_metrics import set_matrices

#: bootstrap resamples of :func:`micro_f1_estimate`
N_BOOTSTRAP = 2000
#: fewer random checks than this give no estimate (None)
MIN_CHECKS = 5
#: the intervals :func:`micro_f1_estimate` can give (module docstring)
METHODS = (
    "percentile",
    "bca",
    "studentized",
    "delta-t",
    "memberships",
    "clustered",
    "clustered-t",
)
#: the interval shown
DEFAULT_METHOD = "memberships"


@dataclass(frozen=True)
class MicroF1Estimate:
    """Micro-F1 of the predicted sets over the pool, with its interval (shares in [0, 1])."""

    estimate: float
    low: float
    high: float
    n_checks: int
    level: float

    @property
    def interval(self) -> tuple[float, float]:
        """``(low, high)``."""
        return self.low, self.high


def micro_f1_estimate(
    true_sets,
    loo_sets,
    classes=None,
    *,
    level: float = 0.95,
    n_bootstrap: int = N_BOOTSTRAP,
    seed: int = 0,
    method: str = DEFAULT_METHOD,
) -> MicroF1Estimate | None:
    """The micro-F1 of the model on the pool, estimated from its random checks.

    Parameters
    ----------
    true_sets, loo_sets
        The checks' true sets and their leave-one-out predicted sets: (m, L) 0/1 matrices, or
        lists of label sets with ``classes``.
    classes
        The classes of label sets.
    level
        Confidence level of the interval, in (0, 1).
    n_bootstrap
        Bootstrap resamples (≥ 100; unused by ``"delta-t"``).
    seed
        Seed of the resampling (the same checks give the same interval).
    method
        The interval, one of :data:`METHODS` (module docstring).

    Returns
    -------
    MicroF1Estimate or None
        None with fewer than :data:`MIN_CHECKS` checks, or when no check has a true or
        predicted class (micro-F1 is 0/0).
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 100:
        raise ValueError(f"n_bootstrap must be an integer ≥ 100, got {n_bootstrap!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    Y, P = set_matrices(true_sets, loo_sets, classes)
    m = Y.shape[0]
    if m < MIN_CHECKS:
        return None
    # per check: 2 TP (numerator) and 2 TP + FP + FN (denominator)
    num = 2.0 * (Y & P).sum(axis=1)
    den = num + (Y != P).sum(axis=1)
    if den.sum() == 0:
        return None
    ratio = float(num.sum() / den.sum())
    if method == "memberships":
        low, high = _memberships(Y, P, level)
    elif method in ("clustered", "clustered-t"):
        low, high = _clustered(Y, P, level, method == "clustered-t")
    elif method == "delta-t":
        # scipy.special, not scipy.stats (1 s of import; tests/test_lazy_imports.py)
        from scipy.special import stdtrit

        half = stdtrit(m - 1, 0.5 + level / 2.0) * _ratio_se(num, den, ratio)
        low, high = ratio - half, ratio + half
    else:
        draws = np.random.default_rng(seed).integers(0, m, size=(n_bootstrap, m))
        low, high = _BOOTSTRAPS[method](num, den, ratio, draws, 1.0 - level)
    return MicroF1Estimate(
        estimate=ratio,
        low=float(np.clip(low, 0.0, 1.0)),
        high=float(np.clip(high, 0.0, 1.0)),
        n_checks=int(m),
        level=float(level),
    )


def _ratios(num: np.ndarray, den: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The micro-F1 of each resample (0 where a resample has no true or predicted class)."""
    num_b, den_b = num[draws].sum(axis=1), den[draws].sum(axis=1)
    return np.divide(num_b, den_b, out=np.zeros(len(draws)), where=den_b > 0)


def _ratio_se(num: np.ndarray, den: np.ndarray, ratio) -> np.ndarray:
    """The delta-method standard error of the ratio ``Σnum / Σden`` (per row of resampled
    sums when ``ratio`` is an array: ``num``, ``den`` then (resamples, m))."""
    m = num.shape[-1]
    resid = num - np.asarray(ratio)[..., None] * den
    total = den.sum(axis=-1)
    spread = np.sqrt((resid**2).sum(axis=-1) * m / (m - 1))
    return np.divide(spread, total, out=np.zeros_like(spread), where=total > 0)


def _percentile(num, den, ratio, draws, alpha) -> tuple[float, float]:
    """The percentile bootstrap: the resamples' quantiles."""
    return tuple(np.quantile(_ratios(num, den, draws), [alpha / 2.0, 1.0 - alpha / 2.0]))


def _bca(num, den, ratio, draws, alpha) -> tuple[float, float]:
    """Efron's bias-corrected and accelerated bootstrap; the acceleration from the jackknife
    (each check left out in turn)."""
    from scipy.special import ndtr, ndtri  # the normal's cdf and quantile (as delta-t)

    ratios = _ratios(num, den, draws)
    b = len(ratios)
    # a share of 0 or 1 would make the bias correction infinite: kept half a resample inside
    below = np.clip((ratios < ratio).mean() + 0.5 * (ratios == ratio).mean(), 0.5 / b, 1 - 0.5 / b)
    z0 = ndtri(below)
    rest_num, rest_den = num.sum() - num, den.sum() - den
    jack = np.divide(rest_num, rest_den, out=np.zeros(num.size), where=rest_den > 0)
    spread = jack.mean() - jack
    scale = 6.0 * (spread**2).sum() ** 1.5
    accel = (spread**3).sum() / scale if scale > 0 else 0.0
    z = ndtri(np.array([alpha / 2.0, 1.0 - alpha / 2.0]))
    shares = ndtr(z0 + (z0 + z) / (1.0 - accel * (z0 + z)))
    return tuple(np.quantile(ratios, shares))


def _studentized(num, den, ratio, draws, alpha) -> tuple[float, float]:
    """The bootstrap-t: each resample's ratio standardised by its own delta-method error."""
    ratios = _ratios(num, den, draws)
    se_b = _ratio_se(num[draws], den[draws], ratios)
    se = float(_ratio_se(num, den, ratio))
    # a resample without spread (every check alike) says nothing of the scale: left out
    t = (ratios[se_b > 0] - ratio) / se_b[se_b > 0]
    if t.size == 0:
        return ratio, ratio
    t_low, t_high = np.quantile(t, [alpha / 2.0, 1.0 - alpha / 2.0])
    return ratio - t_high * se, ratio - t_low * se


def _memberships(Y: np.ndarray, P: np.ndarray, level: float) -> tuple[float, float]:
    """Clopper–Pearson's interval of the share ``p = TP / (TP + FP + FN)`` of right memberships
    among those true or predicted, mapped to micro-F1 ``2p / (1 + p)`` (increasing in p). The
    memberships are counted as independent trials: with one or two classes per point (the
    points' memberships are few) an approximation, exact for one membership per point."""
    low, high = clopper_pearson_interval(int((Y & P).sum()), int((Y | P).sum()), level)
    return 2.0 * low / (1.0 + low), 2.0 * high / (1.0 + high)


def membership_design_effect(Y: np.ndarray, P: np.ndarray) -> float:
    """The design effect of the points as clusters of memberships for ``p = ΣTP / Σd``.

    Parameters
    ----------
    Y, P
        The checks' true and predicted sets, (m, L) boolean matrices.

    Returns
    -------
    float
        ``max(1, v_points / v_trials)`` (docs/multilabel.md §5, "Points as clusters"): with
        ``a_i`` a check's right memberships and ``d_i`` its memberships true or predicted,
        ``v_points = Σ(a_i − p̂ d_i)² / (Σd_i)²`` is the ratio estimator's linearised variance
        over the checks, ``v_trials = p̂(1 − p̂) / Σd_i`` the binomial variance of ``Σd_i``
        independent memberships. Neither carries a small-sample factor, so the ratio is exactly 1
        when no check has more than one membership; 1 when ``p̂`` is 0 or 1 (both are 0).
    """
    a = (Y & P).sum(axis=1).astype(float)
    d = (Y | P).sum(axis=1).astype(float)
    total = d.sum()
    p = a.sum() / total
    v_trials = p * (1.0 - p) / total
    if v_trials <= 0.0:
        return 1.0
    v_points = ((a - p * d) ** 2).sum() / total**2
    return max(1.0, float(v_points / v_trials))


def _clustered(Y: np.ndarray, P: np.ndarray, level: float, df_adjust: bool) -> tuple[float, float]:
    """Clopper–Pearson's interval of ``p`` on the *effective* counts ``ΣTP / deff`` of
    ``Σd / deff`` trials (deff :func:`membership_design_effect`; Kish's effective sample size),
    mapped to micro-F1 ``2p / (1 + p)``. With ``df_adjust`` (Korn and Graubard, 1998, the
    degrees-of-freedom adjusted effective size) the trials are further multiplied by
    ``(z / t_ν)²``, ``z`` and ``t_ν`` the two-sided ``level`` quantiles of the normal and of
    Student's t on ``ν`` = the informative checks − 1; ``(0, 1)`` when ν < 1. Real-valued
    counts in the beta quantiles (docs/multilabel.md §5, "Points as clusters")."""
    from scipy.special import betaincinv, ndtri, stdtrit  # as clopper_pearson_interval

    right, counted = float((Y & P).sum()), float((Y | P).sum())
    deff = membership_design_effect(Y, P)
    n = counted / deff
    if df_adjust:
        df = int((Y | P).any(axis=1).sum()) - 1
        if df < 1:
            return 0.0, 1.0
        q = 0.5 + level / 2.0
        n *= (ndtri(q) / stdtrit(df, q)) ** 2
    k = n * right / counted
    alpha = 1.0 - level
    low = 0.0 if right == 0 else float(betaincinv(k, n - k + 1.0, alpha / 2.0))
    high = 1.0 if right == counted else float(betaincinv(k + 1.0, n - k, 1.0 - alpha / 2.0))
    return 2.0 * low / (1.0 + low), 2.0 * high / (1.0 + high)


_BOOTSTRAPS = {"percentile": _percentile, "bca": _bca, "studentized": _studentized}


def pool_micro_f1_estimate(
    check_true,
    check_held,
    labeled_true,
    labeled_held,
    n_unlabeled: int,
    classes=None,
    *,
    level: float = 0.95,
) -> MicroF1Estimate | None:
    """The micro-F1 of the model on the whole pool, labeled points included: the labeled
    points' leave-one-out sets counted in full, the unlabeled rest estimated from the random
    checks (docs/multilabel.md §5, "The whole pool").

    The test points are drawn like the pool's, labeled and unlabeled alike; the checks speak
    for the unlabeled rest only, which the strategy has left easier or harder than the pool
    (it took the points it wanted). Every labeled point's leave-one-out sets are its
    prediction as a new point, so their counts ``A_L = ΣTP`` and ``D_L = Σ(TP + FP + FN)``
    are known; the unlabeled rest's share ``p_U`` of right memberships and its memberships
    ``D_U = n_unlabeled · d̄`` (``d̄`` per check) come from the checks. ``p = (A_L + p_U D_U) /
    (D_L + D_U)`` is increasing in ``p_U``, so Clopper–Pearson's interval of ``p_U`` on the
    checks' memberships (as ``memberships``) maps to one of ``p``, then to micro-F1
    ``2p / (1 + p)``.

    Parameters
    ----------
    check_true, check_held
        The random checks' true and leave-one-out sets, (m, L) 0/1 matrices or lists of label
        sets with ``classes``.
    labeled_true, labeled_held
        Every labeled point's (the checks too) true and leave-one-out sets, the same way.
    n_unlabeled
        The pool's points not labeled.
    classes
        The classes of label sets.
    level
        Confidence level of the interval, in (0, 1).

    Returns
    -------
    MicroF1Estimate or None
        None with fewer than :data:`MIN_CHECKS` checks, or when no check has a true or
        predicted class.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    if isinstance(n_unlabeled, bool) or not isinstance(n_unlabeled, (int, np.integer)):
        raise ValueError(f"n_unlabeled must be an integer, got {n_unlabeled!r}")
    if n_unlabeled < 0:
        raise ValueError(f"n_unlabeled must be ≥ 0, got {n_unlabeled}")
    Y, P = set_matrices(check_true, check_held, classes)
    YL, PL = set_matrices(labeled_true, labeled_held, classes)
    m = Y.shape[0]
    right, counted = int((Y & P).sum()), int((Y | P).sum())
    if m < MIN_CHECKS or counted == 0:
        return None
    known_right, known = float((YL & PL).sum()), float((YL | PL).sum())
    rest = n_unlabeled * counted / m

    def f1(p_rest: float) -> float:
        p = (known_right + p_rest * rest) / (known + rest)
        return 2.0 * p / (1.0 + p)

    low, high = clopper_pearson_interval(right, counted, level)
    return MicroF1Estimate(
        estimate=f1(right / counted),
        low=float(np.clip(f1(low), 0.0, 1.0)),
        high=float(np.clip(f1(high), 0.0, 1.0)),
        n_checks=int(m),
        level=float(level),
    )


__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "MIN_CHECKS",
    "N_BOOTSTRAP",
    "MicroF1Estimate",
    "membership_design_effect",
    "micro_f1_estimate",
    "pool_micro_f1_estimate",
]
