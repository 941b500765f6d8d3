"""Low-rank (Nyström) approximations of a vector kernel: features instead of an n × n matrix.

docs/mathematics.md §7 (Rifkin §7.6, Sheng ch. 4). Pick m landmark points Z; the Nyström kernel is
``K̃ = K_nm K_mm⁺ K_mn`` and its features are ``Φ = K_nm K_mm^{-1/2}`` (n × m, with the
pseudo-inverse square root: eigen-directions of ``K_mm`` below a relative cutoff are dropped),
so ``K̃ = ΦΦᵀ``. RLS, its LOO path and ARLS then run in the m-dimensional primal
(:meth:`rlscore.core.rls.path.RLSPath.from_features`) in O(nm²) instead of O(n³), and a
new point's features are ``φ(x) = k(x, Z) K_mm^{-1/2}``. (RLS on these features is Rifkin's
*rectangle* method, :mod:`rlscore.core.rls.reduced`.)

:class:`LowRankKernel` is the estimator (``fit(X)`` on the pool, ``transform(X)`` for any
points, the pool's features in ``features_``); the landmark rules live in
:mod:`rlscore.core.kernels.landmarks`. :func:`relative_frobenius_error` measures
``‖K − ΦΦᵀ‖_F / ‖K‖_F`` (Sheng eq. 4.19) exactly in blocks, or by sampling pairs.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.conventions.input_validation import check_matrix
from rlscore.core.conventions.parameter_constraints import (
    Interval,
    Options,
    Validated,
    check_parameters,
)
from rlscore.core.kernels.functions import VECTOR_KERNELS, check_sigma, kernel_matrix
from rlscore.core.kernels.landmarks import (
    DEFAULT_ETA,
    EIGEN_CUTOFF,
    LANDMARK_RULES,
    MIXTURES,
    boost_nystrom,
    ensemble_landmarks,
    incomplete_cholesky,
    inverse_sqrt,
    kmeans_landmarks,
    paired_kernel,
    uniform_landmarks,
)
from rlscore.core.kernels.nystrom_map import BLOCK_ROWS, nystrom_features
from rlscore.core.kernels.rbf_width import DEFAULT_SIGMA, check_width, fitted_sigma

#: kernel entries per block of the exact Frobenius error (32 MB of float64)
BLOCK_ENTRIES = 4_000_000


class LowRankKernel(TransformerMixin, BaseEstimator):
    """Nyström features ``Φ = K_nm K_mm^{-1/2}`` of a vector kernel on a pool.

    Parameters
    ----------
    kernel : {"linear", "polynomial", "rbf"}
        The kernel to approximate (graph kernels are defined by an n × n inverse: no).
    sigma : float or {"median", "scale"}
        RBF width σ, ``k(x, z) = exp(-‖x − z‖²/(2σ²))``, or a rule reading it off the pool:
        ``"median"`` (default), the median distance between two points, or ``"scale"``,
        scikit-learn's ``gamma="scale"`` (:mod:`rlscore.core.kernels.rbf_width`); the width used
        is ``sigma_`` (None for the other kernels).
    degree : int
        Polynomial degree.
    n_landmarks : int
        m, the number of landmark points (at most n). For ``"ensemble"`` and ``"boost"`` it is
        the size of *each* of the p subsets (Sheng §4.3: m·p landmarks in all), capped at
        ``n // p`` (ensemble, ``n // (p + 1)`` with exponential weights) and
        ``n // (p + 1)`` (boost: it also draws m validation points).
    landmarks : {"uniform", "kmeans", "ic", "ensemble", "boost"}
        How landmarks are chosen (:mod:`rlscore.core.kernels.landmarks`):

        * ``"uniform"`` — m pool points drawn without replacement;
        * ``"kmeans"`` — the m k-means centres (scikit-learn ``KMeans``, ``MiniBatchKMeans``
          above 20 000 points); the centres are not pool points, so ``landmark_indices_`` is
          None;
        * ``"ic"`` — pivoted incomplete Cholesky (Fine & Scheinberg): deterministic, may stop
          before m pivots when the residual diagonal vanishes;
        * ``"ensemble"`` — Ensemble Nyström, p = ``n_subsets`` disjoint uniform subsets of m;
        * ``"boost"`` — BoostNyström (Sheng algorithms 7–9), T = p = ``n_subsets``.
    random_state : int, RandomState or None
        Seed of the landmark choice.
    n_subsets : int
        p, the number of base approximations of ``"ensemble"`` and ``"boost"``.
    mixture : {"uniform", "exponential"} or None
        Mixture weights of the ensemble rules: ``1/p`` or ``exp(−η ε̂_r)/Z`` with ε̂_r the
        relative Frobenius error of subset r on m held-out validation columns. None: the
        thesis' choices, uniform for ``"ensemble"`` and exponential for ``"boost"``.
    eta : float
        η of the exponential weights (ε̂ relative, in [0, 1]).
    block_size : int or None
        d, BoostNyström's block size (None: ``max(1, m // 10)``).

    Attributes
    ----------
    landmarks_ : ndarray (M, d)
        The landmark points Z (M = m, or m·p for the ensemble rules: the groups in order).
    landmark_indices_ : ndarray (M,) or None
        Their pool indices (None for ``"kmeans"``: centres are not pool points).
    normalization_ : ndarray (M, r) or scipy.sparse array
        ``K_mm^{-1/2}`` restricted to its r kept eigen-directions: ``φ(x) = k(x, Z) @ it``.
        For ``"ic"`` it is ``L⁻ᵀ`` (L the pivots' Cholesky factor; same ``ΦΦᵀ``). For the
        ensemble rules it is the block-diagonal ``diag(√μ_r N_r)`` as a sparse CSR array, so
        that Φ is the horizontal stack of the ``√μ_r Φ_r`` and ``ΦΦᵀ = Σ_r μ_r K̃_r``.
    features_ : ndarray (n, r)
        The pool's features Φ.
    groups_ : list of ndarray
        Rows of ``landmarks_`` of each base approximation (one group for the single rules).
    weights_ : ndarray (p,)
        Mixture weights μ_r (``[1.0]`` for the single rules).
    residual_traces_ : ndarray or None
        ``"ic"``: ``tr(K − K̃)`` after 0, 1, …, m pivots.
    validation_indices_, validation_errors_ : ndarray or None
        Exponential-weight rules: the validation columns V and each subset's error on them.
    """

    parameter_constraints = {
        "kernel": (Options(*VECTOR_KERNELS),),
        "sigma": (Validated(check_width),),
        "degree": (Interval(Integral, 1, None),),
        "n_landmarks": (Interval(Integral, 1, None),),
        "landmarks": (Options(*LANDMARK_RULES),),
        "n_subsets": (Interval(Integral, 1, None),),
        "mixture": (Options(None, *MIXTURES),),
        "eta": (Interval(Real, 0, None),),
        "block_size": (Interval(Integral, 1, None), Options(None)),
    }

    def __init__(
        self,
        kernel: str = "rbf",
        *,
        sigma: float | str = DEFAULT_SIGMA,
        degree: int = 2,
        n_landmarks: int = 500,
        landmarks: str = "uniform",
        random_state=0,
        n_subsets: int = 4,
        mixture: str | None = None,
        eta: float = DEFAULT_ETA,
        block_size: int | None = None,
    ) -> None:
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.random_state = random_state
        self.n_subsets = n_subsets
        self.mixture = mixture
        self.eta = eta
        self.block_size = block_size

    def _landmarks_per_group(self, n: int) -> int:
        """m on a pool of ``n`` points: at most n, and at most n // p for p groups (n // (p + 1)
        when validation points are held out too)."""
        m = int(self.n_landmarks)
        if self.landmarks not in ("ensemble", "boost"):
            return min(m, n)
        p = int(self.n_subsets)
        held_out = self.landmarks == "boost" or self._mixture() == "exponential"
        cap = n // (p + 1) if held_out else n // p
        if cap < 1:
            raise ValueError(f"{n} sample(s) are too few for {p} subsets of landmarks")
        return min(m, cap)

    def max_features(self, n: int) -> int:
        """The number of features ``fit`` gives at most on a pool of ``n`` points: m, or p·m
        for the ensemble rules (p subsets of m landmarks each)."""
        check_parameters(self)
        m = self._landmarks_per_group(n)
        return m * int(self.n_subsets) if self.landmarks in ("ensemble", "boost") else m

    def _mixture(self) -> str:
        if self.mixture is not None:
            return self.mixture
        return "exponential" if self.landmarks == "boost" else "uniform"

    def fit(self, X, y=None) -> LowRankKernel:
        """Choose the landmarks on pool ``X`` and compute its features ``features_``."""
        check_parameters(self)
        X = validate_data(self, X, dtype=np.float64)
        m = self._landmarks_per_group(X.shape[0])
        self.sigma_ = fitted_sigma(self.sigma, self.kernel, X)
        rng = check_random_state(self.random_state)
        rule = self.landmarks
        if rule == "uniform":
            choice = uniform_landmarks(X, m, self._kernel, rng)
        elif rule == "kmeans":
            choice = kmeans_landmarks(X, m, self._kernel, rng)
        elif rule == "ic":
            diag = paired_kernel(
                X, X, kernel=self.kernel, sigma=self.sigma_, degree=int(self.degree)
            )
            choice = incomplete_cholesky(X, m, self._kernel, diag)
        elif rule == "ensemble":
            choice = ensemble_landmarks(
                X, m, self._kernel, rng, n_subsets=int(self.n_subsets),
                mixture=self._mixture(), eta=float(self.eta),
            )  # fmt: skip
        else:
            choice = boost_nystrom(
                X, m, self._kernel, rng, n_subsets=int(self.n_subsets),
                block_size=self.block_size, mixture=self._mixture(), eta=float(self.eta),
            )  # fmt: skip
        self.landmark_indices_ = choice.indices
        self.landmarks_ = choice.points
        self.groups_ = choice.groups
        self.weights_ = choice.weights
        self.residual_traces_ = choice.info.get("residual_traces")
        self.validation_indices_ = choice.info.get("validation_indices")
        self.validation_errors_ = choice.info.get("validation_errors")
        if len(choice.groups) == 1:
            self._blocks = None
            self.normalization_ = choice.normalizations[0]
        else:
            # transform works per group: the block-diagonal product would cost p times more
            parts = zip(choice.groups, choice.weights, choice.normalizations, strict=True)
            self._blocks = [(g, np.sqrt(mu) * N) for g, mu, N in parts]
            self.normalization_ = sp.csr_array(sp.block_diag([N for _, N in self._blocks]))
        self.features_ = self.transform(X)
        return self

    def fit_transform(self, X, y=None) -> np.ndarray:
        """``fit(X)`` and the pool's features (a copy of ``features_``, computed once)."""
        return self.fit(X).features_.copy()

    def transform(self, X) -> np.ndarray:
        """Features ``φ(x) = k(x, Z) K_mm^{-1/2}`` of any points, (n, r)."""
        check_is_fitted(self, "normalization_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        params = {"kernel": self.kernel, "sigma": self.sigma_, "degree": int(self.degree)}
        if self._blocks is None:
            return nystrom_features(X, self.landmarks_, self.normalization_, **params)
        out = np.empty((X.shape[0], self.normalization_.shape[1]))
        col = 0
        for g, N in self._blocks:
            out[:, col : col + N.shape[1]] = nystrom_features(X, self.landmarks_[g], N, **params)
            col += N.shape[1]
        return out

    def _kernel(self, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
        return kernel_matrix(X, Z, kernel=self.kernel, sigma=self.sigma_, degree=int(self.degree))


def relative_frobenius_error(
    X,
    features,
    *,
    kernel: str = "rbf",
    sigma: float = 1.0,
    degree: int = 2,
    exact_max: int = 5000,
    n_pairs: int = 200_000,
    random_state=0,
) -> tuple[float, float]:
    """``‖K − ΦΦᵀ‖_F / ‖K‖_F`` (Sheng eq. 4.19 without the × 100) and its standard error.

    Up to ``exact_max`` points the ratio is exact, computed over blocks of rows (about
    :data:`BLOCK_ENTRIES` kernel entries at a time, never n × n), with standard error 0.
    Above, ``n_pairs`` pairs (i, j) are drawn uniformly with replacement from the n² entries;
    with ``a = (K_ij − φ_i·φ_j)²`` and ``b = K_ij²`` the estimate is ``√(ā / b̄)`` and its
    standard error comes from the delta method:
    ``se(ā/b̄)² ≈ (var a − 2r cov(a, b) + r² var b) / (N b̄²)`` with ``r = ā/b̄``, and
    ``se(√r) = se(r) / (2√r)``.

    Parameters
    ----------
    X : array (n, d)
        The points.
    features : array (n, r)
        Their features Φ (e.g. ``LowRankKernel(...).fit(X).features_``).
    kernel, sigma, degree
        The exact kernel (as in :class:`LowRankKernel`).
    exact_max : int
        Largest n computed exactly.
    n_pairs : int
        Pairs sampled above ``exact_max``.
    random_state : int, RandomState or None
        Seed of the pairs.

    Returns
    -------
    (estimate, standard_error) : tuple of float
    """
    X = check_matrix(X, "X", min_samples=1)
    F = check_matrix(features, "features", min_samples=1)
    n = X.shape[0]
    if F.shape[0] != n:
        raise ValueError(f"features has {F.shape[0]} rows, X has {n}")
    if kernel not in VECTOR_KERNELS:
        raise ValueError(f"kernel must be one of {VECTOR_KERNELS}, got {kernel!r}")
    if kernel == "rbf":
        sigma = check_sigma(sigma, X)
    params = {"kernel": kernel, "sigma": sigma, "degree": int(degree)}
    if n <= exact_max:
        return _exact_frobenius_error(X, F, params), 0.0
    if isinstance(n_pairs, bool) or not isinstance(n_pairs, Integral) or n_pairs < 2:
        raise ValueError(f"n_pairs must be an integer ≥ 2, got {n_pairs!r}")
    return _sampled_frobenius_error(X, F, params, int(n_pairs), check_random_state(random_state))


def _exact_frobenius_error(X: np.ndarray, F: np.ndarray, params: dict) -> float:
    """``‖K − FFᵀ‖_F / ‖K‖_F`` over blocks of about :data:`BLOCK_ENTRIES` kernel entries."""
    n = X.shape[0]
    num = den = 0.0
    rows = max(1, BLOCK_ENTRIES // n)
    for s in range(0, n, rows):
        K = kernel_matrix(X[s : s + rows], X, **params)
        den += float(np.einsum("ij,ij->", K, K))
        K -= F[s : s + rows] @ F.T
        num += float(np.einsum("ij,ij->", K, K))
    if den == 0:
        raise ValueError("the kernel matrix is zero: the relative error is undefined")
    return float(np.sqrt(num / den))


def _sampled_frobenius_error(
    X: np.ndarray, F: np.ndarray, params: dict, n_pairs: int, rng: np.random.RandomState
) -> tuple[float, float]:
    """The ratio on ``n_pairs`` uniform pairs (i, j) and its delta-method standard error (see
    :func:`relative_frobenius_error`)."""
    n = X.shape[0]
    a = np.empty(n_pairs)
    b = np.empty(n_pairs)
    chunk = 65_536
    for s in range(0, n_pairs, chunk):
        size = min(chunk, n_pairs - s)
        i = rng.randint(n, size=size)
        j = rng.randint(n, size=size)
        k = paired_kernel(X[i], X[j], **params)
        e = k - np.einsum("ij,ij->i", F[i], F[j])
        a[s : s + size] = e * e
        b[s : s + size] = k * k
    a_bar, b_bar = a.mean(), b.mean()
    if b_bar == 0:
        raise ValueError("the sampled kernel entries are all zero: the error is undefined")
    r = a_bar / b_bar
    cov = np.cov(a, b)
    var_r = (cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / (n_pairs * b_bar**2)
    est = float(np.sqrt(r))
    se = float(np.sqrt(max(var_r, 0.0)) / (2 * est)) if est > 0 else 0.0
    return est, se


__all__ = [
    "BLOCK_ENTRIES",
    "BLOCK_ROWS",
    "EIGEN_CUTOFF",
    "LowRankKernel",
    "inverse_sqrt",
    "relative_frobenius_error",
]
