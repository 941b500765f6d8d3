"""The stopping indicator: whether the pool predictions settled over the last labels.

:func:`stopping_report` (:meth:`SessionView.stopping
<rlscore.sessions.views.session_view.SessionView.stopping>`) reads the prediction change of a
session's :class:`~rlscore.sessions.views.diagnostics.History` and its leave-one-out errors; it is
kept for Python callers and the simulations. The Label page no longer shows it: its When-to-stop
panel (:mod:`rlscore.sessions.stopping.stopping_view`) gives the accuracy estimate with its
interval and a validated stop rule instead (issue 24).
"""

from __future__ import annotations

from rlscore.sessions.views.diagnostics import History


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


__all__ = ["stopping_report"]
