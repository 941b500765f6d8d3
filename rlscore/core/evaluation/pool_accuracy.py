"""How accurate the model is: an estimate from the labeling loop, with an interval that holds.

The leave-one-out (LOO) accuracy on actively chosen labels is biased: the strategy asked about
hard points, and a point a strategy chose because the boundary there rests on it is
mispredicted once it is left out far more often than a new point near it would be. The
*random checks* among the labels are not chosen: each was drawn uniformly at random from the
unlabeled pool (focused ARLS's exploration share, the project's random checks, a random
strategy's picks, uniform initial labels). Each check, predicted by the model fitted on all
the other labels (its exact LOO prediction), is a fair trial of the current model on a new
point drawn like the pool's (docs/mathematics.md §"How accurate is the model").

Two estimates of that accuracy (:data:`METHODS`):

* ``"checks"`` (the default): the share ``k/m`` of the ``m`` checks whose LOO prediction is
  right, with the exact (Clopper–Pearson) interval for ``m`` trials: Wilson's, first tried,
  held in only 83 % of the checkpoints on the worst task of the development half once the
  checks grew numerous (the LOO outcomes of checks that share a model are not quite
  independent trials); Clopper–Pearson's coverage is at least nominal for any accuracy.
* ``"model-assisted"``: the difference estimator of prediction-powered inference (Angelopoulos
  et al. 2023, *Science* 382) ``mean_U q + mean_checks (right − q)``, ``q`` the calibrated
  chance that a prediction is right (:mod:`rlscore.core.evaluation.calibration`) averaged
  over a uniform sample of the unlabeled pool; its interval is Wilson's on ``m·g``
  effective checks, the gain ``g`` (Bernoulli over residual variance, from
  :data:`MIN_CHECKS_FOR_GAIN` checks on, at most :data:`MAX_GAIN`) measured on the checks.

``benchmarks/trust_figures.py`` chose between them and against the estimates that were
shown before (docs/benchmarks/trust.md): the model-assisted interval was 4–7 points narrower
but held in only 83–84 % of the checkpoints on five tasks, so the headline is ``"checks"``.
With no random check there is no estimate (None): nothing unbiased is known yet.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlscore.core.evaluation.accuracy_interval import clopper_pearson_interval, wilson_bounds

#: the estimates :func:`pool_accuracy` makes (module docstring), the headline's first
METHODS = ("checks", "model-assisted")
#: the model-assisted interval narrows only from this many checks on
MIN_CHECKS_FOR_GAIN = 10
#: the most the model-assisted interval may narrow: at most this many effective checks each
MAX_GAIN = 4.0


@dataclass(frozen=True)
class PoolAccuracy:
    """The model's accuracy over the pool, with its interval (shares in [0, 1]).

    ``n_checks``: the random checks it rests on; ``effective_checks``: the checks' worth after
    the model-assisted gain; ``expected_error_rate``: the calibrated chance of a wrong
    prediction averaged over the unlabeled pool (None without calibration).
    """

    estimate: float
    low: float
    high: float
    n_checks: int
    effective_checks: float
    level: float
    method: str
    expected_error_rate: float | None

    @property
    def interval(self) -> tuple[float, float]:
        """``(low, high)``."""
        return self.low, self.high


def pool_accuracy(
    labeled_right: np.ndarray,
    checks: np.ndarray,
    *,
    labeled_prob: np.ndarray | None = None,
    unlabeled_prob: np.ndarray | None = None,
    level: float = 0.95,
    method: str = "checks",
) -> PoolAccuracy | None:
    """The accuracy estimate of the module docstring.

    Parameters
    ----------
    labeled_right
        Per labeled point, whether its exact LOO prediction is its label, (n,).
    checks
        Per labeled point, whether it is a random check (drawn uniformly at random from the
        unlabeled pool), (n,).
    labeled_prob, unlabeled_prob
        The calibrated chance that the prediction is right: at each labeled point's LOO
        margin, (n,), and on a uniform sample of the unlabeled pool, (s,). ``unlabeled_prob``
        gives the expected error rate; ``"model-assisted"`` needs both.
    level
        The interval's confidence level.
    method
        One of :data:`METHODS`.

    Returns
    -------
    PoolAccuracy or None
        None when no label is a random check.
    """
    right = np.asarray(labeled_right, dtype=bool).ravel()
    is_check = np.asarray(checks, dtype=bool).ravel()
    if right.shape != is_check.shape:
        raise ValueError(f"labeled_right {right.shape} and checks {is_check.shape} differ")
    if method not in METHODS:
        raise ValueError(f"method {method!r} is unknown: choose one of {list(METHODS)}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level!r}")
    q_unlabeled = None if unlabeled_prob is None else np.asarray(unlabeled_prob, np.float64)
    risk = None if q_unlabeled is None or q_unlabeled.size == 0 else 1.0 - q_unlabeled.mean()
    m = int(is_check.sum())
    if m == 0:
        return None
    share, worth = float(right[is_check].mean()), float(m)
    if method == "model-assisted":
        if labeled_prob is None or risk is None:
            raise ValueError("the model-assisted estimate needs labeled_prob and unlabeled_prob")
        q_checks = np.asarray(labeled_prob, dtype=np.float64).ravel()[is_check]
        share, worth = _model_assisted(right[is_check], q_checks, q_unlabeled)
    if method == "checks":  # exact: coverage at least nominal for any accuracy
        low, high = clopper_pearson_interval(int(right[is_check].sum()), m, level)
    else:
        low, high = wilson_bounds(share, worth, level)
    return PoolAccuracy(
        estimate=share,
        low=float(low),
        high=float(high),
        n_checks=m,
        effective_checks=worth,
        level=level,
        method=method,
        expected_error_rate=None if risk is None else float(risk),
    )


def _model_assisted(
    right: np.ndarray, q_checks: np.ndarray, q_unlabeled: np.ndarray
) -> tuple[float, float]:
    """The difference estimate of the unlabeled pool's accuracy and its effective number of
    checks (module docstring); the checks' share and their number when the model does not
    help."""
    m = right.size
    plain = float(right.mean())
    residual = right - q_checks
    share = float(np.clip(q_unlabeled.mean() + residual.mean(), 0.0, 1.0))
    if m < MIN_CHECKS_FOR_GAIN:
        return share, float(m)
    variance = residual.var(ddof=1) + q_unlabeled.var() / q_unlabeled.size
    bernoulli = share * (1.0 - share)
    if variance >= bernoulli:
        return plain, float(m)
    return share, m * (MAX_GAIN if variance == 0.0 else min(bernoulli / variance, MAX_GAIN))


__all__ = ["MAX_GAIN", "METHODS", "MIN_CHECKS_FOR_GAIN", "PoolAccuracy", "pool_accuracy"]
