"""Incremental (weighted, one-vs-all) RLS over a pool in low-rank features: never an n × n matrix.

docs/mathematics.md §7 "ARLS on features" (the rank-one algebra of docs/mathematics.md §5 with
``K = ΦΦᵀ``). The pool's
features Φ (n × r) come from :class:`rlscore.core.kernels.lowrank.LowRankKernel` (Nyström, r ≤ the
number of landmarks), or are the pool itself for the linear kernel when d < n. With the loss
weights ``a`` of the labeled points (one vector per group of one-vs-all columns, as in
:mod:`rlscore.query.rls_state.on_kernel`), the dense state ``V = Φ P Φᵀ`` has the r × r core

    ``P = Φ_Lᵀ(Φ_LΦ_Lᵀ + λW^L)⁻¹Φ_L = I − λ H⁻¹``, ``H = Φ_Lᵀ diag(a) Φ_L + λI``

(push-through identity), so the state kept is ``C = I − P = λ H⁻¹`` (r × r, one per group),
the primal coefficients ``w = H⁻¹ Φ_Lᵀ diag(a) Y_L`` (r × T') and the predictions
``m = Φ w`` (n × T'). In the notation of docs/mathematics.md §5: ``d_i = Φ r_i`` with
``r_i = C φ_i``,
``s_i = φ_iᵀ r_i + λ/w_{y_i}``. Teaching ``(i, y)`` is the rank-one update
``C ← C − r_i r_iᵀ/s_i`` (i.e. ``P ← P + r_i r_iᵀ/s_i``), ``w ← w + r_i (y − m_i)/s_i`` and
``m ← m + Φ r_i (y − m_i)/s_i``: O(r² + n r T') instead of O(n²). Removing a label (undo,
forget) or a change of the balanced weights rebuilds ``C``, ``w`` and ``m`` from the remaining
labels in O(l r² + r³ + n r T'), the same computation as a fresh start taught those labels
with :meth:`FeaturePoolStrategy.teach_many`, so the state equals the never-labeled one.

Memory: Φ (``8 n r`` bytes: 400 MB for n = 100 000 and r = 500, 4 GB for a million points), a
few n-vectors per class and one r × r matrix per group (:meth:`FeaturePoolStrategy.memory_bytes`);
a pool needing more than 80 % of the available memory is refused before the features are built.
"""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg

from rlscore.core.conventions.input_validation import check_matrix
from rlscore.core.conventions.memory_budget import memory_shortfall, require_memory, vectors_bytes
from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.kernels.functions import VECTOR_KERNELS
from rlscore.query.rls_state.weighted import VECTORS_PER_CLASS, WeightedRLSStrategy

if TYPE_CHECKING:
    from rlscore.core.kernels.lowrank import LowRankKernel
    from rlscore.core.kernels.nystrom_map import NystromMap

#: the landmark rule by default: k-means centres make ARLS on the Nyström kernel pick the point
#: exact ARLS picks more often than uniform landmarks at the same m (n = 5000, d = 10, 3 starts
#: of 100 steps: 70 % vs 68 % at m = 500, 90 % vs 86 % at m = 1000; pivoted Cholesky 58 % and
#: 80 %), for a k-means fit of a few seconds (``benchmarks/large_pools.py --fidelity``)
DEFAULT_LANDMARKS = "kmeans"
#: float64 elements of one working block of the lookahead (8 MiB; a handful are alive at once)
WORK_ELEMENTS = 1 << 20
#: n-vectors held besides the features and the per-class ones: candidate selection (margins,
#: permutation, masks), the scores and their standard errors, and their cached copies
EXTRA_VECTORS = 8
#: working blocks alive at the peak of the lookahead (the products, the hypothetical decision
#: values, the per-point risks and the temporaries of the risk)
WORK_BLOCKS = 8
#: rows of the pool budgeted for one working block of the feature map (its kernel columns
#: against the landmarks and their product with ``K_mm^{-1/2}``)
FEATURE_MAP_ROWS = 16_384
#: :meth:`FeaturePoolStrategy.memory_bytes` of a kernel the strategy cannot run (graph kernels
#: are defined by an n × n inverse, not by landmarks): more than any machine has, so the
#: session never proposes the strategy for them
UNSUPPORTED_BYTES = 1 << 62


class FeaturePoolStrategy(WeightedRLSStrategy):
    """The weighted one-vs-all RLS state in low-rank features (docs/mathematics.md §7): low-rank
    ARLS.

    The implementation of :class:`~rlscore.query.rls_state.weighted.WeightedRLSStrategy` on the
    features Φ; see the module docstring for the formulas. The weights (none, a dict,
    ``"balanced"`` with one state per one-vs-all column for T ≥ 3 classes), the risk and the
    probabilities are the shared state's, as for the dense
    :class:`~rlscore.query.rls_state.on_kernel.RLSPoolStrategy`.

    Parameters
    ----------
    kernel : {"rbf", "polynomial", "linear"}
        A vector kernel. ``"linear"`` uses the pool itself as Φ when d < n (exact, no
        landmarks); otherwise the Nyström features of ``n_landmarks`` landmarks.
    sigma : float
        RBF width σ, ``k(x, z) = exp(-‖x − z‖²/(2σ²))``.
    degree : int
        Polynomial degree.
    lam : float
        Regularisation λ > 0 in the convention ``(K_LL + λ A⁻¹) c = y`` (docs/mathematics.md §1).
    class_weight : None, "balanced" or dict
        As :class:`~rlscore.query.rls_state.on_kernel.RLSPoolStrategy`.
    bias_corrected : bool or None
        Divide each class's term of the risk by its weight (eq. 3.49); None: when weighted.
    clip : bool
        Clip the soft scores to [0, 1] in the probabilities of the risk (docs/mathematics.md §5).
    n_landmarks : int
        Landmarks of the Nyström features (r ≤ this).
    landmarks : str
        Landmark rule of :class:`~rlscore.core.kernels.lowrank.LowRankKernel` (default
        :data:`DEFAULT_LANDMARKS`, k-means centres).
    random_state : int or None
        Seed of the landmarks (and of the subsampling of ``LowRankARLS``).

    Attributes (after :meth:`start`)
    --------------------------------
    features_ : ndarray (n, r)
        The pool's features Φ (``K̃ = ΦΦᵀ``); the pool itself for the exact linear kernel.
    lowrank_ : LowRankKernel, NystromMap or None
        The fitted feature map (None when Φ is the pool itself): the
        :class:`~rlscore.core.kernels.lowrank.LowRankKernel` fitted on the pool, or, for
        features given by :meth:`adopt_features` (kept on disk by a session), their
        :class:`~rlscore.core.kernels.nystrom_map.NystromMap`; both map new points by
        ``transform`` and hold the landmarks, the normalization and ``features_``.
    """

    # the n × r features are most of the state (4 GB at n = 10⁶, r = 500) and most of its
    # cost, while replaying the labels is one O(l r² + r³) build: no disk snapshots
    snapshot_worthy = False
    _kernel_params = ("kernel", "sigma", "degree", "n_landmarks", "landmarks", "random_state")

    # the state in features (module docstring)
    features_: np.ndarray
    lowrank_: LowRankKernel | NystromMap | None
    _coef: np.ndarray
    _Cs: list[np.ndarray]
    #: (kernel parameters, X, Φ, feature map) of the last features built, reused by a rebuild
    _feature_cache: tuple | None = None

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 1.0,
        class_weight=None,
        bias_corrected: bool | None = None,
        clip: bool = True,
        n_landmarks: int = 500,
        landmarks: str = DEFAULT_LANDMARKS,
        random_state: int | None = 0,
    ):
        super().__init__(
            kernel=kernel,
            sigma=sigma,
            degree=degree,
            lam=lam,
            class_weight=class_weight,
            bias_corrected=bias_corrected,
            clip=clip,
        )
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.random_state = random_state

    # -- memory ----------------------------------------------------------------------------
    def needs_pool_kernel(self) -> bool:
        """False: the strategy builds its own features and never uses the n × n kernel (the
        session then neither builds nor passes one)."""
        return False

    def memory_bytes(self, n: int, n_classes: int = 2) -> int:
        """Bytes the strategy needs on a pool of ``n`` points (no n × n matrix).

        Parameters
        ----------
        n
            Pool size.
        n_classes
            Number of classes T (balanced multiclass weights keep one r × r state per class).

        Returns
        -------
        int
            ``8 n (r + VECTORS_PER_CLASS · T + EXTRA_VECTORS)`` for the features, the
            predictions and the candidate bookkeeping, plus one r × r matrix per group of
            columns, the feature map's working block and the lookahead's working blocks, with
            ``r`` the features of the landmark rule (m, or p·m for the ensemble rules:
            :meth:`~rlscore.core.kernels.lowrank.LowRankKernel.max_features`);
            :data:`UNSUPPORTED_BYTES` for a graph kernel.
        """
        if self.kernel not in VECTOR_KERNELS:
            return UNSUPPORTED_BYTES
        r = min(_positive_int(self.n_landmarks, "n_landmarks"), n)
        groups = n_classes if isinstance(self.class_weight, str) and n_classes > 2 else 1
        pool = vectors_bytes(n, r + VECTORS_PER_CLASS * n_classes + EXTRA_VECTORS)
        work = vectors_bytes(WORK_ELEMENTS, WORK_BLOCKS + groups)
        # the feature map: the landmarks' kernel and its eigenvectors, one block of rows
        feature_map = vectors_bytes(r, 3 * r) + vectors_bytes(min(FEATURE_MAP_ROWS, n), 2 * r)
        return pool + vectors_bytes(r, r * groups) + work + feature_map

    # -- state -----------------------------------------------------------------------------
    def _start_state(self, X: np.ndarray, K: np.ndarray | None) -> None:
        """Build the features (a given ``K`` is not used: the features come from ``X``)."""
        n, T = X.shape[0], self.classes_.size
        if self.kernel not in VECTOR_KERNELS:
            raise ValueError(
                f"{type(self).__name__} needs a vector kernel {VECTOR_KERNELS}, got "
                f"{self.kernel!r} (a graph kernel is an n × n inverse, not a low-rank map)"
            )
        self._check_params(n)
        need = self.memory_bytes(n, T)
        if memory_shortfall(need, "the pool") is not None:  # the map's import is heavy: only then
            require_memory(
                need,
                f"{type(self).__name__} on a pool of {n} points "
                f"({self.feature_map().max_features(n)} features per point at most)",
            )
        self.features_, self.lowrank_ = self.pool_features(X)
        r = self.features_.shape[1]
        self._coef = np.zeros((r, self._m.shape[1]))
        self._Cs = [np.eye(r) for _ in self._groups]  # P = 0: C = I − P = I

    def _check_params(self, n: int) -> None:
        """Validate the parameters the subclasses add (called before any allocation)."""
        _positive_int(self.n_landmarks, "n_landmarks")
        if self.random_state is not None and (
            isinstance(self.random_state, bool) or not isinstance(self.random_state, Integral)
        ):
            raise ValueError(f"random_state must be an integer or None, got {self.random_state!r}")

    def pool_features(self, X: np.ndarray) -> tuple[np.ndarray, LowRankKernel | NystromMap | None]:
        """Φ of the pool ``X`` and its feature map (None when Φ is ``X`` itself), as
        :meth:`start` builds them; reused across a rebuild when neither X nor the feature
        parameters changed (a change of λ or of the weights keeps the features).

        The one step between the pool and the state: a subclass whose pool rows are
        features already overrides it to return ``(X, None)``
        (:class:`rlscore.query.cluster.block_query.BlockQuery`'s state of the labeled rows)."""
        key = repr(sorted(self.kernel_params().items()))
        cached = self._feature_cache
        if cached is not None and cached[0] == key:
            X_old = cached[1]
            if X_old is X or (X_old.shape == X.shape and np.array_equal(X_old, X)):
                return cached[2], cached[3]
        self._feature_cache = None  # free the old features before building new ones
        if self.kernel == "linear" and X.shape[1] < X.shape[0]:
            phi, lowrank = X, None  # K = XXᵀ exactly: Φ = X
        else:
            lowrank = self.feature_map().fit(X)
            phi = lowrank.features_
        self._feature_cache = (key, X, phi, lowrank)
        return phi, lowrank

    def adopt_features(
        self, X: np.ndarray, features: np.ndarray, feature_map: LowRankKernel | NystromMap
    ) -> None:
        """Start on the pool ``X`` (the same array object) with ``features`` and their fitted
        ``feature_map`` instead of building them: Nyström features of ``X`` under this
        strategy's kernel parameters that were built before, e.g. kept on disk by the session
        (:mod:`rlscore.sessions.state.feature_files`). The caller vouches that they are what
        :meth:`pool_features` would build; a change of the kernel parameters drops them."""
        if features.shape[0] != X.shape[0]:
            raise ValueError(f"features have {features.shape[0]} rows, the pool {X.shape[0]}")
        key = repr(sorted(self.kernel_params().items()))
        self._feature_cache = (key, X, features, feature_map)

    def feature_map(self) -> LowRankKernel:
        """The unfitted Nyström feature map of this strategy's parameters."""
        # imported here: scikit-learn comes with it, and adopted features need no fit
        from rlscore.core.kernels.lowrank import LowRankKernel

        return LowRankKernel(
            kernel=self.kernel,
            sigma=self.sigma,
            degree=int(self.degree),
            n_landmarks=int(self.n_landmarks),
            landmarks=self.landmarks,
            random_state=self.random_state,
        )

    def transform(self, Z) -> np.ndarray:
        """Features ``φ(z)`` of any points, (n_z, r)."""
        self._check_started()
        Z = check_matrix(Z, "Z")
        if self.lowrank_ is not None:
            return self.lowrank_.transform(Z)
        if Z.shape[1] != self.X_.shape[1]:
            raise ValueError(f"Z has {Z.shape[1]} features, the pool has {self.X_.shape[1]}")
        return Z

    def _update(self, i: int, c: int) -> None:
        """``C ← C − r_i r_iᵀ/s_i``, ``w ← w + r_i (y − m_i)/s_i``, ``m ← m + Φ r_i (y − m_i)/s_i``
        per group of columns (module docstring)."""
        y = ova_targets([c], self.classes_.size)[0]
        phi = self.features_[i]
        delta = np.zeros_like(self._coef)
        for cols, C in zip(self._groups, self._Cs, strict=True):
            r = C @ phi
            s = phi @ r + self._lam / self._W[cols[0], c]
            delta[:, cols] = np.outer(r, (y[cols] - self._m[i, cols]) / s)
            u = r / np.sqrt(s)
            C -= np.outer(u, u)  # entries u_a u_b: C stays exactly symmetric
        self._coef += delta
        self._m += self.features_ @ delta

    def _build(self, labeled, classes) -> None:
        """``C``, ``w`` and ``m`` from scratch: one r × r Cholesky factorisation per group."""
        L = np.asarray(labeled, dtype=np.intp)
        r = self.features_.shape[1]
        coef = np.zeros_like(self._coef)
        Cs = []
        if L.size:
            phi_L = self.features_[L]
            codes = np.asarray(classes, dtype=np.intp)
            Y = ova_targets(codes, self.classes_.size)
        for cols in self._groups:
            if not L.size:
                Cs.append(np.eye(r))
                continue
            weighted = self._W[cols[0], codes][:, None] * phi_L  # diag(a) Φ_L
            H = phi_L.T @ weighted
            H[np.diag_indices(r)] += self._lam
            factor = scipy.linalg.cho_factor(H)
            coef[:, cols] = scipy.linalg.cho_solve(factor, weighted.T @ Y[:, cols])
            C = self._lam * scipy.linalg.cho_solve(factor, np.eye(r))
            Cs.append(0.5 * (C + C.T))
        self._Cs, self._coef = Cs, coef
        self._m = self.features_ @ coef

    # -- public state ----------------------------------------------------------------------
    @property
    def coef_(self) -> np.ndarray:
        """Primal coefficients ``w`` (r, T'): the decision values are ``φ(x) w``."""
        return self._coef.copy()

    @property
    def cores_(self) -> list[np.ndarray]:
        """``C = I − P`` (r, r), one per group of one-vs-all columns (a read-only view each):
        ``d_i = Φ C φ_i`` are the covariance rows of the lookahead."""
        views = [C.view() for C in self._Cs]
        for v in views:
            v.flags.writeable = False
        return views

    @property
    def P_(self) -> np.ndarray:
        """``P = Φ_Lᵀ(Φ_LΦ_Lᵀ + λW^L)⁻¹Φ_L`` (docs/mathematics.md §7): (r, r), or (T, r, r) one per
        column
        for balanced multiclass weights (``V = Φ P Φᵀ``)."""
        r = self.features_.shape[1]
        if len(self._Cs) == 1:
            return np.eye(r) - self._Cs[0]
        out = np.empty((self._W.shape[0], r, r))
        for cols, C in zip(self._groups, self._Cs, strict=True):
            out[cols] = np.eye(r) - C
        return out

    def decision_function_at(self, Z) -> np.ndarray:
        """Decision values on new points ``Z``: ``φ(Z) w`` (features by the same map)."""
        return self.decision_function_of_features(self.transform(Z))

    def decision_function_of_features(self, features) -> np.ndarray:
        """Decision values of points given by their features ``φ(Z)`` (:meth:`transform`):
        ``φ(Z) w``, (n_z,) binary, (n_z, T) one-vs-all.

        For points scored again after every label (the pool plot's grid): their features
        depend only on the feature map, fixed once the strategy is started, so a caller can
        map them once instead of through every landmark's kernel at every label.
        """
        self._check_started()
        f = np.asarray(features, dtype=float) @ self._coef
        return f[:, 0] if f.shape[1] == 1 else f


def _positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


__all__ = ["DEFAULT_LANDMARKS", "FeaturePoolStrategy"]
