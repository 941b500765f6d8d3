"""Kernel logistic regression (KLR): supervised on vector kernels, transductive on graph kernels.

Mathematics (docs/mathematics.md §6; Yajima & Sato, seed 004, eqs. 2.8, 3.19, 5.26). With the pool
values
``β = f(X)`` and the λ of docs/mathematics.md §1 the binary problem is

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
``max_iter`` steps they raise :class:`KLRConvergenceError`.

Scikit-learn terms for the transductive case: a graph kernel lives on the pool only, so
``fit(X_pool, y)`` takes the **whole pool** with unlabeled points marked in ``y`` (NaN for a
float ``y``, None for an object ``y``, or the value given as ``unlabeled``, e.g. ``-1`` in
scikit-learn's semi-supervised convention when −1 is not a class). ``transduction_`` holds the
predicted labels of the pool and ``predict(X_pool)`` / ``predict_proba(X_pool)`` accept only
that same pool. Vector kernels ignore unlabeled rows (they do not change the supervised
optimum; only the data-adaptive width ``sigma="median"`` reads them) and predict on any X.
``kernel="precomputed"`` takes the n × n training (or pool) kernel in ``fit`` and the
(m × n) kernel between new points and the training points in ``predict``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg
from scipy.special import expit, log_softmax, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.conventions.parameter_constraints import (
    Booleans,
    Interval,
    Options,
    Validated,
    check_parameters,
)
from rlscore.core.conventions.partial_labels import validate_partial_labels
from rlscore.core.kernels.functions import (
    GRAPH_ALIASES,
    GRAPH_KERNELS,
    VECTOR_KERNELS,
    graph_kernel,
    is_graph_kernel,
    kernel_matrix,
)
from rlscore.core.kernels.rbf_width import DEFAULT_SIGMA, check_width, fitted_sigma

__all__ = [
    "KLRConvergenceError",
    "KernelLogisticRegression",
    "fisher_blocks",
    "log_losses",
    "newton_graph",
    "newton_representer",
    "probabilities",
    "fisher_factor",
    "whitened_matrix",
]

#: the kernels the estimator takes: vector kernels, graph kernels on the pool, a precomputed one
KLR_KERNELS = (*VECTOR_KERNELS, *GRAPH_KERNELS, *GRAPH_ALIASES, "precomputed")
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


# -- the link and its Fisher information --------------------------------------------------------
# Every helper works on stacks: leading axes are independent problems (exact A-optimal scoring
# refits all candidates and labels at once).
def probabilities(F: np.ndarray) -> np.ndarray:
    """Class probabilities from decision values ``F`` (..., h').

    One column is the binary logistic model (``P(positive) = σ(f)``); two or more columns are
    the softmax model.
    """
    if F.shape[-1] == 1:
        return expit(F)
    return softmax(F, axis=-1)


def log_losses(F: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Negative log-likelihood of each row (binary: ``log(1 + e^f) − t f``), shape (...,).

    ``F`` are decision values (..., h'), ``T`` the 0/1 targets of the same shape.
    """
    if F.shape[-1] == 1:
        return np.logaddexp(0.0, F[..., 0]) - T[..., 0] * F[..., 0]
    return -(log_softmax(F, axis=-1) * T).sum(axis=-1)


def fisher_blocks(P: np.ndarray) -> np.ndarray:
    """Per-point Fisher blocks (..., h', h'): ``diag(p) − ppᵀ``, binary ``p(1 − p)``.

    The off-diagonal entries are ``−p^c p^k`` (docs/mathematics.md §6: Yajima eq. 5.28 prints
    ``+``).
    """
    if P.shape[-1] == 1:
        return (P * (1.0 - P))[..., None]
    h = P.shape[-1]
    F = -P[..., :, None] * P[..., None, :]
    F[..., np.arange(h), np.arange(h)] += P
    return F


def fisher_factor(P: np.ndarray) -> np.ndarray:
    """Factors ``R`` (..., h', h') with ``RRᵀ`` = the Fisher block of each point.

    Binary ``√(p(1 − p))``; softmax ``R = diag(√p) − p√pᵀ`` (``RRᵀ = diag(p) − ppᵀ`` because
    ``Σp = 1``). The softmax blocks are singular (rank h − 1): nothing here inverts them.
    """
    if P.shape[-1] == 1:
        return np.sqrt(np.maximum(P * (1.0 - P), 0.0))[..., None]
    r = np.sqrt(np.maximum(P, 0.0))
    R = -P[..., :, None] * r[..., None, :]
    h = P.shape[-1]
    R[..., np.arange(h), np.arange(h)] += r
    return R


def _blocks_times(R: np.ndarray, x: np.ndarray, transpose: bool = False) -> np.ndarray:
    """Apply the block-diagonal ``R`` (or ``Rᵀ``) to ``x`` (..., l, h')."""
    if transpose:
        R = np.swapaxes(R, -1, -2)
    return (R @ x[..., None])[..., 0]


def whitened_matrix(K_LL: np.ndarray, R: np.ndarray, lam: float) -> np.ndarray:
    """``W = λI + Rᵀ(K_LL⊗I)R`` (..., lh, lh) in point-major order, ``R = blockdiag(R_i)``.

    Entry ``[(i, a), (j, b)]`` of ``Rᵀ(K⊗I)R`` is ``K_ij (R_iᵀ R_j)_ab``. ``W`` is symmetric
    positive definite (≥ λI) however small the probabilities get.
    """
    l, h = R.shape[-3], R.shape[-1]
    lead = R.shape[:-3]
    left = np.swapaxes(R, -1, -2).reshape(*lead, l * h, h)  # rows (i, a): R_i[:, a]
    right = np.moveaxis(R, -2, -3).reshape(*lead, h, l * h)  # columns (j, b): R_j[:, b]
    W = (left @ right).reshape(*lead, l, h, l, h) * K_LL[..., :, None, :, None]
    W = W.reshape(*lead, l * h, l * h)
    W[..., np.arange(l * h), np.arange(l * h)] += lam
    return W


def _solve_jacobian(K_LL: np.ndarray, R: np.ndarray, lam: float, r: np.ndarray) -> np.ndarray:
    """Solve ``(λI + Z(I⊗K_LL)) x = r`` for ``x`` (..., l, h'), with ``Z = RRᵀ``.

    ``(λI + RRᵀK)⁻¹ = (I − R(λI + RᵀKR)⁻¹RᵀK) / λ``.
    """
    W = whitened_matrix(K_LL, R, lam)
    RtKr = _blocks_times(R, K_LL @ r, transpose=True)
    u = np.linalg.solve(W, RtKr.reshape(*RtKr.shape[:-2], -1, 1)).reshape(r.shape)
    return (r - _blocks_times(R, u)) / lam


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
            step = -_solve_jacobian(Ka, fisher_factor(P[act]), lam, ra)
        except np.linalg.LinAlgError as err:
            raise KLRConvergenceError(_singular("representer", it, lam)) from err
        # the gradient of the objective in α is K·resid; the step is a descent direction
        slope = np.sum((Ka @ ra) * step, axis=(-2, -1))
        t = np.ones(act.size)
        pending = np.ones(act.size, dtype=bool)
        while pending.any():
            p = np.flatnonzero(pending)
            if np.any(t[p] < _MIN_STEP):
                worst = float(grad[act[p]].max())
                raise KLRConvergenceError(_not_converged("representer", it, worst, lam, tol))
            trial = alpha[act[p]] + t[p, None, None] * step[p]
            J_trial = objective(trial, Ka[p], Ta[p])
            ok = _armijo_ok(J_trial, J[act[p]], t[p], slope[p]) | _flat_but_closer(
                J_trial, J[act[p]], lam * trial + probabilities(Ka[p] @ trial) - Ta[p], ra[p]
            )
            alpha[act[p[ok]]] = trial[ok]
            J[act[p[ok]]] = J_trial[ok]
            pending[p[ok]] = False
            t[p[~ok]] *= 0.5
    raise KLRConvergenceError(_not_converged("representer", max_iter, float(grad.max()), lam, tol))


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


# -- the estimator ------------------------------------------------------------------------------
class KernelLogisticRegression(ClassifierMixin, BaseEstimator):
    """Kernel logistic regression, binary (logistic) or multiclass (softmax),
    docs/mathematics.md §6.

    Minimises ``(λ/2)‖f‖²_K + Σ_labeled −log P(y_j | x_j)``; with a linear kernel this is
    scikit-learn's ``LogisticRegression(C=1/lam, fit_intercept=False)`` (multinomial for three
    or more classes).

    Parameters
    ----------
    lam : float
        Regularisation λ > 0.
    kernel : str
        ``"rbf"`` (default), ``"linear"``, ``"polynomial"``, ``"precomputed"``, or a graph
        kernel on the pool: ``"graph"`` (= ``"normalized_regularized"``, Yajima's
        ``(I + tL̃)⁻¹``), ``"regularized"``, ``"diffusion"``, ``"von_neumann"``.
    sigma : float or {"median", "scale"}
        RBF width σ (docs/mathematics.md §1), or a rule reading it off the rows passed to ``fit``
        (unlabeled
        rows included): ``"median"`` (default), the median distance between two points;
        ``"scale"``, scikit-learn's ``gamma="scale"`` (:mod:`rlscore.core.kernels.rbf_width`).
    degree : int
        Polynomial degree.
    graph_k, graph_t, graph_metric, graph_weights : the kNN graph and graph-kernel scale.
    graph_connect : bool — join the graph's connected components by their closest pairs
        (default; :func:`rlscore.core.kernels.functions.knn_graph`).
    solver : ``"auto"``, ``"representer"`` or ``"sparse"``
        ``"sparse"`` (the default for the two regularized graph kernels) runs Newton on the
        sparse ``λK⁻¹ + Z``; ``"representer"`` runs Newton in ``α`` on the labeled points.
    unlabeled : object or None
        Marker of unlabeled points in ``y`` (:mod:`rlscore.core.conventions.missing_labels`): None
        or NaN mean NaN (float y) or None/NaN (object y); e.g. ``-1`` for scikit-learn's convention.
    tol, max_iter : Newton stopping rule (largest gradient entry) and iteration cap.

    Attributes
    ----------
    classes_ : ndarray — sorted labels; for binary problems ``classes_[1]`` is the positive one.
    dual_coef_ : ndarray (l, h') — ``α`` of the labeled training points.
    labeled_ : ndarray — indices (into the rows passed to ``fit``) of the labeled points.
    transduction_ : ndarray — predicted labels of every row passed to ``fit``.
    n_iter_ : int — Newton steps taken.
    sigma_ : float or None — the RBF width used (None for the other kernels).
    """

    parameter_constraints = {
        "lam": (Interval(Real, 0, None, closed="neither"),),
        "kernel": (Options(*KLR_KERNELS),),
        "sigma": (Validated(check_width),),
        "degree": (Interval(Integral, 1, None),),
        "graph_k": (Interval(Integral, 1, None),),
        "graph_t": (Interval(Real, 0, None, closed="neither"), Options(None)),
        "graph_metric": (Options("euclidean", "cosine"),),
        "graph_weights": (Options("binary", "heat"),),
        "graph_connect": (Booleans(),),
        "solver": (Options("auto", "representer", "sparse"),),
        "tol": (Interval(Real, 0, None, closed="neither"),),
        "max_iter": (Interval(Integral, 1, None),),
    }

    def __init__(
        self,
        lam: float = 1.0,
        *,
        kernel: str = "rbf",
        sigma: float | str = DEFAULT_SIGMA,
        degree: int = 2,
        graph_k: int = 6,
        graph_t: float | None = None,
        graph_metric: str = "euclidean",
        graph_weights: str = "binary",
        graph_connect: bool = True,
        solver: str = "auto",
        unlabeled=None,
        tol: float = 1e-8,
        max_iter: int = 100,
    ):
        self.lam = lam
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.graph_k = graph_k
        self.graph_t = graph_t
        self.graph_metric = graph_metric
        self.graph_weights = graph_weights
        self.graph_connect = graph_connect
        self.solver = solver
        self.unlabeled = unlabeled
        self.tol = tol
        self.max_iter = max_iter

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X, y) -> KernelLogisticRegression:
        """Fit on ``X`` (samples, or the pool for graph kernels, or a kernel) and labels ``y``.

        Unlabeled rows (see ``unlabeled``) are allowed; graph kernels use them through the
        graph, the other kernels ignore them (but for the RBF width rule, ``sigma``).
        """
        check_parameters(self)
        lam, tol, kernel = float(self.lam), float(self.tol), self.kernel
        X, y, labeled = validate_partial_labels(self, X, y, self.unlabeled, dtype=np.float64)
        n = X.shape[0]
        if kernel == "precomputed" and X.shape != (n, n):
            raise ValueError(f"kernel='precomputed' needs a square n × n kernel, got {X.shape}")
        classes, codes = np.unique(y[labeled], return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"the labeled points have only one class ({classes[0]!r}): kernel logistic "
                "regression needs at least two classes"
            )
        T = ova_targets(codes, classes.size, negative=0.0)
        self.classes_ = classes
        self.labeled_ = labeled
        self.sigma_ = fitted_sigma(self.sigma, kernel, X)
        if is_graph_kernel(kernel):
            self._fit_graph(X, labeled, T, lam, tol)
        else:
            if kernel == "precomputed":
                K_LL = X[np.ix_(labeled, labeled)]
                self.X_fit_ = None
            else:
                self.X_fit_ = X[labeled]
                K_LL = self._vector_kernel(self.X_fit_, None)
            alpha, self.n_iter_ = newton_representer(
                K_LL, T, lam, tol=tol, max_iter=int(self.max_iter)
            )
            self.dual_coef_ = alpha
            self.pool_decision_ = None
            self.transduction_ = self.predict(X)
        return self

    def _fit_graph(self, X, labeled, T, lam, tol) -> None:
        gk = graph_kernel(
            X,
            kind=self.kernel,
            k=self.graph_k,
            metric=self.graph_metric,
            weights=self.graph_weights,
            t=self.graph_t,
            connect=self.graph_connect,
        )
        solver = self.solver
        if solver == "auto":
            solver = "sparse" if gk.K_inv is not None else "representer"
        if solver == "sparse":
            if gk.K_inv is None:
                raise ValueError(
                    f"solver='sparse' needs a sparse K⁻¹, which the {gk.kind!r} kernel lacks: "
                    "use solver='representer'"
                )
            beta, self.n_iter_ = newton_graph(
                gk.K_inv, labeled, T, lam, tol=tol, max_iter=int(self.max_iter)
            )
            # at the optimum λα = t − p on the labeled points (β = K_{:L} α)
            self.dual_coef_ = (T - probabilities(beta[labeled])) / lam
        else:
            K_LL = gk.K[np.ix_(labeled, labeled)]
            alpha, self.n_iter_ = newton_representer(
                K_LL, T, lam, tol=tol, max_iter=int(self.max_iter)
            )
            self.dual_coef_ = alpha
            beta = gk.K[:, labeled] @ alpha
        self.graph_kernel_ = gk
        self.X_fit_ = X
        self.pool_decision_ = beta
        self.transduction_ = self._labels_from(beta)

    def _vector_kernel(self, X, Z):
        return kernel_matrix(X, Z, kernel=self.kernel, sigma=self.sigma_, degree=self.degree)

    # -- prediction ----------------------------------------------------------------------------
    def _raw_decision(self, X) -> np.ndarray:
        check_is_fitted(self, "dual_coef_")
        # n_features_in_ is the pool's width, or the training rows of a precomputed kernel
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if is_graph_kernel(self.kernel):
            if X.shape != self.X_fit_.shape or not np.array_equal(X, self.X_fit_):
                raise ValueError(
                    f"the {self.kernel!r} graph kernel is transductive: it predicts only the pool "
                    "passed to fit (use transduction_, or refit on a pool including the new "
                    "points)"
                )
            return self.pool_decision_
        if self.kernel == "precomputed":
            return X[:, self.labeled_] @ self.dual_coef_
        return self._vector_kernel(X, self.X_fit_) @ self.dual_coef_

    def decision_function(self, X) -> np.ndarray:
        """Decision values: (n,) for binary (positive = ``classes_[1]``), (n, h) softmax logits."""
        F = self._raw_decision(X)
        return F[:, 0] if F.shape[1] == 1 else F

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (n, h), columns in ``classes_`` order."""
        P = probabilities(self._raw_decision(X))
        if P.shape[1] == 1:
            return np.column_stack([1.0 - P[:, 0], P[:, 0]])
        return P

    def predict(self, X) -> np.ndarray:
        """Most probable class of each row."""
        return self._labels_from(self._raw_decision(X))

    def _labels_from(self, F: np.ndarray) -> np.ndarray:
        if F.shape[1] == 1:
            return self.classes_[(F[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(F, axis=1)]
