"""Calibrated chances that a prediction is right, from the exact leave-one-out margins.

An RLS classifier's decision values are not probabilities: the clipped soft scores call every
point with ``|f| < 1`` uncertain, and on a few labels they are far from the frequency of
errors. What the accuracy estimate and the expected error rate need is one number per point,
``P(prediction right | margin)``, where the margin is ``|f|`` (binary) or the gap between the
two largest one-vs-all values (:func:`rlscore.core.rls.confidence.margin`).

The exact LOO decision values give, for every labeled point, a margin and whether the
prediction of the model fitted without the point was right: a sample of (margin, right) pairs
from models the point did not train. :func:`fit_platt` fits Platt's sigmoid
``P(right | m) = 1 / (1 + exp(−(a·m + b)))`` to them by maximum likelihood with Platt's
smoothed targets ``(N₊ + 1)/(N₊ + 2)`` and ``1/(N₋ + 2)`` (Platt 1999, *Probabilistic outputs
for support vector machines*, §2.2), which keeps the fit finite when every LOO prediction is
right (the common case after a few labels). Why the margin only: the strategies choose their
queries by the margin, so conditional on the margin the chosen labels are much closer to a
fair sample than they are overall (docs/mathematics.md §"How accurate is the model").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Newton steps of :func:`fit_platt` (two parameters: it converges in a handful)
MAX_NEWTON_STEPS = 50
#: the shortest share of a Newton step :func:`fit_platt`'s line search tries
MIN_STEP = 1e-10


@dataclass(frozen=True)
class PlattCalibration:
    """``P(right | margin) = 1 / (1 + exp(−(slope·margin + intercept)))``."""

    slope: float
    intercept: float

    def probability(self, margins: np.ndarray) -> np.ndarray:
        """The calibrated chance that the prediction at each margin is right."""
        z = self.slope * np.asarray(margins, dtype=np.float64) + self.intercept
        return 0.5 * (1.0 + np.tanh(0.5 * z))  # the logistic function, without overflow


def fit_platt(margins: np.ndarray, right: np.ndarray) -> PlattCalibration:
    """Platt's sigmoid fitted to ``(margin, right)`` pairs (module docstring).

    Parameters
    ----------
    margins
        Non-negative margins, (n,).
    right
        Whether each prediction was right, (n,) booleans.

    Returns
    -------
    PlattCalibration
        The maximum-likelihood sigmoid on Platt's smoothed targets, with its slope kept
        ≥ 0 (a larger margin is never less likely right).
    """
    m = np.asarray(margins, dtype=np.float64).ravel()
    r = np.asarray(right, dtype=bool).ravel()
    if m.shape != r.shape or m.size == 0:
        raise ValueError(
            f"margins and right must be two non-empty vectors of one length, got {m.shape} "
            f"and {r.shape}"
        )
    if not np.all(np.isfinite(m)) or np.any(m < 0):
        raise ValueError("margins must be finite and ≥ 0")
    n_right = int(r.sum())
    target = np.where(r, (n_right + 1.0) / (n_right + 2.0), 1.0 / (m.size - n_right + 2.0))
    a, b = 0.0, float(np.log((n_right + 1.0) / (m.size - n_right + 1.0)))
    m2 = m * m
    loss = _cross_entropy(m, target, a, b)
    for _ in range(MAX_NEWTON_STEPS):
        p = PlattCalibration(a, b).probability(m)
        g = p - target  # the gradient of the cross-entropy in z
        w = np.maximum(p * (1.0 - p), 1e-12)
        # the 2 × 2 Newton system (Hessian + 1e-9·I) solved in closed form: no arrays built
        # and no LAPACK call per step (the label checker fits on pools of ~150 points)
        haa, hab, hbb = float(w @ m2) + 1e-9, float(w @ m), float(w.sum()) + 1e-9
        ga, gb = float(g @ m), float(g.sum())
        det = haa * hbb - hab * hab
        step_a, step_b = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
        if a - step_a < 0.0:
            # the slope's bound is reached: Newton in the intercept alone at slope 0 (the
            # joint step's intercept would stop where the slope's gradient is balanced, not at
            # the bounded optimum, and the clipped slope step would never fall below the tolerance)
            step_a, step_b = a, gb / hbb
        # backtracking (Lin, Lin & Weng 2007, *A note on Platt's probabilistic outputs for
        # support vector machines*): a full Newton step from a flat start can overshoot
        # on nearly separated margins and run off to slopes of 10¹⁰, certainties of 0 and 1
        t = 1.0
        while t >= MIN_STEP:
            new_a, new_b = a - t * step_a, b - t * step_b
            new_loss = _cross_entropy(m, target, new_a, new_b)
            if new_loss <= loss - 1e-4 * t * (ga * step_a + gb * step_b):
                break
            t /= 2.0
        else:
            break  # no descent along the Newton direction: at the optimum to rounding
        a, b, loss = new_a, new_b, new_loss
        if max(abs(t * step_a), abs(t * step_b)) < 1e-10:
            break
    return PlattCalibration(a, b)


def _cross_entropy(m: np.ndarray, target: np.ndarray, a: float, b: float) -> float:
    """The cross-entropy of the sigmoid ``a·m + b`` on the targets, without overflow."""
    z = a * m + b
    return float(np.sum(np.logaddexp(0.0, z) - target * z))


__all__ = ["PlattCalibration", "fit_platt"]
