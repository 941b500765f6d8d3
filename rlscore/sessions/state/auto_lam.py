"""The automatic λ of a session (``lam="auto"``): when it is re-chosen and how.

Before enough labels, λ is the project's recommended one. Each time the number of labels reaches a
milestone (4, 8, 16, …) λ is re-chosen by the exact LOO error of RLS on the labeled points
(:func:`rlscore.sessions.state.loo_refit.loo_lam`: the engine's kernel and class weights) and the
engine is rebuilt; in between λ is kept, so a label costs no rebuild.
"""

from __future__ import annotations

import math

import numpy as np

from rlscore.query import QueryStrategy
from rlscore.sessions.state.loo_refit import loo_lam

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
        The λ in effect afterwards.
    """
    if len(labels) not in AUTO_LAM_MILESTONES or "lam" not in engine.get_params():
        return lam
    chosen = loo_lam(engine, X, labels, K)
    if chosen is None or chosen == lam:
        return lam
    engine.set_params(lam=chosen)
    engine.rebuild()  # reuses the pool kernel it was started with
    return chosen


__all__ = ["AUTO_LAM_MILESTONES", "initial_lam", "retune_lam"]
