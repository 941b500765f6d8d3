"""Stopping rules for active learning: pure functions over the curves a run records.

Every rule reads curves indexed by *step* ``t`` (entry ``t``: the state after ``t`` labels of
the run, or ``t`` queries after its initial labels) with NaN where a value is not defined
(too few labels, or one class only), and returns the first step at which it fires, or None
(docs/mathematics.md §"Knowing when to stop"):

* :func:`stabilizing_predictions` — Bloodgood & Vijay-Shanker (2009): the models ``lag``
  labels apart agree on a stop set (Cohen's κ, :func:`kappa_curve`), and the mean κ of the
  last ``window`` such comparisons reaches ``threshold`` (0.99 in the paper);
* :func:`confidence_drop` — Vlachos (2008): the classifier's mean confidence on the stop set
  has fallen at each of the last ``patience`` checks, ``lag`` labels apart (3 in the paper);
* :func:`plateau` — rlscore's own quantities (the strategy's estimated risk, or the exact
  leave-one-out error): the curve moved by at most ``epsilon`` (relative to its level, or
  absolute) over the last ``window`` steps.

``min_step`` makes every rule wait: a rule fed a few labels of a constant model would fire
at once, and B&VS's stop set agreement means nothing before the model has seen each class.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: the single rules by name (the session floor's ``stop_rule.STOP_RULE_PARAMS`` gives each its
#: curve and parameters, and combines them)
STOP_RULES = (
    "stabilizing",
    "confidence-drop",
    "risk-plateau",
    "loo-plateau",
    "stabilizing-long",
    "confidence-plateau",
)


def cohen_kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's κ between two labelings of the same points: ``(p_o − p_e) / (1 − p_e)``.

    ``p_o`` is the share of points both label alike, ``p_e`` the share expected by chance
    from each labeling's class frequencies. When ``p_e`` is 1 (both give every point the same
    single class) the labelings agree perfectly and κ is taken as 1 (0 if they differ).
    """
    a = np.asarray(a).ravel()
    b = np.asarray(b).ravel()
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"two labelings of the same points are needed, got {a.size} and {b.size}")
    classes, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    ca, cb = codes[: a.size], codes[a.size :]
    p_o = float(np.mean(ca == cb))
    fa = np.bincount(ca, minlength=classes.size) / a.size
    fb = np.bincount(cb, minlength=classes.size) / b.size
    p_e = float(fa @ fb)
    if p_e >= 1.0 - 1e-15:
        return 1.0 if p_o >= 1.0 else 0.0
    return (p_o - p_e) / (1.0 - p_e)


def kappa_curve(predictions: Sequence[np.ndarray | None], lag: int) -> np.ndarray:
    """Entry ``t``: κ between the predictions on the stop set at steps ``t − lag`` and ``t``
    (NaN when either is None, i.e. no model yet, or ``t < lag``)."""
    lag = _positive(lag, "lag")
    out = np.full(len(predictions), np.nan)
    for t in range(lag, len(predictions)):
        a, b = predictions[t - lag], predictions[t]
        if a is not None and b is not None:
            out[t] = cohen_kappa(a, b)
    return out


def stabilizing_predictions(
    kappa: Sequence[float],
    *,
    lag: int = 10,
    window: int = 3,
    threshold: float = 0.99,
    min_step: int = 0,
) -> int | None:
    """First step ``t ≥ min_step`` at which the mean of ``κ_t, κ_{t−lag}, …,
    κ_{t−(window−1)·lag}`` is at least ``threshold`` (every one of them defined).

    Parameters
    ----------
    kappa
        :func:`kappa_curve` of the run's stop-set predictions with the same ``lag``.
    lag, window, threshold
        Labels between the compared models, comparisons averaged, and the agreement needed
        (Bloodgood & Vijay-Shanker 2009: three comparisons, 0.99).
    min_step
        No stop before this step.
    """
    k = _curve(kappa)
    lag, window = _positive(lag, "lag"), _positive(window, "window")
    for t in range(max(min_step, (window - 1) * lag), k.size):
        values = k[t - lag * np.arange(window)]
        if not np.isnan(values).any() and values.mean() >= threshold:
            return t
    return None


def confidence_drop(
    confidence: Sequence[float], *, lag: int = 10, patience: int = 3, min_step: int = 0
) -> int | None:
    """First step ``t ≥ min_step`` at which the confidence fell at each of the last
    ``patience`` checks: ``c_{t−j·lag} < c_{t−(j+1)·lag}`` for ``j = 0 … patience − 1``.

    Parameters
    ----------
    confidence
        The model's mean confidence on the stop set at each step (Vlachos 2008).
    lag, patience
        Labels between checks, and consecutive drops needed (3 in the paper).
    min_step
        No stop before this step.
    """
    c = _curve(confidence)
    lag, patience = _positive(lag, "lag"), _positive(patience, "patience")
    for t in range(max(min_step, patience * lag), c.size):
        later = c[t - lag * np.arange(patience)]
        earlier = c[t - lag * np.arange(1, patience + 1)]
        if not (np.isnan(later).any() or np.isnan(earlier).any()) and np.all(later < earlier):
            return t
    return None


def plateau(
    curve: Sequence[float],
    *,
    window: int = 20,
    epsilon: float = 0.05,
    relative: bool = True,
    min_step: int = 0,
) -> int | None:
    """First step ``t ≥ min_step`` at which the curve's range over steps ``t − window … t``
    is at most ``epsilon`` — times ``|c_t|`` when ``relative`` (a risk on its own scale),
    absolute otherwise (an error rate). Every value of the window must be defined.
    """
    c = _curve(curve)
    window = _positive(window, "window")
    if not epsilon >= 0:
        raise ValueError(f"epsilon must be ≥ 0, got {epsilon!r}")
    for t in range(max(min_step, window), c.size):
        values = c[t - window : t + 1]
        if np.isnan(values).any():
            continue
        spread = float(values.max() - values.min())
        if spread <= epsilon * (abs(float(c[t])) if relative else 1.0):
            return t
    return None


def steps_to_stabilize(
    kappa: Sequence[float], *, lag: int = 10, window: int = 3, threshold: float = 0.99
) -> int | None:
    """Steps before :func:`stabilizing_predictions` fires **if κ stays at its current value**:
    the smallest ``s ≥ 0`` for which the rule holds at step ``t + s`` (``t`` the last step)
    when every comparison still to come equals ``κ_t``. None when it never would (``κ_t``
    below the threshold keeps the mean below it once the known comparisons have left the
    window) or when ``κ_t`` is undefined.

    A forecast from the current evidence, recomputed after every label: it moves as the
    recorded κ moves (the known comparisons leave the window one step at a time)."""
    k = _curve(kappa)
    lag, window = _positive(lag, "lag"), _positive(window, "window")
    if k.size == 0 or np.isnan(k[-1]):
        return None
    t, now = k.size - 1, float(k[-1])
    # from s = (window − 1)·lag + 1 on every comparison is one to come: the mean is κ_t
    for s in range((window - 1) * lag + 2):
        steps = t + s - lag * np.arange(window)
        if steps.min() < 0:
            continue
        values = np.where(steps <= t, k[np.minimum(steps, t)], now)
        if not np.isnan(values).any() and values.mean() >= threshold:
            return s
    return None


def steps_to_confidence_drop(
    confidence: Sequence[float], *, lag: int = 10, patience: int = 3
) -> int | None:
    """Steps before :func:`confidence_drop` fires **if the confidence stays at its current
    value**: the smallest ``s ≥ 0`` for which the rule holds at step ``t + s`` when every
    value still to come equals ``c_t``. A value to come is then no drop from another value to
    come, so the rule can fire only within ``lag`` steps, on drops from known values; None
    otherwise, or when ``c_t`` is undefined."""
    c = _curve(confidence)
    lag, patience = _positive(lag, "lag"), _positive(patience, "patience")
    if c.size == 0 or np.isnan(c[-1]):
        return None
    t = c.size - 1
    for s in range(lag + 1):
        u = t + s
        if u < patience * lag:
            continue
        later = u - lag * np.arange(patience)
        earlier = later - lag
        a = np.where(later <= t, c[np.minimum(later, t)], c[t])
        b = np.where(earlier <= t, c[np.minimum(earlier, t)], c[t])
        if not (np.isnan(a).any() or np.isnan(b).any()) and np.all(a < b):
            return s
    return None


def steps_to_plateau(
    curve: Sequence[float], *, window: int = 20, epsilon: float = 0.05, relative: bool = True
) -> int | None:
    """Steps before :func:`plateau` fires **if the curve stays at its current value**: the
    smallest ``s ≥ 0`` for which the range of the last ``window + 1`` values at step
    ``t + s``, the values to come equal to ``c_t``, is within the tolerance. At most
    ``window`` (then every value of the window is ``c_t``); None when ``c_t`` is undefined."""
    c = _curve(curve)
    window = _positive(window, "window")
    if c.size == 0 or np.isnan(c[-1]):
        return None
    t, now = c.size - 1, float(c[-1])
    tolerance = epsilon * (abs(now) if relative else 1.0)
    for s in range(window + 1):
        if t + s < window:
            continue
        known = c[t + s - window : t + 1]  # the window's recorded part (with c_t)
        if not np.isnan(known).any() and known.max() - known.min() <= tolerance:
            return s
    return None  # pragma: no cover - s = window leaves c_t alone in the window


def _curve(values: Sequence[float]) -> np.ndarray:
    return np.asarray([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def _positive(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a whole number ≥ 1, got {value!r}")
    return int(value)


__all__ = [
    "STOP_RULES",
    "cohen_kappa",
    "confidence_drop",
    "kappa_curve",
    "plateau",
    "stabilizing_predictions",
    "steps_to_confidence_drop",
    "steps_to_plateau",
    "steps_to_stabilize",
]
