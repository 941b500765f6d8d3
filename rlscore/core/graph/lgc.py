"""Local and Global Consistency (LGC) label spreading: classification and ranking on a graph,
the mathematics (the estimator: :mod:`rlscore.core.graph.lgc_classifier`).

Mathematics (docs/mathematics.md §8; Sheng, seed 001, §3.2, after Zhou et al. 2004). With a
symmetric
affinity ``W ≥ 0`` over the pool, degrees ``D = diag(W·1)`` and the initial label matrix
``Y`` (n × c),

* ``S = D⁻¹W`` (``normalization="random_walk"``, Sheng eq. 3.5 / Algorithm 4 and
  docs/mathematics.md §8) or
  ``S = D^{-1/2} W D^{-1/2}`` (``"symmetric"``, Zhou's original and scikit-learn's
  ``LabelSpreading``; Sheng §3.2.2 discusses and rejects it for ranking because the rows of
  ``F*`` then no longer sum to one);
* the propagation ``F(t+1) = αSF(t) + (1 − α)Y`` from ``F(0) = Y`` (Sheng eq. 3.2) converges to
  ``F* = (1 − α)(I − αS)⁻¹Y`` (Sheng eq. 3.5) for ``0 < α < 1``;
* classification takes each row's argmax, ranking sorts one column (Sheng Algorithm 4).

``Y`` holds one-hot rows for labeled points; unlabeled rows are ``1/c`` (``"uniform"``, Sheng
§3.2.1 and docs/mathematics.md §8) or ``0`` (``"zeros"``, Zhou's and scikit-learn's choice). The two
differ
by the same vector added to every column of ``F*`` (``(1 − α)(I − αS)⁻¹ 1_U / c``), so the
row argmax — the classification — is the same; rankings by one column are not.

**Sparse solves.** Both normalizations reduce to one symmetric positive definite system with
``A = I − α D^{-1/2} W D^{-1/2}``, whose eigenvalues lie in ``[1 − α, 1 + α]``, so conjugate
gradients converge in ``O(√((1 + α)/(1 − α)) · log(1/tol))`` sparse products whatever n is
(``solver="cg"``, the default; ``"direct"`` uses a sparse LU). For the random-walk form
``I − αD⁻¹W = D^{-1/2} A D^{1/2}``. No dense inverse is ever formed: with n = 100 000 and
k = 10 neighbours the solve takes well under a second even at α = 0.99; building the kNN graph
dominates (``benchmarks/reproduce_sheng.py``).

**Precision for small α.** Ranking uses α ≈ 0.001 (docs/mathematics.md §8), where ``F*`` is
``(1 − α)Y``
plus differences of order α. We therefore solve for ``H = S(I − αS)⁻¹Y`` (``(I − αS)H = SY``)
and form ``F* = (1 − α)(Y + αH)`` (because ``(I − αS)⁻¹ = I + αS(I − αS)⁻¹``): the order of
two points with the same initial row is the order of ``H``, which keeps one more order of α.
Points m hops from every label still differ by about α^m, below double precision beyond a
few hops at α = 0.001; for the one-class ranking of Graph-OCL, :func:`one_class_log_scores`
sums the series ``Σ α^k S^k 1_L`` in the scale of each point and orders every point exactly.

**Disconnected graphs.** The system is block diagonal over the connected components, so each
component is solved on its own. In a component without a labeled point every column of ``Y``
is the same, hence every column of ``F*``: each row is a tie — ``1/c`` exactly with
``S = D⁻¹W`` and uniform rows (``S1 = 1``), ``0`` with zeros (with the symmetric ``S`` and
uniform rows the common value varies with the degree).
:class:`~rlscore.core.graph.lgc_classifier.LGCClassifier` flags those points in
``unreached_``, warns, and labels them ``classes_[0]`` by convention (as scikit-learn's argmax
does); in a ranking they sit together at the initial value (for
Graph-OCL: at the bottom, the first reliable negatives). An isolated point (degree 0, only
possible with a precomputed ``W``) has ``S``-row 0 and ``F*`` row ``(1 − α)Y_i``.

**The α bound** (Sheng §3.4.3, eq. 3.37): :func:`sheng_alpha_bound`. With ``S = D⁻¹W`` (or the
symmetric form) every entry of ``S`` lies in [0, 1], so the second term of eq. 3.37 is at least
0.01 and the bound is always 0.005 — the value the thesis reports for every data set. It is an
approximation argument, not a guarantee: ``tests/test_lgc.py`` shows a graph whose pairwise
ranking changes between two α below 0.005, and tests the sufficient condition that does hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg
from scipy.sparse.csgraph import connected_components

from rlscore.core.conventions.input_validation import check_matrix

__all__ = [
    "NORMALIZATIONS",
    "SOLVERS",
    "UNLABELED_INITS",
    "LGCSolution",
    "initial_labels",
    "lgc_propagate",
    "lgc_solve",
    "one_class_log_scores",
    "propagation_matrix",
    "sheng_alpha_bound",
]

#: an affinity matrix: dense or scipy.sparse, (n, n), symmetric, non-negative
Affinity = np.ndarray | sp.spmatrix | sp.sparray

NORMALIZATIONS = ("random_walk", "symmetric")
UNLABELED_INITS = ("uniform", "zeros")
SOLVERS = ("cg", "direct")


# -- validation ---------------------------------------------------------------------------------
def check_alpha(alpha: float) -> float:
    """Return α as a float in the open interval (0, 1), or raise ``ValueError``."""
    if isinstance(alpha, bool) or not isinstance(alpha, Real | np.number):
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    a = float(alpha)
    if not (0.0 < a < 1.0):
        raise ValueError(
            f"alpha must lie strictly between 0 and 1 (Sheng eq. 3.2), got {alpha!r}; "
            "use a small alpha (≈ 0.001) to rank, 0.1–0.99 to classify"
        )
    return a


def _check_choice(value, name: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_affinity(W: Affinity) -> sp.csr_matrix:
    """Return ``W`` as a symmetric, non-negative, finite (n, n) CSR matrix, or raise."""
    if sp.issparse(W):
        W = sp.csr_matrix(W, dtype=np.float64)
        # rebuilt from its arrays, scipy takes 32-bit indices where they fit: the graph
        # routines of scipy 1.11 (our floor: connected_components) refuse 64-bit ones
        W = sp.csr_matrix((W.data, W.indices, W.indptr), shape=W.shape)
        data = W.data
    else:
        W = check_matrix(W, "W")
        data = W
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"the affinity W must be a square (n, n) matrix, got shape {W.shape}")
    if W.shape[0] < 2:
        raise ValueError(f"the affinity W has {W.shape[0]} point(s); LGC needs at least 2")
    if not np.all(np.isfinite(data)):
        raise ValueError("the affinity W contains NaN or infinite values")
    if np.any(data < 0):
        raise ValueError(
            "Negative values in data: the affinity W has negative entries; LGC needs "
            "similarities ≥ 0 (clip them, e.g. np.maximum(W, 0), or use a kNN graph)"
        )
    W = sp.csr_matrix(W)
    W.eliminate_zeros()
    asym = abs(W - W.T)
    scale = float(abs(W).max()) if W.nnz else 0.0
    if asym.nnz and float(asym.max()) > 1e-12 * max(scale, 1.0):
        raise ValueError(
            "the affinity W is not symmetric: symmetrise it, e.g. (W + W.T) / 2 or W.maximum(W.T)"
        )
    return W


# -- the linear algebra -------------------------------------------------------------------------
def _degrees(W: sp.csr_matrix) -> np.ndarray:
    return np.asarray(W.sum(axis=1)).ravel()


def propagation_matrix(W: Affinity, normalization: str = "random_walk") -> sp.csr_matrix:
    """The propagation matrix ``S`` (Sheng Algorithm 4 step 2).

    Parameters
    ----------
    W
        (n, n) symmetric non-negative affinity (dense or sparse).
    normalization
        ``"random_walk"``: ``S = D⁻¹W`` (row stochastic; Sheng, docs/mathematics.md §8);
        ``"symmetric"``: ``S = D^{-1/2} W D^{-1/2}`` (Zhou et al.). Rows of isolated points
        (degree 0) are zero.
    """
    _check_choice(normalization, "normalization", NORMALIZATIONS)
    W = check_affinity(W)
    deg = _degrees(W)
    safe = np.where(deg > 0, deg, 1.0)
    if normalization == "random_walk":
        inv = np.where(deg > 0, 1.0 / safe, 0.0)
        return sp.csr_matrix(sp.diags(inv) @ W)
    inv_sqrt = np.where(deg > 0, 1.0 / np.sqrt(safe), 0.0)
    return sp.csr_matrix(sp.diags(inv_sqrt) @ W @ sp.diags(inv_sqrt))


def initial_labels(
    codes: np.ndarray, n_classes: int, unlabeled_init: str = "uniform"
) -> np.ndarray:
    """The initial label matrix ``Y = F(0)`` (Sheng §3.2.1).

    Parameters
    ----------
    codes
        (n,) class positions in ``[0, n_classes)``, ``-1`` for unlabeled points.
    n_classes
        Number of columns c ≥ 2 (a class may have no labeled point, as in Graph-OCL).
    unlabeled_init
        ``"uniform"`` (``1/c``, Sheng and docs/mathematics.md §8) or ``"zeros"`` (Zhou,
        scikit-learn).
    """
    _check_choice(unlabeled_init, "unlabeled_init", UNLABELED_INITS)
    codes = np.asarray(codes, dtype=np.intp).reshape(-1)
    if int(n_classes) != n_classes or n_classes < 2:
        raise ValueError(f"LGC needs at least 2 classes (columns of Y), got {n_classes!r}")
    if codes.size and (codes.min() < -1 or codes.max() >= n_classes):
        raise ValueError(f"class codes must be -1 (unlabeled) or lie in [0, {n_classes})")
    fill = 1.0 / n_classes if unlabeled_init == "uniform" else 0.0
    Y = np.full((codes.size, int(n_classes)), fill)
    lab = codes >= 0
    Y[lab] = 0.0
    Y[np.flatnonzero(lab), codes[lab]] = 1.0
    return Y


def _cg_iterations(alpha: float, tol: float) -> int:
    """Iterations that CG needs in theory on ``I − αS_sym`` (κ ≤ (1 + α)/(1 − α)), padded."""
    kappa = (1.0 + alpha) / (1.0 - alpha)
    rate = (math.sqrt(kappa) - 1.0) / (math.sqrt(kappa) + 1.0)
    if rate <= 0.0:
        return 10
    # ‖r_k‖ ≤ 2√κ ρ^k ‖r_0‖; twice that count absorbs rounding of the recurrences
    k = math.log(tol / (2.0 * math.sqrt(kappa))) / math.log(rate)
    return 2 * math.ceil(max(k, 1.0)) + 20


def _block_cg(matvec, B: np.ndarray, tol: float, max_iter: int) -> tuple[np.ndarray, int]:
    """Conjugate gradients on all columns of ``B`` at once (independent scalars per column)."""
    X = np.zeros_like(B)
    R = B.copy()
    P = R.copy()
    rs = np.einsum("ij,ij->j", R, R)
    target = (tol * tol) * rs  # ‖r‖ ≤ tol ‖b‖ per column (x0 = 0)
    for it in range(max_iter + 1):
        active = rs > target
        if not active.any():
            return X, it
        if it == max_iter:
            break
        AP = matvec(P)
        pAp = np.einsum("ij,ij->j", P, AP)
        step = np.where(active, rs / np.where(pAp > 0, pAp, 1.0), 0.0)
        X += step * P
        R -= step * AP
        rs_new = np.einsum("ij,ij->j", R, R)
        beta = np.where(active, rs_new / np.where(rs > 0, rs, 1.0), 0.0)
        P = R + beta * P
        rs = rs_new
    worst = float(np.sqrt(np.max(rs / np.where(target > 0, target, 1.0)))) * tol
    raise RuntimeError(
        f"LGC conjugate gradients did not reach tol={tol:g} in {max_iter} iterations "
        f"(relative residual {worst:.3g}); use solver='direct' or a looser tol"
    )


@dataclass
class LGCSolution:
    """The LGC solution over the pool.

    Attributes
    ----------
    F : ndarray (n, c)
        ``F* = (1 − α)(I − αS)⁻¹Y`` (Sheng eq. 3.5).
    H : ndarray (n, c)
        ``H = S(I − αS)⁻¹Y``, so that ``F* = (1 − α)(Y + αH)``: ties of ``F*`` among points
        with equal initial rows are resolved by ``H`` without cancellation.
    Y : ndarray (n, c)
        The initial labels.
    n_iter : int
        CG iterations (0 for the direct solver).
    """

    F: np.ndarray
    H: np.ndarray
    Y: np.ndarray
    n_iter: int


def lgc_solve(
    W: Affinity,
    Y: np.ndarray,
    alpha: float,
    normalization: str = "random_walk",
    *,
    solver: str = "cg",
    tol: float = 1e-12,
    max_iter: int | None = None,
) -> LGCSolution:
    """Closed-form LGC ``F* = (1 − α)(I − αS)⁻¹Y`` by sparse solves (Sheng eq. 3.5).

    Parameters
    ----------
    W
        (n, n) symmetric non-negative affinity, dense or scipy.sparse.
    Y
        (n, c) initial labels (:func:`initial_labels`).
    alpha
        0 < α < 1 (Sheng eq. 3.2).
    normalization
        ``"random_walk"`` (``S = D⁻¹W``, default, docs/mathematics.md §8) or ``"symmetric"``.
    solver
        ``"cg"``: conjugate gradients on the symmetric form ``I − αD^{-1/2}WD^{-1/2}``
        (eigenvalues in [1 − α, 1 + α]); ``"direct"``: sparse LU of the same matrix.
    tol
        CG stopping rule, relative residual per column.
    max_iter
        CG iteration cap (default: twice the theoretical count for ``tol``).

    Returns
    -------
    LGCSolution
    """
    alpha = check_alpha(alpha)
    _check_choice(normalization, "normalization", NORMALIZATIONS)
    _check_choice(solver, "solver", SOLVERS)
    if not (isinstance(tol, Real) and 0.0 < float(tol) < 1.0):
        raise ValueError(f"tol must be a number in (0, 1), got {tol!r}")
    W = check_affinity(W)
    n = W.shape[0]
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim != 2 or Y.shape[0] != n:
        raise ValueError(f"Y must have shape ({n}, c) for the {n} points of W, got {Y.shape}")
    deg = _degrees(W)
    H = np.zeros_like(Y)
    n_iter = 0
    live = np.flatnonzero(deg > 0)  # isolated points: S-row 0, so H = 0 and F = (1 − α)Y
    if live.size:
        Wl = W[live][:, live]
        d = deg[live]
        r = 1.0 / np.sqrt(d)
        S_sym = sp.csr_matrix(sp.diags(r) @ Wl @ sp.diags(r))
        Yl = Y[live]
        # (I − αS)H = SY in the symmetric variables Z: random walk H = D^{-1/2}Z with right-hand
        # side D^{-1/2}WY; symmetric H = Z with right-hand side S_sym Y
        if normalization == "random_walk":
            B = r[:, None] * (Wl @ Yl)
        else:
            B = S_sym @ Yl
        if solver == "direct":
            A = (sp.identity(live.size, format="csc") - alpha * S_sym).tocsc()
            Z = scipy.sparse.linalg.splu(A).solve(np.asfortranarray(B))
            Z = np.asarray(Z).reshape(B.shape)
        else:
            cap = _cg_iterations(alpha, float(tol)) if max_iter is None else int(max_iter)
            Z, n_iter = _block_cg(lambda P: P - alpha * (S_sym @ P), B, float(tol), cap)
        H[live] = r[:, None] * Z if normalization == "random_walk" else Z
    F = (1.0 - alpha) * (Y + alpha * H)
    return LGCSolution(F=F, H=H, Y=Y, n_iter=n_iter)


def lgc_propagate(
    W: Affinity,
    Y: np.ndarray,
    alpha: float,
    normalization: str = "random_walk",
    *,
    tol: float = 1e-12,
    max_iter: int = 100_000,
) -> tuple[np.ndarray, int]:
    """The iteration ``F(t+1) = αSF(t) + (1 − α)Y`` from ``F(0) = Y`` (Sheng eq. 3.2).

    A reference for tests: it converges geometrically with rate α (``‖αS‖ ≤ α``), so it stops
    when the largest change is below ``tol · (1 − α)``, which bounds the distance to ``F*``
    by ``tol``.

    Returns
    -------
    (F, n_iter)
    """
    alpha = check_alpha(alpha)
    S = propagation_matrix(W, normalization)
    Y = np.asarray(Y, dtype=np.float64)
    F = Y.copy()
    stop = float(tol) * (1.0 - alpha)
    for it in range(1, int(max_iter) + 1):
        F_new = alpha * (S @ F) + (1.0 - alpha) * Y
        change = float(np.max(np.abs(F_new - F)))
        F = F_new
        if change <= stop:
            return F, it
    raise RuntimeError(f"LGC propagation did not converge in {max_iter} iterations")


def one_class_log_scores(
    W: Affinity,
    labeled: np.ndarray,
    alpha: float,
    *,
    rtol: float = 1e-16,
    max_terms: int = 100_000,
) -> np.ndarray:
    """Exact one-class LGC ranking scores at small α: ``log P``, ``F*_{i1} = ½ + ½(1 − α)P_i``.

    With one labeled class, Sheng's two-column ``Y`` (§3.5.1: ``(1, 0)`` labeled, ``(½, ½)``
    otherwise) and ``S = D⁻¹W`` (``S1 = 1``), the series of eq. 3.3–3.5 gives
    ``F*_{:1} = ½ + ½(1 − α) P`` with ``P = Σ_k α^k S^k 1_L ≥ 0``. A point ``m`` hops from every
    labeled point has ``P_i = α^m G_i``, ``G_i = Σ_j α^j (S^{m+j} 1_L)_i``: a sum of
    non-negative terms, so ``log P_i = m log α + log G_i`` is accurate to rounding however
    small α^m is. ``F*`` itself (≈ ½ + O(α^m)) cannot order points beyond ~5 hops at
    α = 0.001 in double precision; these scores can.

    Parameters
    ----------
    W
        (n, n) symmetric non-negative affinity.
    labeled
        Indices (or a boolean mask) of the labeled points L (one class).
    alpha
        0 < α < 1; the series needs about ``(16 + m·log10(1/T))/log10(1/α)`` extra terms per
        point (T its first non-zero term), so it suits the small α of ranking (≤ 0.5 or so).
    rtol
        Stop when the tail of every point's series is below ``rtol`` times its sum.
    max_terms
        Cap on the number of sparse products.

    Returns
    -------
    ndarray (n,)
        ``log P_i``: ``-inf`` for points in components without a labeled point (``F*_{i1} = ½``).
        Labeled points have ``P_i ≥ 1``. Descending order = Sheng's ranking by ``F*_{i1}``.
    """
    alpha = check_alpha(alpha)
    S = propagation_matrix(W, "random_walk")
    n = S.shape[0]
    lab = np.asarray(labeled)
    lab = np.flatnonzero(lab) if lab.dtype == bool else lab.astype(np.intp)
    if lab.size == 0:
        raise ValueError("one_class_log_scores needs at least one labeled point")
    _, comp = connected_components(S, directed=False)
    reachable = np.isin(comp, comp[lab])
    hops = np.full(n, -1, dtype=np.int64)
    G = np.zeros(n)
    T = np.zeros(n)
    T[lab] = 1.0
    log_alpha = math.log(alpha)
    for k in range(int(max_terms)):
        new = (hops < 0) & (T > 0)
        hops[new] = k
        seen = hops >= 0
        G[seen] += np.exp((k - hops[seen]) * log_alpha) * T[seen]
        # tail after term k ≤ α^{k+1−m} / (1 − α) because S^k 1_L ≤ 1
        tail = np.exp((k + 1 - hops[seen]) * log_alpha) / (1.0 - alpha)
        if np.array_equal(seen, reachable) and np.all(tail <= rtol * G[seen]):
            out = np.full(n, -np.inf)
            out[seen] = hops[seen] * log_alpha + np.log(G[seen])
            return out
        T = S @ T
    raise RuntimeError(
        f"one_class_log_scores did not converge in {max_terms} terms (alpha={alpha:g} is large "
        "for the series); rank by lgc_solve(...).H instead"
    )


def sheng_alpha_bound(W: Affinity, normalization: str = "random_walk") -> float:
    """Sheng's bound on α for a stable LGC ranking (eq. 3.37).

    ``B_α = min_{i,j,x}(0.005, 0.01 / |S_jx − S_ix|)``: 0.005 keeps ``β = (1 − α)/α`` far above
    the eigenvalues of ``I − S`` (approximations 3.30, 3.32) and ``0.01/|S_jx − S_ix|`` keeps
    ``|α(S_jx − S_ix)| < 0.01`` (approximations 3.25, 3.28). Computed per column as the
    spread ``max_i S_ix − min_i S_ix``.

    Because ``0 ≤ S_ix ≤ 1`` for both normalizations, the second term is ≥ 0.01 and the bound
    is 0.005 for every graph (the thesis finds 0.005 on all its data sets). The bound comes
    from first-order approximations: below it the pairwise ranking is *typically*, not always,
    independent of α (see ``tests/test_lgc.py``).
    """
    S = propagation_matrix(W, normalization).tocsc()
    n = S.shape[0]
    col_max = np.asarray(S.max(axis=0).todense()).ravel()
    col_min = np.asarray(S.min(axis=0).todense()).ravel()  # implicit zeros count
    full = np.diff(S.indptr) == n
    col_min = np.where(full, col_min, np.minimum(col_min, 0.0))
    spread = float(np.max(col_max - col_min)) if n else 0.0
    return min(0.005, 0.01 / spread) if spread > 0 else 0.005
