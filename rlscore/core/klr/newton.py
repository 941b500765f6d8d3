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
  With features ``K_LL = φφᵀ`` of rank m < l the systems are solved by Woodbury on the m
  features (:class:`FeatureJacobian`), and :func:`newton_features` keeps their matrix for
  as many steps as it still contracts the gradient (a KLR refit after one more label).
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

__all__ = [
    "LAM_SAFE",
    "FeatureJacobian",
    "KLRConvergenceError",
    "newton_features",
    "newton_graph",
    "newton_representer",
]

#: Armijo constant and the smallest step of the backtracking line search
_ARMIJO = 1e-4
_MIN_STEP = 1e-10
#: :func:`newton_features` keeps Newton's matrix while a step shrinks the largest gradient entry
#: to this fraction or less
LAZY_CONTRACTION = 0.1
#: and else first updates the Fisher blocks of this many labels, those that moved most
LAZY_MOVED = 16
#: and, after steps with a kept matrix (linear convergence), stops at this fraction of ``tol``
LAZY_TIGHT = 1e-4


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


class FeatureJacobian:
    """Newton's matrix ``λI + Z(I⊗K_LL)`` for ``K_LL = φφᵀ`` (φ l × m, m < l) at the Fisher
    blocks ``Z`` (l, h, h), solved by Woodbury on the m features.

    With ``A = φ⊗I``, ``x = (r − Z A G⁻¹ Aᵀ r) / λ``, where ``G = λI + Σ_i Z_i ⊗ φ_iφ_iᵀ`` is
    taken off the softmax null vector (Z annihilates ``1``): an (h'm)² Cholesky (h' = h − 1, 1
    for binary), class-major, instead of the (lh)² LU of :func:`_solve_jacobian`. ``solve_G``
    solves with that reduced ``G``: :meth:`at` makes and factorises it (l·m²h'²·3/4 +
    (h'm)³/3 multiply-adds), :meth:`extended` adds new labels to a ``G`` already solvable and
    :meth:`updated` moves the blocks of a few labels, both by Woodbury (O((h'm)²) per label).
    """

    def __init__(self, phi: np.ndarray, Z: np.ndarray, lam: float, solve_G):
        self.phi, self.Z, self.lam, self.solve_G = phi, Z, lam, solve_G
        self.Qp = null_free_basis(Z.shape[-1])

    @classmethod
    def at(cls, phi: np.ndarray, P: np.ndarray, lam: float) -> FeatureJacobian:
        """The matrix at the labels' probabilities ``P`` (l, h)."""
        Z = fisher_blocks(P)
        Qp = null_free_basis(P.shape[-1])
        chol = scipy.linalg.cho_factor(feature_precision(phi, Qp.T @ Z @ Qp, lam), lower=True)
        return cls(phi, Z, lam, lambda b: scipy.linalg.cho_solve(chol, b, check_finite=False))

    @classmethod
    def extended(cls, phi, Z_old: np.ndarray, solve_old, P_new: np.ndarray, lam):
        """The matrix of the labels of a reduced ``G`` already solvable, followed by new ones.

        ``solve_old`` solves with the reduced ``G`` of the first ``len(Z_old)`` rows of ``phi``
        at Fisher blocks ``Z_old`` (e.g. a product with its inverse, a posterior covariance);
        the last ``len(P_new)`` rows are new labels with probabilities ``P_new``. Their terms
        ``Q'ᵀZ_iQ' ⊗ φ_iφ_iᵀ = W_iW_iᵀ`` (h' columns each) come in by Woodbury, ``(G + WWᵀ)⁻¹ =
        G⁻¹ − G⁻¹W(I + WᵀG⁻¹W)⁻¹WᵀG⁻¹``: O((h'm)²·h'b) for b new labels instead of making
        ``G`` again.
        """
        Z_new = fisher_blocks(P_new)
        Qp = null_free_basis(P_new.shape[-1])
        g, m, b = Qp.shape[1], phi.shape[1], Z_new.shape[0]
        w, V = np.linalg.eigh(Qp.T @ Z_new @ Qp)
        R = V * np.sqrt(np.maximum(w, 0.0))[:, None, :]  # Q'ᵀZ_iQ' = R_iR_iᵀ, (b, g, g)
        W = np.einsum("iar,im->amir", R, phi[phi.shape[0] - b :]).reshape(g * m, b * g)
        X = solve_old(W)
        cap = scipy.linalg.cho_factor(np.eye(b * g) + W.T @ X, lower=True)

        def solve_G(rhs):
            z = solve_old(rhs)
            return z - X @ scipy.linalg.cho_solve(cap, W.T @ z)

        return cls(phi, np.concatenate([Z_old, Z_new]), lam, solve_G)

    def updated(self, P: np.ndarray, count: int) -> FeatureJacobian:
        """This matrix with the Fisher blocks of the ``count`` labels whose terms moved most
        (``‖Q'ᵀΔZ_iQ'‖·‖φ_i‖²``) set to those at ``P``, the others kept: a Woodbury update of
        rank ≤ h'·count, ``G + WSWᵀ`` with S the signs of the moves' eigenvalues."""
        Z = fisher_blocks(P)
        Qp, phi = self.Qp, self.phi
        g, m = Qp.shape[1], phi.shape[1]
        moved = Qp.T @ (Z - self.Z) @ Qp
        size = np.abs(moved).max(axis=(1, 2)) * np.einsum("im,im->i", phi, phi)
        top = np.argpartition(size, -count)[-count:] if count < size.size else np.arange(size.size)
        e, V = np.linalg.eigh(moved[top])
        R = V * np.sqrt(np.abs(e))[:, None, :]
        W = np.einsum("iar,im->amir", R, phi[top]).reshape(g * m, top.size * g)
        signs = np.sign(e).reshape(-1)
        W, signs = W[:, signs != 0], signs[signs != 0]  # a block that did not move adds nothing
        X = self.solve_G(W)
        cap = scipy.linalg.lu_factor(np.diag(signs) + W.T @ X)
        old = self.solve_G

        def solve_G(rhs):
            z = old(rhs)
            return z - X @ scipy.linalg.lu_solve(cap, W.T @ z)

        Z_new = self.Z.copy()
        Z_new[top] = Z[top]
        return FeatureJacobian(phi, Z_new, self.lam, solve_G)

    def solve(self, r: np.ndarray) -> np.ndarray:
        """``x`` (l, h) with ``(λI + Z(I⊗φφᵀ)) x = r``."""
        phi, Qp = self.phi, self.Qp
        g, m = Qp.shape[1], phi.shape[1]
        rhs = (Qp.T @ (r.T @ phi)).reshape(g * m)  # class-major, as G; (rᵀφ)ᵀ = φᵀr
        y = self.solve_G(rhs).reshape(g, m)
        Ay = phi @ (y.T @ Qp.T)  # (l, h)
        return (r - (self.Z @ Ay[..., None])[..., 0]) / self.lam


def _representer_objective(lam: float):
    """The objective ``(λ/2)αᵀKα + Σ log-losses`` of stacked problems (..., l, h)."""

    def objective(a, Kb, Tb):
        F = Kb @ a
        return 0.5 * lam * np.sum(a * F, axis=(-2, -1)) + log_losses(F, Tb).sum(axis=-1)

    return objective


def _non_finite(lam: float) -> str:
    return (
        f"kernel logistic regression produced non-finite values with lam={lam:g}: "
        f"check the kernel matrix for NaN, or raise lam (typical {LAM_SAFE:g} to 10)"
    )


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
        solved by Woodbury on the m features (:class:`FeatureJacobian`), the same
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

    objective = _representer_objective(lam)
    on_features = single and features is not None and features.shape[1] < K.shape[-1]
    J = objective(alpha, K, T)
    grad = np.zeros(T.shape[0])
    for it in range(max_iter + 1):
        P = probabilities(K @ alpha)
        resid = lam * alpha + P - T
        grad = np.abs(resid).max(axis=(-2, -1), initial=0.0)
        if not np.all(np.isfinite(grad)):
            raise KLRConvergenceError(_non_finite(lam))
        act = np.flatnonzero(grad > tol)
        if act.size == 0:
            return (alpha[0] if single else alpha), it
        if it == max_iter:
            break
        Ka, Ta, ra = K[act], T[act], resid[act]
        try:
            if on_features:
                step = -FeatureJacobian.at(features, P[0], lam).solve(ra[0])[None]
            else:
                step = -_solve_jacobian(Ka, fisher_factor(P[act]), lam, ra)
        except np.linalg.LinAlgError as err:
            raise KLRConvergenceError(_singular("representer", it, lam)) from err
        stuck = _backtrack_stack(objective, alpha, J, act, step, Ka, Ta, ra, lam)
        if stuck is not None:
            worst = float(grad[act[stuck]].max())
            raise KLRConvergenceError(_not_converged("representer", it, worst, lam, tol))
    raise KLRConvergenceError(_not_converged("representer", max_iter, float(grad.max()), lam, tol))


def newton_features(
    K_LL: np.ndarray,
    phi: np.ndarray,
    T: np.ndarray,
    lam: float,
    *,
    alpha0: np.ndarray | None = None,
    tol: float = 1e-8,
    max_iter: int = 100,
    jacobian: FeatureJacobian | None = None,
) -> tuple[np.ndarray, int]:
    """:func:`newton_representer` for one problem with ``K_LL = φφᵀ`` (φ l × m, m < l), keeping
    Newton's matrix while it still serves (a lazy Newton).

    Making the matrix (:meth:`FeatureJacobian.at`: l·m²h'² multiply-adds and an (h'm)³
    factorisation, 45 ms at l = 1000, m = 500, three classes) is most of a Newton step on the
    features; a step ``−J₀⁻¹r`` with the matrix ``J₀`` of an earlier point costs products with
    φ and ``K_LL`` and a solve with a factor (about 3 ms). So the matrix is kept while each step
    shrinks the largest gradient entry by ``LAZY_CONTRACTION`` or more; after a step that does
    not, the blocks of the ``LAZY_MOVED`` labels that moved most are brought to the current
    point (:meth:`FeatureJacobian.updated`, 3 ms: after a label is taught the change of the
    blocks is concentrated on a few labels near it, and the next steps contract as fast as
    with the whole matrix made again), and after a slow step with a just-updated matrix the
    matrix is made again at the current point. Every step is line-searched on the objective
    as Newton's are (``−J₀⁻¹r`` is a descent direction: ``K J₀⁻¹ = (λK⁻¹ + Z₀)⁻¹`` is positive
    semidefinite); a step with a kept matrix that the line search cannot accept (rounding)
    makes the matrix again rather than failing. ``jacobian`` is the matrix to begin with (e.g.
    the last model's posterior :meth:`FeatureJacobian.extended` by a new label: the matrix at
    the warm start itself), else it is made at ``alpha0``.

    The optimum is Newton's. Kept matrices converge linearly, not quadratically, so the run
    stops at ``tol`` only after a step with a matrix made at its point, and otherwise goes on to
    ``LAZY_TIGHT · tol``: the solution is then at least as close to the optimum as a Newton run
    that stops at ``tol``. Returns ``α`` (l, h) and the number of steps; raises
    :class:`KLRConvergenceError` as Newton does.
    """
    K = np.asarray(K_LL, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    alpha = np.zeros(T.shape) if alpha0 is None else np.array(alpha0, dtype=np.float64)
    F = _times(K, alpha)
    J = _single_objective(lam, alpha, F, T)
    fresh, updated, last, grad = False, False, np.inf, np.inf
    for it in range(max_iter + 1):
        P = probabilities(F)
        resid = lam * alpha + P - T
        grad = float(np.abs(resid).max(initial=0.0))
        if not np.isfinite(grad):
            raise KLRConvergenceError(_non_finite(lam))
        if grad <= tol and (fresh or grad <= LAZY_TIGHT * tol):
            return alpha, it
        if it == max_iter:
            break
        slow = grad > LAZY_CONTRACTION * last
        fresh = jacobian is None or (slow and updated)
        updated = slow and not fresh
        try:
            if fresh:
                jacobian = FeatureJacobian.at(phi, P, lam)
            elif updated:
                jacobian = jacobian.updated(P, LAZY_MOVED)
            step = -jacobian.solve(resid)
        except np.linalg.LinAlgError as err:
            raise KLRConvergenceError(_singular("representer", it, lam)) from err
        finite = bool(np.all(np.isfinite(step)))
        found = _single_line_search(K, T, lam, alpha, F, J, step, resid) if finite else None
        if found is None and not fresh:  # a kept matrix gave no descent: make it here
            jacobian, last = None, np.inf
            continue
        if found is None:
            raise KLRConvergenceError(_not_converged("representer", it, grad, lam, tol))
        alpha, F, J = found  # F = Kα carried along: K(α + t·step) = F + t·K·step
        last = grad
    raise KLRConvergenceError(_not_converged("representer", max_iter, grad, lam, tol))


def _times(K: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``K x`` for a symmetric K and a few columns x, as ``(xᵀK)ᵀ``: one-thread OpenBLAS takes
    half the time for that product as for ``K @ x`` (l = 1000, three columns: 0.6 ms, 1.2)."""
    return (x.T @ K).T


def _single_objective(lam: float, a: np.ndarray, F: np.ndarray, T: np.ndarray) -> float:
    """The objective of one problem at ``α`` with ``F = K α`` given."""
    return 0.5 * lam * float(np.sum(a * F)) + float(log_losses(F, T).sum())


def _single_line_search(K, T, lam, alpha, F, J, step, resid):
    """:func:`_backtrack_stack` for one problem with ``F = Kα`` given: one product ``K·step``
    serves the slope and every trial (``K(α + t·step) = F + t·K·step``). Returns the accepted
    ``(α, Kα, J)``, or None when the step fell below the smallest one."""
    Ks = _times(K, step)
    slope = float(np.sum(resid * Ks))  # the gradient K·resid against the step (K symmetric)
    t = 1.0
    while t >= _MIN_STEP:
        trial, F_trial = alpha + t * step, F + t * Ks
        J_trial = _single_objective(lam, trial, F_trial, T)
        if _armijo_ok(J_trial, J, t, slope) or _flat_but_closer(
            J_trial, J, lam * trial + probabilities(F_trial) - T, resid
        ):
            return trial, F_trial, J_trial
        t *= 0.5
    return None


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
