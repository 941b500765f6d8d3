"""The automatic λ of a session (``lam="auto"``): when it is re-chosen and how.

Before enough labels, λ is the project's recommended one. Each time the number of labels reaches a
milestone (4, 8, 16, …) λ is re-chosen by the exact LOO error of RLS on the labeled points
(:func:`rlscore.sessions.state.loo_refit.loo_lam`: the engine's kernel and class weights) and the
engine is rebuilt; in between λ is kept, so a label costs no rebuild.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from rlscore.query import QueryStrategy
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.state.loo_refit import loo_lam
from rlscore.storage import Event

#: the automatic λ is re-chosen when the number of labels reaches one of these
AUTO_LAM_MILESTONES = tuple(2**k for k in range(2, 20))


def initial_lam(lam, project_meta: dict) -> float:
    """The λ a session starts with: ``lam`` itself, or for ``"auto"`` the project's
    recommended λ (else 1). Raises ``ValueError`` for anything else than a positive number
    or ``"auto"``."""
    if lam == "auto":
        return float(project_meta.get("lam") or 1.0)
    if isinstance(lam, bool) or not isinstance(lam, int | float | np.number):
        raise ValueError(f"lam must be a positive number or 'auto', got {lam!r}")
    if not (math.isfinite(lam) and lam > 0):
        raise ValueError(f"lam must be > 0, got {lam!r}")
    return float(lam)


def first_label(old, new) -> bool:
    """Whether an event that took a point's label from ``old`` to ``new`` gave it its first
    label: only then does the number of labels grow to a milestone (a relabel or an undo
    re-chooses nothing)."""
    return new is not None and old is None


def milestone_lam(
    engine: QueryStrategy,
    lam: float,
    X: np.ndarray,
    labels: dict,
    K: np.ndarray | None,
    classes=None,
) -> float:
    """The λ in effect once the labels are ``labels``, after a first label: at a milestone
    the LOO λ (:func:`~rlscore.sessions.state.loo_refit.loo_lam`, with the engine's kernel and
    class weights; ``classes``: the project's, for an engine not started), else, or when none
    can be chosen, ``lam``. Changes nothing."""
    if len(labels) not in AUTO_LAM_MILESTONES or "lam" not in engine.get_params():
        return lam
    chosen = loo_lam(engine, X, labels, K, classes)
    return lam if chosen is None else chosen


def retune_lam(
    engine: QueryStrategy, lam: float, X: np.ndarray, labels: dict, K: np.ndarray | None
) -> float:
    """After a new label: at a milestone, set the LOO λ on the engine (rebuilding it).

    Parameters
    ----------
    engine
        The started engine, already taught ``labels``.
    lam
        The λ in effect.
    X, labels, K
        The pool, the current labels (point -> label) and the pool kernel.

    Returns
    -------
    float
        The λ in effect afterwards (:func:`milestone_lam`).
    """
    chosen = milestone_lam(engine, lam, X, labels, K)
    if chosen == lam:
        return lam
    engine.set_params(lam=chosen)
    engine.rebuild()  # reuses the pool kernel it was started with
    return chosen


def replayed_lam(
    engine: QueryStrategy,
    lam: float,
    X: np.ndarray,
    events: Iterable[Event],
    classes,
    rule: str = "latest",
    K: np.ndarray | None = None,
) -> float:
    """The automatic λ a session with ``engine``'s kernel and class weights holds after
    replaying ``events`` from ``lam``: each first label that brings the labels (folded by
    ``rule``) to a milestone re-chooses it (:func:`milestone_lam`), as the session's replay
    does label by label, without a started engine.

    Parameters
    ----------
    engine
        A strategy with the session's settings (not started: only its parameters are read).
    lam
        The λ the session starts with (:func:`initial_lam`).
    X
        The pool.
    events
        The project's event log, oldest first.
    classes
        The project's classes (a started engine's own: whether its model has an offset yet).
    rule
        The final-label rule (:class:`~rlscore.sessions.state.label_log.LabelLog`).
    K
        The pool kernel, for a graph kernel.

    Returns
    -------
    float
        The λ in effect after the last event.
    """
    log = LabelLog(rule=rule)
    for event in events:
        _, old, new = log.apply(event)
        if first_label(old, new):
            lam = milestone_lam(engine, lam, X, log.labels, K, classes)
    return lam


__all__ = [
    "AUTO_LAM_MILESTONES",
    "first_label",
    "initial_lam",
    "milestone_lam",
    "replayed_lam",
    "retune_lam",
]
