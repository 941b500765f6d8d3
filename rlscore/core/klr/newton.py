"""Newton's method for kernel logistic regression (docs/mathematics.md §6; Yajima & Sato, seed
004, eqs. 2.8, 3.19, 5.26). With the pool values ``β = f(X)`` and the λ of
docs/mathematics.md §1 the binary problem is

    min_β (λ/2) βᵀK⁻¹β + Σ_{j∈L} log(1 + exp(−y_j β_j)),

and the multiclass (softmax, h classes) problem sums the penalty over the h columns of β and
uses the cross-entropy loss. Two Newton solvers give the same optimum:

* **representer** (any kernel, no n × n inverse): ``β = K_{:L} α``. The optimality condition
  is ``λα + p(K_LL α) − t = 0`` (t the 0/1 targets), solved by Newton with the Jacobian
  ``λI + Z(I⊗K_LL)``, ``Z`` the per-point Fisher blocks ``diag(p) − ppᵀ`` (binary:
  ``p(1 − p)``). With ``Z = RRᵀ`` (``R`` the block square roots) the step only needs a
  solve with the symmetric positive definite ``λI + Rᵀ(K_LL⊗I)R`` (≥ λI, so well posed
  however saturated the probabilities; the singular softmax blocks are never inverted).
* **sparse** (the two regularized graph kernels, whose ``K⁻¹ = I + tL`` is sparse): Newton on
  all pool values β with the sparse Hessian ``λ(I_h⊗K⁻¹) + Z`` (a sparse LU solve per step).

Both use a backtracking line search on the (convex) objective and stop when the largest
entry of the gradient (in probability units) is below ``tol``; if that does not happen in
``max_iter`` steps they raise :class:`KLRConvergenceError`. The link and its Fisher blocks:
:mod:`rlscore.core.klr.link`.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg

from rlscore.core.klr.link import (
    fisher_blocks,
    fisher_factor,
    log_losses,
    probabilities,
    whitened_matrix,
)
from rlscore.core.klr.posterior import feature_precision, null_free_basis

__all__ = ["LAM_SAFE", "KLRConvergenceError", "newton_graph", "newton_representer"]

#: Armijo constant and the smallest step of the backtracking line search
_ARMIJO = 1e-4
_MIN_STEP = 1e-10


#: the λ the error messages recommend as the lower end of the usable range. Measured
#: 2026-11-23 on the bundled samples two_moons (220 points), spheres (1200) and circles (2020)
#: for λ = 10⁰ … 10⁻¹⁶, default tol and max_iter, with the linear, RBF (the sample's σ) and
#: graph kernels: 12 A-optimal queries (fast mode) converged for every kernel down to λ = 1e-6
#: (first failure: linear at 1e-7 on spheres, 1e-8 on circles); fits on the fully labeled
#: pools converged at λ ≥ 1e-4 except the linear kernel on spheres (1200 labels on a rank-2
#: kernel: rounding stalls Newton at a gradient of 4e-8 for λ ≤ 1e-3). RBF fits fail only at
#: λ ≤ 1e-14, graph-kernel fits never did. 1e-4 is the smallest power of ten at which all
#: but that one case converged (and the app's slider minimum).
LAM_SAFE = 1e-4
#: largest gradient entry (probability units) below which a failed Newton is a rounding stall
#: (the fit is essentially there) rather than decision values running off to infinity
_STALL_GRAD = 1e-4


class KLRConvergenceError(ValueError, RuntimeError):
    """Newton's method for kernel logistic regression did not converge.

    A ``ValueError`` (the cause is a setting, λ, that the user can change) and, for code that
    caught it before, a ``RuntimeError``.
    """


def _blocks_times(R: np.ndarray, x: np.ndarray, transpose: bool = False) -> np.ndarray:
    """Apply the block-diagonal ``R`` (or ``Rᵀ``) to ``x`` (..., l, h')."""
    if transpose:
        R = np.swapaxes(R, -1, -2)
    return (R @ x[..., None])[..., 0]


def _solve_jacobian(K_LL: np.ndarray, R: np.ndarray, lam: float, r: np.ndarray) -> np.ndarray:
    """Solve ``(λI + Z(I⊗K_LL)) x = r`` for ``x`` (..., l, h'), with ``Z = RRᵀ``.

    ``(λI + RRᵀK)⁻¹ = (I − R(λI + RᵀKR)⁻¹RᵀK) / λ``.
    """
    W = whitened_matrix(K_LL, R, lam)
    RtKr = _blocks_times(R, K_LL @ r, transpose=True)
    u = np.linalg.solve(W, RtKr.reshape(*RtKr.shape[:-2], -1, 1)).reshape(r.shape)
    return (r - _blocks_times(R, u)) / lam


def _solve_jacobian_features(phi: np.ndarray, P: np.ndarray, lam: float, r: np.ndarray):
    """Solve ``(λI + Z(I⊗K_LL)) x = r`` (l, h) when ``K_LL = φφᵀ`` with φ (l, m), m < l.

    Woodbury on the features: with ``A = φ⊗I``, ``x = (r − Z A (λI + AᵀZA)⁻¹ Aᵀ r) / λ``,
    and ``AᵀZA = Σ_i Z_i ⊗ φ_iφ_iᵀ`` is taken off the softmax null vector (Z annihilates
    ``1``): an (h'm)² Cholesky (h' = h − 1, 1 for binary) instead of the (lh)² LU of
    :func:`_solve_jacobian`. The same step up to rounding.
    """
    Z = fisher_blocks(P)
    Qp = null_free_basis(P.shape[-1])
    g, m = Qp.shape[1], phi.shape[1]
    G = feature_precision(phi, Qp.T @ Z @ Qp, lam)
    rhs = ((phi.T @ r) @ Qp).T.reshape(g * m)  # class-major, as G
    y = scipy.linalg.cho_solve(scipy.linalg.cho_factor(G, lower=True), rhs).reshape(g, m)
    Ay = phi @ (y.T @ Qp.T)  # (l, h)
    return (r - (Z @ Ay[..., None])[..., 0]) / lam


def _not_converged(method: str, n_iter: int, grad: float, lam: float, tol: float) -> str:
    """The message of :class:`KLRConvergenceError`: names ``lam`` and its usable range."""
    if np.isfinite(grad) and grad <= _STALL_GRAD:
        cause = (
            f"it stalled at a largest gradient entry of {grad:.3g} > tol {tol:.3g}, the "
            "rounding limit of a Newton system this ill-conditioned (small lam, e.g. a "
            "low-rank linear kernel on many labels)"
        )
        fix = f"raise lam (KernelLogisticRegression also accepts tol >= {_ceil_power(grad):g})"
    else:
        cause = (
            f"largest gradient entry {grad:.3g} > tol {tol:.3g}; separable labels drive the "
            "decision values to infinity as lam shrinks"
        )
        fix = "raise lam"
    return (
        f"lam={lam:g} is too small for kernel logistic regression: {method} Newton did not "
        f"converge in {n_iter} iterations ({cause}). Use lam >= {LAM_SAFE:g} (typical "
        f"{LAM_SAFE:g} to 10); {fix}."
    )


def _ceil_power(x: float) -> float:
    """The smallest power of ten ≥ ``x`` (> 0)."""
    return float(10.0 ** np.ceil(np.log10(x)))


def _singular(method: str, n_iter: int, lam: float) -> str:
    return (
        f"lam={lam:g} is too small for kernel logistic regression: the {method} Newton system "
        f"became numerically singular after {n_iter} iterations (lam is lost in rounding "
        f"beside the kernel). Use lam >= {LAM_SAFE:g} (typical {LAM_SAFE:g} to 10)."
    )


def _flat_but_closer(J_new, J0, resid_new, resid):
    """Accept a step the objective cannot judge: ``J`` unchanged to rounding while the
    residual ``λα + p − t`` halves.

    With a singular kernel (e.g. linear on few features) part of ``α`` lies in the kernel's
    null space, where ``J`` is flat: Newton removes that part of the residual in one step, but
    Armijo sees only rounding noise in ``J`` and would stall (the fit itself is unaffected,
    as predictions depend on ``Kα`` only).
    """
    flat = np.abs(J_new - J0) <= 1e-9 * np.maximum(1.0, np.abs(J0))
    smaller = np.abs(resid_new).max(axis=(-2, -1)) <= 0.5 * np.abs(resid).max(axis=(-2, -1))
    return flat & smaller


def _armijo_ok(J_new, J0, t, slope):
    # the tolerance on J admits steps at the optimum, where J is flat to rounding
    return J_new <= J0 + _ARMIJO * t * slope + 1e-13 * np.maximum(1.0, np.abs(J0))


def _line_search(objective, x, step, slope, J0):
    """Backtracking (Armijo) on a convex objective; returns the new point and value, or None."""
    t = 1.0
    while t >= _MIN_STEP:
        x_new = x + t * step
        J_new = objective(x_new)
        if _armijo_ok(J_new, J0, t, slope):
            return x_new, J_new
        t *= 0.5
    return None, J0


def newton_representer(
    K_LL: np.ndarray,
    T: np.ndarray,
    lam: float,
    *,
    alpha0: np.ndarray | None = None,
    tol: float = 1e-8,
    max_iter: int = 100,
    features: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """KLR coefficients ``α`` (l, h') with ``β = K_{:L} α``, by Newton in α.

    Parameters
    ----------
    K_LL
        Kernel among the labeled points (positive semidefinite; may be singular), (l, l), or a
        stack (B, l, l) of independent problems.
    T
        0/1 targets (l, 1) for binary (1 = positive class) or one-hot (l, h) for softmax;
        (B, l, h') for a stack.
    lam
        Regularisation λ (docs/mathematics.md §6).
    alpha0
        Warm start (zeros by default), shaped like ``T``.
    features
        φ (l, m) with ``K_LL = φφᵀ`` (a single problem): when m < l the Newton systems are
        solved by Woodbury on the m features (:func:`_solve_jacobian_features`), the same
        steps at O(l·m²h'² + (h'm)³) instead of O((lh')³).

    Returns
    -------
    alpha, n_iter
        At the optimum ``λα = t − p``; ``n_iter`` is the largest number of Newton steps taken.
    """
    K = np.asarray(K_LL, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    single = K.ndim == 2
    if single:
        K, T = K[None], T[None]
    alpha = np.zeros(T.shape) if alpha0 is None else np.array(alpha0, dtype=np.float64)
    if single and alpha0 is not None:
        alpha = alpha[None]

    def objective(a, Kb, Tb):
        F = Kb @ a
        return 0.5 * lam * np.sum(a * F, axis=(-2, -1)) + log_losses(F, Tb).sum(axis=-1)

    on_features = single and features is not None and features.shape[1] < K.shape[-1]
    J = objective(alpha, K, T)
    grad = np.zeros(T.shape[0])
    for it in range(max_iter + 1):
        P = probabilities(K @ alpha)
        resid = lam * alpha + P - T
        grad = np.abs(resid).max(axis=(-2, -1), initial=0.0)
        if not np.all(np.isfinite(grad)):
            raise KLRConvergenceError(
                f"kernel logistic regression produced non-finite values with lam={lam:g}: "
                f"check the kernel matrix for NaN, or raise lam (typical {LAM_SAFE:g} to 10)"
            )
        act = np.flatnonzero(grad > tol)
        if act.size == 0:
            return (alpha[0] if single else alpha), it
        if it == max_iter:
            break
        Ka, Ta, ra = K[act], T[act], resid[act]
        try:
            if on_features:
                step = -_solve_jacobian_features(features, P[0], lam, ra[0])[None]
            else:
                step = -_solve_jacobian(Ka, fisher_factor(P[act]), lam, ra)
        except np.linalg.LinAlgError as err:
            raise KLRConvergenceError(_singular("representer", it, lam)) from err
        stuck = _backtrack_stack(objective, alpha, J, act, step, Ka, Ta, ra, lam)
        if stuck is not None:
            worst = float(grad[act[stuck]].max())
            raise KLRConvergenceError(_not_converged("representer", it, worst, lam, tol))
    raise KLRConvergenceError(_not_converged("representer", max_iter, float(grad.max()), lam, tol))


def _backtrack_stack(objective, alpha, J, act, step, K, T, resid, lam) -> np.ndarray | None:
    """Backtracking line search of the stacked problems ``act`` at once, in place.

    Each problem halves its own step until Armijo (or :func:`_flat_but_closer`) accepts it;
    ``alpha[act]`` and ``J[act]`` take the accepted points. ``K``, ``T``, ``resid`` and ``step``
    are those of the ``act`` problems. Returns None, or the positions (into ``act``) of the
    problems whose step fell below the smallest one without being accepted.
    """
    # the gradient of the objective in α is K·resid; the step is a descent direction
    slope = np.sum((K @ resid) * step, axis=(-2, -1))
    t = np.ones(act.size)
    pending = np.ones(act.size, dtype=bool)
    while pending.any():
        p = np.flatnonzero(pending)
        if np.any(t[p] < _MIN_STEP):
            return p
        trial = alpha[act[p]] + t[p, None, None] * step[p]
        J_trial = objective(trial, K[p], T[p])
        ok = _armijo_ok(J_trial, J[act[p]], t[p], slope[p]) | _flat_but_closer(
            J_trial, J[act[p]], lam * trial + probabilities(K[p] @ trial) - T[p], resid[p]
        )
        alpha[act[p[ok]]] = trial[ok]
        J[act[p[ok]]] = J_trial[ok]
        pending[p[ok]] = False
        t[p[~ok]] *= 0.5
    return None


def newton_graph(
    K_inv: sp.spmatrix,
    labeled: np.ndarray,
    T: np.ndarray,
    lam: float,
    *,
    beta0: np.ndarray | None = None,
    tol: float = 1e-8,
    max_iter: int = 100,
) -> tuple[np.ndarray, int]:
    """Transductive KLR over the pool with a sparse ``K⁻¹`` (Yajima eqs. 3.19, 5.26).

    Newton on β (M, h') with the sparse Hessian ``λ(I_h⊗K⁻¹) + Z_L`` in class-major order.

    Parameters
    ----------
    K_inv
        Sparse inverse kernel over the pool (M × M), e.g. ``I + tL̃``.
    labeled
        Pool indices of the labeled points (distinct).
    T
        0/1 targets of the labeled points, (l, 1) binary or (l, h) one-hot.

    Returns
    -------
    beta, n_iter
        Pool decision values at the optimum and the number of Newton steps.
    """
    M = K_inv.shape[0]
    h = T.shape[1]
    labeled = np.asarray(labeled, dtype=np.int64)
    K_inv = sp.csr_matrix(K_inv, dtype=np.float64)
    beta = np.zeros((M, h)) if beta0 is None else np.array(beta0, dtype=np.float64)
    penalty = sp.kron(sp.identity(h, format="csr"), lam * K_inv, format="csr")
    # coordinates of the Fisher blocks of the labeled points, class-major
    a_idx, b_idx = np.meshgrid(np.arange(h), np.arange(h), indexing="ij")
    rows = (a_idx[None] * M + labeled[:, None, None]).ravel()
    cols = (b_idx[None] * M + labeled[:, None, None]).ravel()

    def objective(b):
        pen = 0.5 * lam * float(np.sum(b * (K_inv @ b)))
        return pen + float(log_losses(b[labeled], T).sum())

    J = objective(beta)
    grad = np.inf
    for it in range(max_iter + 1):
        P = probabilities(beta[labeled])
        g = lam * (K_inv @ beta)
        g[labeled] += P - T
        grad = float(np.max(np.abs(g)))
        if not np.isfinite(grad):
            raise KLRConvergenceError(
                f"kernel logistic regression produced non-finite values with lam={lam:g}: "
                f"raise lam (typical {LAM_SAFE:g} to 10)"
            )
        if grad <= tol:
            return beta, it
        if it == max_iter:
            break
        Z = sp.csr_matrix((fisher_blocks(P).ravel(), (rows, cols)), shape=(M * h, M * h))
        H = (penalty + Z).tocsc()
        step = -scipy.sparse.linalg.spsolve(H, g.T.ravel()).reshape(h, M).T
        if not np.all(np.isfinite(step)):  # spsolve warns and returns NaN when H is singular
            raise KLRConvergenceError(_singular("sparse graph", it, lam))
        slope = float(np.sum(g * step))
        beta_new, J = _line_search(objective, beta, step, slope, J)
        if beta_new is None:
            raise KLRConvergenceError(_not_converged("sparse graph", it, grad, lam, tol))
        beta = beta_new
    raise KLRConvergenceError(_not_converged("sparse graph", max_iter, grad, lam, tol))
