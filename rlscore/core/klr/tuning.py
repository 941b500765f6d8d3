"""Choosing the KLR's λ (and a graph kernel's t) from the labeled points, and its regime.

**The rule.** Over a small grid of (t, λ), fit the KLR on the labeled points and compute its
leave-one-out predictive log-loss: for each labeled point i, the KLR fitted without i
predicts i's class, and the loss is ``−log P(y_i)``. Keep the setting of the lowest mean
loss (ties: the larger λ, then the smaller t). A point is scored only when its class keeps
at least one other label (without it the LOO model has never seen the class and its loss
says nothing about t or λ); with no scorable point the caller keeps its own setting.

Two LOO computations (:func:`loo_decision_values`):

* ``"exact"``: the l refits on l − 1 points, solved together as a stack by the representer
  Newton (:func:`rlscore.core.klr.newton.newton_representer`), warm-started from the full fit;
  O(l·(lh)³) per Newton step and setting.
* ``"one_step"``: one Newton step of the leave-i-out problem from the full fit. Removing i
  changes the Hessian by one Fisher block, so by Woodbury
  ``β_{−i}(x_i) ≈ β_i + Σ_ii (I − F_i Σ_ii)⁻¹ (p_i − t_i)``, ``Σ_ii = [H⁻¹]_ii`` the
  posterior block of :mod:`rlscore.core.klr.posterior`: one (lh)² system per setting.

``"auto"`` is exact up to :data:`EXACT_LOO_MAX_LABELS` labels.

**The regime.** With a local graph kernel and few labels the KLR can stay near uniform on
the pool (docs/mathematics.md §7: mean largest probability 0.33–0.43 on 3 classes with
``(I + L̃)⁻¹``); the
A-optimal risk then scales as 1/λ and ranks points by their prior variance ``K_kk``, a
graph-coverage rule. :func:`confidence_regime` measures it: *near uniform* when the mean
largest class probability over the unlabeled pool is less than
:data:`NEAR_UNIFORM_FRACTION` of the way from chance (1/T) to certainty (1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.klr.link import fisher_blocks, log_losses, probabilities
from rlscore.core.klr.newton import KLRConvergenceError, newton_representer
from rlscore.core.klr.posterior import posterior_diag, woodbury_core

__all__ = [
    "EXACT_LOO_MAX_LABELS",
    "LAM_GRID",
    "NEAR_UNIFORM_FRACTION",
    "T_GRID",
    "ConfidenceRegime",
    "KLRTuning",
    "confidence_regime",
    "loo_decision_values",
    "loo_log_loss",
    "tune_klr",
]

#: graph-kernel scales tried (Yajima uses t = 1; t ≈ 10 made the KLR informative on digits)
T_GRID = (1.0, 3.0, 10.0, 30.0)
#: λ values tried (1e-4 is the smallest at which the KLR reliably converges: klr.newton.LAM_SAFE)
LAM_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
#: "auto" LOO is exact up to this many labels, one Newton step above. Measured 2026-11-24
#: (benchmarks/reproduce_yajima.py pools, 3 classes, the 4 × 5 grid, one thread, load ≈ 6):
#: exact 0.5 s at l = 10, 0.8 s at 20, 4.9 s at 40; one step 0.5 s at 40, 7 s at 160
EXACT_LOO_MAX_LABELS = 20
#: near uniform: mean largest probability below chance + this fraction of (1 − chance)
NEAR_UNIFORM_FRACTION = 0.25


def loo_decision_values(
    K_LL: np.ndarray,
    T: np.ndarray,
    lam: float,
    *,
    alpha: np.ndarray | None = None,
    method: str = "exact",
    tol: float = 1e-8,
) -> np.ndarray:
    """Decision values at each labeled point of the KLR fitted without it, (l, h').

    Parameters
    ----------
    K_LL
        Kernel among the l labeled points.
    T
        0/1 targets (l, h'): one column for binary, one-hot for softmax.
    lam
        Regularisation λ.
    alpha
        Coefficients of the full fit (computed when None).
    method
        ``"exact"`` (l refits) or ``"one_step"`` (one Newton step each; module docstring).
    tol
        Newton's stopping rule (largest gradient entry) for the fits.
    """
    K_LL = np.asarray(K_LL, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    l, h = T.shape
    if alpha is None:
        alpha, _ = newton_representer(K_LL, T, lam, tol=tol)
    if method == "exact":
        others = np.array([np.delete(np.arange(l), i) for i in range(l)], dtype=np.int64)
        K_stack = K_LL[others[:, :, None], others[:, None, :]]
        alpha_loo, _ = newton_representer(K_stack, T[others], lam, alpha0=alpha[others], tol=tol)
        return np.einsum("ij,ijh->ih", K_LL[np.arange(l)[:, None], others], alpha_loo)
    if method != "one_step":
        raise ValueError(f"LOO method must be 'exact' or 'one_step', got {method!r}")
    beta = K_LL @ alpha
    P = probabilities(beta)
    S = posterior_diag(woodbury_core(K_LL, P, lam), K_LL, np.diag(K_LL), h, lam)
    x = np.linalg.solve(np.eye(h) - fisher_blocks(P) @ S, (P - T)[..., None])
    return beta + (S @ x)[..., 0]


def _scorable(codes: np.ndarray) -> np.ndarray:
    """Labeled points whose class has at least one other label."""
    counts = np.bincount(codes)
    return counts[codes] >= 2


def loo_log_loss(
    K_LL: np.ndarray,
    codes: Sequence[int],
    n_classes: int,
    lam: float,
    *,
    method: str = "exact",
) -> tuple[float, np.ndarray]:
    """Mean LOO log-loss over the scorable labeled points, and the full fit's coefficients.

    ``codes`` are class positions in ``[0, n_classes)``. The loss is NaN when no point is
    scorable (every class has at most one label).
    """
    codes = np.asarray(codes, dtype=np.int64)
    T = ova_targets(codes, n_classes, negative=0.0)
    alpha, _ = newton_representer(K_LL, T, lam)
    keep = _scorable(codes)
    if not keep.any():
        return float("nan"), alpha
    F = loo_decision_values(K_LL, T, lam, alpha=alpha, method=method)
    return float(log_losses(F[keep], T[keep]).mean()), alpha


@dataclass
class KLRTuning:
    """The outcome of :func:`tune_klr`.

    Attributes
    ----------
    t, lam : the chosen setting (``t`` is None for a kernel without a scale).
    alpha : (l, h') coefficients of the KLR fitted with it on every label.
    loss : {(t, lam): mean LOO log-loss}, NaN where Newton did not converge.
    method : ``"exact"`` or ``"one_step"``.
    n_scored : labeled points that entered the LOO mean.
    """

    t: float | None
    lam: float
    alpha: np.ndarray
    loss: dict = field(repr=False)
    method: str
    n_scored: int


def tune_klr(
    kernel_LL: Callable[[float | None], np.ndarray],
    codes: Sequence[int],
    n_classes: int,
    *,
    t_grid: Sequence[float | None] = (None,),
    lam_grid: Sequence[float] = LAM_GRID,
    method: str = "auto",
) -> KLRTuning | None:
    """The (t, λ) of the grid with the lowest mean LOO log-loss (module docstring).

    Parameters
    ----------
    kernel_LL
        ``t -> K_t[L, L]`` among the labeled points (called once per t).
    codes
        Class positions of the labeled points.
    n_classes
        T.
    t_grid, lam_grid
        The grid; ``t_grid=(None,)`` tunes λ only.
    method
        ``"exact"``, ``"one_step"`` or ``"auto"``.

    Returns
    -------
    KLRTuning or None
        None when no labeled point is scorable or no setting converged.
    """
    codes = np.asarray(codes, dtype=np.int64)
    if method == "auto":
        method = "exact" if codes.size <= EXACT_LOO_MAX_LABELS else "one_step"
    n_scored = int(_scorable(codes).sum()) if codes.size else 0
    if n_scored == 0:
        return None
    loss, alphas = {}, {}
    for t in t_grid:
        K_LL = kernel_LL(t)
        for lam in lam_grid:
            try:
                loss[t, lam], alphas[t, lam] = loo_log_loss(
                    K_LL, codes, n_classes, lam, method=method
                )
            except KLRConvergenceError:
                loss[t, lam] = float("nan")
    finite = [key for key, v in loss.items() if np.isfinite(v)]
    if not finite:
        return None
    # ties go to the smoother model: larger λ, then smaller t
    best = min(finite, key=lambda key: (loss[key], -key[1], key[0] or 0.0))
    return KLRTuning(best[0], best[1], alphas[best], loss, method, n_scored)


@dataclass(frozen=True)
class ConfidenceRegime:
    """How far from uniform the KLR's probabilities are on the unlabeled pool.

    Attributes
    ----------
    mean_max_proba : mean over the unlabeled points of the largest class probability.
    chance : 1/T.
    threshold : ``chance + NEAR_UNIFORM_FRACTION · (1 − chance)``.
    near_uniform : ``mean_max_proba < threshold``.
    """

    mean_max_proba: float
    chance: float
    threshold: float
    near_uniform: bool


def confidence_regime(P: np.ndarray) -> ConfidenceRegime:
    """The :class:`ConfidenceRegime` of class probabilities ``P`` (u, T) of unlabeled points."""
    P = np.asarray(P, dtype=np.float64)
    chance = 1.0 / P.shape[1]
    threshold = chance + NEAR_UNIFORM_FRACTION * (1.0 - chance)
    mean_max = float(P.max(axis=1).mean()) if P.shape[0] else 1.0
    return ConfidenceRegime(mean_max, chance, threshold, mean_max < threshold)
