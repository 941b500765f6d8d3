"""The KLR-pool base of the kernel-logistic-regression strategies, and its simplest query.

:class:`KLRPoolStrategy` keeps a KLR over the pool up to date with the labels (the parallel of
:class:`~rlscore.query.rls_pool.RLSPoolStrategy` for RLS); :class:`MaxEntropyKLR` is Yajima's
most-uncertain query (MUQ, §6), scored by :func:`rlscore.query.uncertainty.entropy`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from rlscore.core.encoding import ova_targets
from rlscore.core.kernels import GRAPH_ALIASES, GRAPH_KERNELS, VECTOR_KERNELS, kernel_matrix
from rlscore.core.klr import newton_representer, probabilities
from rlscore.core.validation import check_matrix, check_positive
from rlscore.query.base import QueryStrategy
from rlscore.query.uncertainty import entropy

__all__ = ["KLRPoolStrategy", "MaxEntropyKLR"]


class KLRPoolStrategy(QueryStrategy):
    """Kernel logistic regression over the pool, refitted with every label; subclasses choose
    the queries (:class:`MaxEntropyKLR` here, :class:`~rlscore.query.aoptimal.AOptimalKLR`).

    The model is the transductive KLR ``β = K_{:L} α`` fitted by the representer Newton of
    :mod:`rlscore.core.klr` (any kernel; SPEC §6), warm-started from the previous
    coefficients. A failed fit (:class:`~rlscore.core.klr.KLRConvergenceError`) leaves the
    labels and the model as they were.
    """

    _kernel_params = ("kernel", "sigma", "degree", "graph_k", "graph_t")

    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        self._lam = check_positive(self.lam, "lam")
        known = VECTOR_KERNELS + GRAPH_KERNELS + tuple(GRAPH_ALIASES)
        if self.kernel not in known:
            raise ValueError(f"unknown kernel {self.kernel!r}: choose one of {known}")
        self._K = K if K is not None else self.pool_kernel(X)
        self._diagK = np.diag(self._K).copy()
        T = self.classes_.size
        self._h = 1 if T == 2 else T
        self._L: list[int] = []
        self._codes: list[int] = []
        self._alpha = np.zeros((0, self._h))
        self._set_beta(np.zeros((self.n_pool_, self._h)))
        self._cache: tuple | None = None
        self._exclude: frozenset[int] = frozenset()

    def _set_beta(self, beta: np.ndarray) -> None:
        self._beta = beta
        self._P = probabilities(beta)

    def _fit(self, L: list[int], codes: list[int], alpha0: np.ndarray) -> np.ndarray:
        T = ova_targets(codes, self.classes_.size, negative=0.0)
        alpha, _ = newton_representer(self._K[np.ix_(L, L)], T, self._lam, alpha0=alpha0)
        return alpha

    def _refit(self, L: list[int], codes: list[int], alpha0: np.ndarray) -> None:
        # fit first, commit after: a failed Newton (KLRConvergenceError) leaves the state as
        # it was, and the base class then records nothing either
        if L:
            alpha = self._fit(L, codes, alpha0)
            beta = self._K[:, L] @ alpha
        else:
            alpha, beta = np.zeros((0, self._h)), np.zeros((self.n_pool_, self._h))
        self._L, self._codes, self._alpha = L, codes, alpha
        self._set_beta(beta)
        self._cache = None

    def _add(self, i: int, c: int) -> None:
        alpha0 = np.vstack([self._alpha, np.zeros((1, self._h))])
        self._refit([*self._L, i], [*self._codes, c], alpha0)

    def _remove(self, pos: int) -> None:
        L = self._L[:pos] + self._L[pos + 1 :]
        codes = self._codes[:pos] + self._codes[pos + 1 :]
        self._refit(L, codes, np.delete(self._alpha, pos, axis=0))

    def decision_function(self) -> np.ndarray:
        """KLR decision values on the pool: (n,) binary (positive = ``classes_[1]``), (n, T)."""
        self._check_started()
        return self._beta[:, 0].copy() if self._h == 1 else self._beta.copy()

    def predict_proba(self) -> np.ndarray:
        """KLR class probabilities on the pool (n, T), columns in ``classes_`` order."""
        self._check_started()
        if self._h == 1:
            return np.column_stack([1.0 - self._P[:, 0], self._P[:, 0]])
        return self._P.copy()

    def decision_function_at(self, Z) -> np.ndarray:
        """KLR decision values at new points ``Z`` (vector kernels only; graph kernels exist
        on the pool alone)."""
        self._check_started()
        if self.kernel not in VECTOR_KERNELS:
            raise ValueError(
                f"the {self.kernel!r} graph kernel is defined on the pool only: it cannot "
                "predict new points (add them to the pool instead)"
            )
        Z = check_matrix(Z, "Z")
        if Z.shape[1] != self.X_.shape[1]:
            raise ValueError(f"Z has {Z.shape[1]} features but the pool has {self.X_.shape[1]}")
        if self._L:
            Kz = kernel_matrix(
                Z, self.X_[self._L], kernel=self.kernel, sigma=self.sigma, degree=self.degree
            )
            f = Kz @ self._alpha
        else:
            f = np.zeros((Z.shape[0], self._h))
        return f[:, 0] if self._h == 1 else f

    def predict_proba_at(self, Z) -> np.ndarray:
        """KLR class probabilities at new points ``Z`` (n, T)."""
        f = np.asarray(self.decision_function_at(Z))
        P = probabilities(f[:, None] if f.ndim == 1 else f)
        return np.column_stack([1.0 - P[:, 0], P[:, 0]]) if self._h == 1 else P

    def predict_at(self, Z) -> np.ndarray:
        """Predicted classes of new points ``Z``."""
        f = self.decision_function_at(Z)
        if f.ndim == 1:
            return self.classes_[(f > 0).astype(int)]
        return self.classes_[np.argmax(f, axis=1)]

    def next_query(self, exclude: Iterable[int] | None = None) -> tuple[int, float]:
        # the excluded (skipped) points must not use up a limited candidate subset
        self._exclude = frozenset() if exclude is None else frozenset(int(e) for e in exclude)
        try:
            return super().next_query(exclude)
        finally:
            self._exclude = frozenset()

    def _unlabeled(self) -> np.ndarray:
        mask = np.ones(self.n_pool_, dtype=bool)
        mask[self._L] = False
        return np.flatnonzero(mask)

    def _entropy(self) -> np.ndarray:
        return entropy(self.predict_proba())


class MaxEntropyKLR(KLRPoolStrategy):
    """Most-uncertain query (MUQ, Yajima §6): the point of largest KLR entropy.

    ``scores()`` is minus the entropy of the KLR probabilities (lower is better);
    ``estimated_risk()`` is the expected number of errors on the unlabeled points,
    ``Σ_{j∈U} (1 − max_c p̂(c|x_j))``. Parameters as
    :class:`~rlscore.query.aoptimal.AOptimalKLR`.
    """

    def __init__(
        self,
        kernel: str = "graph",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 0.1,
        graph_k: int = 6,
        graph_t: float = 1.0,
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.lam = lam
        self.graph_k = graph_k
        self.graph_t = graph_t

    risk_name = "Expected errors on the unlabeled pool"
    risk_help = (
        "Estimated number of misclassified unlabeled points: the sum over them of one minus "
        "the largest KLR class probability."
    )

    def scores(self) -> np.ndarray:
        self._check_started()
        s = -self._entropy()
        s[self._L] = np.nan
        return s

    def estimated_risk(self) -> float:
        self._check_started()
        U = self._unlabeled()
        return float(np.sum(1.0 - self.predict_proba()[U].max(axis=1)))
