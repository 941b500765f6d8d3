"""How good the predicted label sets are over the pool: a micro-F1 estimate from the random
checks, with a bootstrap interval (docs/multilabel.md §5).

As for single-label projects (:mod:`rlscore.core.evaluation.pool_accuracy`), only the *random
checks* among the labels — points drawn uniformly from the unlabeled pool, not chosen by the
strategy — are a fair sample of the pool; each is predicted by the model fitted on all the other
labels (its exact leave-one-out sets, ``MultiLabelRLS.loo_decision_ > 0``). Micro-F1 is a ratio
of sums over the points, ``2ΣTP / (2ΣTP + ΣFP + ΣFN)``, not a mean of independent trials, so
its interval is the percentile bootstrap over the checks (the checks resampled with
replacement, the ratio recomputed). The session's headline and stop rule for multi-label
projects (rlscore/sessions) are built on these pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlscore.core.evaluation.multilabel_metrics import set_matrices

#: bootstrap resamples of :func:`micro_f1_estimate`
N_BOOTSTRAP = 2000
#: fewer random checks than this give no estimate (None)
MIN_CHECKS = 5


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
        Bootstrap resamples (≥ 100).
    seed
        Seed of the resampling (the same checks give the same interval).

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
    Y, P = set_matrices(true_sets, loo_sets, classes)
    m = Y.shape[0]
    if m < MIN_CHECKS:
        return None
    # per check: 2 TP (numerator) and 2 TP + FP + FN (denominator)
    num = 2.0 * (Y & P).sum(axis=1)
    den = num + (Y != P).sum(axis=1)
    if den.sum() == 0:
        return None
    draws = np.random.default_rng(seed).integers(0, m, size=(n_bootstrap, m))
    num_b, den_b = num[draws].sum(axis=1), den[draws].sum(axis=1)
    ratios = np.divide(num_b, den_b, out=np.zeros(n_bootstrap), where=den_b > 0)
    alpha = 1.0 - level
    low, high = np.quantile(ratios, [alpha / 2.0, 1.0 - alpha / 2.0])
    return MicroF1Estimate(
        estimate=float(num.sum() / den.sum()),
        low=float(low),
        high=float(high),
        n_checks=int(m),
        level=float(level),
    )


__all__ = ["MIN_CHECKS", "N_BOOTSTRAP", "MicroF1Estimate", "micro_f1_estimate"]
