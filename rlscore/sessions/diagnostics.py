"""What a session shows besides the next query: its histories and the stopping indicator.

The stopping indicator (:func:`stopping_report`, :meth:`SessionView.stopping`) says whether
the pool predictions settled; it is kept for Python callers and the simulations. The Label
page no longer shows it: its When-to-stop panel (:mod:`rlscore.sessions.stopping_view`) gives
the accuracy estimate with its interval and a validated stop rule instead (issue 24).

The histories are kept along the *labeling path*, one entry per number of labels: entry ``n``
is the state with ``n`` labels. A new label appends an entry; an undo drops the last one and
recomputes the entry it returns to, so the entries before stay valid (undo reverts events in
the reverse order they were given, so the path back is the path that was walked).

The **validation error** is :mod:`rlscore.core.metrics`' one definition: the session has no
held-out split, so it is measured on the pool points that are not labeled.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rlscore.core.metrics import label_codes, validation_errors
from rlscore.core.missing_labels import unlabeled_mask


def class_codes(pred: np.ndarray, classes: Sequence) -> np.ndarray:
    """Positions of the predicted classes in ``classes``, in the smallest integer type
    (a pool of n points costs n bytes per history entry with up to 255 classes)."""
    position = {c: k for k, c in enumerate(classes)}
    dtype = np.min_scalar_type(max(len(classes) - 1, 0))
    # per click on the whole pool: each distinct class looked up once, not each point
    codes, distinct = label_codes(np.asarray(pred))
    return np.fromiter((position[v] for v in distinct), dtype=dtype, count=len(distinct))[codes]


def pool_validation_errors(
    truth: np.ndarray, pred: np.ndarray, labeled
) -> tuple[float | None, float | None]:
    """``(error, balanced error)`` of the pool predictions on the unlabeled points."""
    mask = unlabeled_mask(truth.size, labeled)
    return validation_errors(truth[mask], np.asarray(pred)[mask])


class History:
    """The figures of a session along its labeling path (entry n: the state with n labels)."""

    def __init__(self) -> None:
        self.risk: list[float] = []
        self.validation: list[float | None] = []
        self.balanced_validation: list[float | None] = []
        self.change: list[float | None] = []
        self._codes: list[np.ndarray] = []  # predicted class positions on the pool

    def record(
        self,
        n_labeled: int,
        risk: float,
        codes: np.ndarray,
        errors: tuple[float | None, float | None] | None,
    ) -> None:
        """Set entry ``n_labeled`` (dropping any later ones): the estimated ``risk``, the
        predicted class ``codes`` on the pool and the validation ``errors`` (None: no truth)."""
        for entries in (self.risk, self.validation, self.balanced_validation, self.change):
            del entries[n_labeled:]
        del self._codes[n_labeled:]
        prev = self._codes[n_labeled - 1] if 0 < n_labeled <= len(self._codes) else None
        self._codes.append(codes)
        self.risk.append(float(risk))
        self.change.append(None if prev is None else float(np.mean(codes != prev)))
        if errors is not None:
            self.validation.append(errors[0])
            self.balanced_validation.append(errors[1])

    def prediction_change(self, window: int) -> float | None:
        """Fraction of pool points whose predicted class changed over the last ``window``
        labels; None with fewer labels than that."""
        n = len(self._codes) - 1
        if n < window or window < 1:
            return None
        return float(np.mean(self._codes[n] != self._codes[n - window]))


def stopping_report(
    history: History,
    *,
    window: int,
    tolerance: float,
    missing_classes: list,
    loo: dict,
) -> dict:
    """The stopping indicator (docs/mathematics.md §5: the estimated risk alone misleads).

    Settled (``stable``) means: every class has a label, and the predictions on the pool
    changed for at most ``tolerance`` of the points over the last ``window`` labels. Without
    a label of every class, stable predictions only say that nothing contradicted the
    classes seen so far (a class may not have been found yet).

    Parameters
    ----------
    history
        The session's history.
    window, tolerance
        The stopping window k and the tolerated fraction of changed predictions.
    missing_classes
        Classes without a label.
    loo
        ``loo_error`` and ``loo_balanced_error`` on the labeled set.

    Returns
    -------
    dict
        ``n_labeled``, ``window``, ``prediction_change`` (None before k labels),
        ``change_history``, ``missing_classes``, ``loo_error``, ``loo_balanced_error``,
        ``estimated_risk``, ``stable`` and a ``message``.
    """
    change = history.prediction_change(window)
    stable = change is not None and change <= tolerance and not missing_classes
    if change is None:
        message = f"label at least {window} points to judge whether the predictions settle"
    elif missing_classes:
        names = ", ".join(repr(c) for c in missing_classes)
        message = (
            f"no point is labeled {names} yet: the predictions cannot have settled before "
            "every class has a label; keep labeling (or label a point of that class directly)"
        )
    elif stable:
        message = (
            f"predictions changed for {change:.1%} of the pool over the last {window} labels "
            f"(≤ {tolerance:.1%}): they have settled; more labels are unlikely to change much"
        )
    else:
        message = (
            f"predictions changed for {change:.1%} of the pool over the last {window} labels "
            f"(> {tolerance:.1%}): keep labeling"
        )
    return {
        "n_labeled": len(history.risk) - 1,
        "window": window,
        "prediction_change": change,
        "change_history": list(history.change),
        "missing_classes": list(missing_classes),
        **loo,
        "estimated_risk": history.risk[-1],
        "stable": stable,
        "message": message,
    }


__all__ = ["History", "class_codes", "pool_validation_errors", "stopping_report"]
