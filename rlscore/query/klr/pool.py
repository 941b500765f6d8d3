"""The KLR-pool base of the kernel-logistic-regression strategies, and its simplest query.

:class:`KLRPoolStrategy` keeps a KLR over the pool up to date with the labels (the parallel of
:class:`~rlscore.query.rls_state.on_kernel.RLSPoolStrategy` for RLS); :class:`MaxEntropyKLR` is
Yajima's most-uncertain query (MUQ, §6), scored by
:func:`rlscore.query.baselines.uncertainty_scores.entropy`.

``tune="loo"`` chooses λ (and, for the two regularized graph kernels, the scale t) by the LOO
log-loss rule of :mod:`rlscore.core.klr.tuning`, on the first s labels where s is the largest
count of :data:`TUNE_AT` reached (a geometric schedule: a choice costs 0.5 s at 10 labels and
5 s at 40, so it is not made after every label); ``tune="none"`` keeps the ``lam`` and
``graph_t`` given. :func:`klr_regime` returns the note a user should see when
the KLR is near uniform on the pool.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from rlscore.core.conventions.input_validation import check_matrix, check_positive
from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.graph.kernel_family import REGULARIZED, RegularizedGraphKernels
from rlscore.core.kernels.blocks import DenseKernel, FeatureKernel, graph_kernel_at
from rlscore.core.kernels.functions import (
    GRAPH_ALIASES,
    GRAPH_KERNELS,
    VECTOR_KERNELS,
    kernel_matrix,
    pool_kernel,
)
from rlscore.core.klr.link import probabilities
from rlscore.core.klr.newton import FeatureJacobian, newton_features, newton_representer
from rlscore.core.klr.tuning import (
    LAM_GRID,
    T_GRID,
    ConfidenceRegime,
    KLRTuning,
    confidence_regime,
    tune_klr,
)
from rlscore.query.baselines.uncertainty_scores import entropy
from rlscore.query.protocol.strategy import QueryStrategy

#: label counts at which ``tune="loo"`` chooses (t, λ) again: ×1.25 steps up to 100 labels,
#: then the choice made on the first 100 is kept
TUNE_AT = tuple(sorted({int(round(2 * 1.25**k)) for k in range(18)} | {100}))
TUNE_AT = tuple(s for s in TUNE_AT if s <= 100)


def tuned_prefix(n_labels: int) -> int:
    """How many of the first labels ``tune="loo"`` chooses (t, λ) on with ``n_labels``."""
    reached = [s for s in TUNE_AT if s <= n_labels]
    return reached[-1] if reached else 0


__all__ = ["TUNE_RULES", "KLRPoolStrategy", "MaxEntropyKLR", "klr_regime"]

#: how λ and t are set: ``"none"`` (as given) or ``"loo"`` (LOO log-loss over a grid)
TUNE_RULES = ("none", "loo")
#: how a regularized graph kernel is held: ``"dense"`` (n × n) or ``"cg"`` (columns by CG)
GRAPH_SOLVERS = ("dense", "cg")


class KLRPoolStrategy(QueryStrategy):
    """Kernel logistic regression over the pool, refitted with every label; subclasses choose
    the queries (:class:`MaxEntropyKLR` here, :class:`~rlscore.query.klr.aoptimal.AOptimalKLR`).

    The model is the transductive KLR ``β = K_{:L} α`` fitted by the representer Newton of
    :mod:`rlscore.core.klr.newton` (any kernel; docs/mathematics.md §6), warm-started from the
    previous coefficients. A failed fit (:class:`~rlscore.core.klr.newton.KLRConvergenceError`)
    leaves the labels and the model as they were.

    With ``tune="loo"`` the setting in use is ``lam_`` and ``graph_t_`` (the parameters
    ``lam`` and ``graph_t`` until some class has two labels), ``tuning_`` the last
    :class:`~rlscore.core.klr.tuning.KLRTuning`, and ``regime_`` the
    :class:`~rlscore.core.klr.tuning.ConfidenceRegime` of the current model. Tuning t on a
    regularized graph kernel builds its own kernels from the pool (a ``K`` passed to
    ``start`` is not used) and keeps up to four n × n matrices, one per t visited.

    The kernel is held as a kernel of :mod:`rlscore.core.kernels.blocks` (``_K``): an n × n
    matrix, features, or — with ``graph_solver="cg"`` — the columns of ``(I + tL̃)⁻¹`` solved
    by conjugate gradients as the labels and the scored candidates need them.
    """

    _kernel_params = (
        "kernel",
        "sigma",
        "degree",
        "graph_k",
        "graph_t",
        "graph_connect",
        "graph_solver",
        "tune",
    )
    #: what the note of :func:`klr_regime` says this strategy does when the KLR is near uniform
    near_uniform_effect = "its uncertainty ranking then mostly follows graph distance to labels"

    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        self._lam = check_positive(self.lam, "lam")
        known = VECTOR_KERNELS + GRAPH_KERNELS + tuple(GRAPH_ALIASES)
        if self.kernel not in known:
            raise ValueError(f"unknown kernel {self.kernel!r}: choose one of {known}")
        if self.tune not in TUNE_RULES:
            raise ValueError(f"tune must be one of {TUNE_RULES}, got {self.tune!r}")
        solver = self.get_params().get("graph_solver", "dense")
        if solver not in GRAPH_SOLVERS:
            raise ValueError(f"graph_solver must be one of {GRAPH_SOLVERS}, got {solver!r}")
        if solver == "cg" and not self._regularized_graph():
            raise ValueError(
                f"graph_solver='cg' needs a regularized graph kernel {REGULARIZED} (or "
                f"'graph'), got kernel={self.kernel!r}"
            )
        self._t = self._param_t()
        self.tuning_: KLRTuning | None = None
        self._tuned = None  # (labels and codes tuned on, their KLRTuning)
        if self._tunes_t() or solver == "cg":
            # the graph family serves every t (and, with CG, columns on demand)
            family = RegularizedGraphKernels(
                X,
                GRAPH_ALIASES.get(self.kernel, self.kernel),
                k=self.graph_k,
                connect=self.graph_connect,
                solver="cg" if solver == "cg" else "eigh",
            )
            self._K = graph_kernel_at(family, self._t)
        else:
            self._K = self._initial_kernel(X, K)
        T = self.classes_.size
        self._h = 1 if T == 2 else T
        self._L: list[int] = []
        self._codes: list[int] = []
        self._alpha = np.zeros((0, self._h))
        self._set_beta(np.zeros((self.n_pool_, self._h)))
        self._cache: tuple | None = None
        self._K_LL: tuple | None = None  # (kernel, labels, K_LL) of the last Newton fit
        self._exclude: frozenset[int] = frozenset()

    def _param_t(self) -> float | None:
        """The ``graph_t`` parameter (None for a strategy without one)."""
        t = self.get_params().get("graph_t")
        return None if t is None else check_positive(t, "graph_t")

    def _regularized_graph(self) -> bool:
        return GRAPH_ALIASES.get(self.kernel, self.kernel) in REGULARIZED

    def _tunes_t(self) -> bool:
        return self.tune == "loo" and self._regularized_graph()

    def _initial_kernel(self, X: np.ndarray, K: np.ndarray | None):
        """The pool kernel (a kernel of :mod:`rlscore.core.kernels.blocks`) when no graph
        family is used; subclasses may hold it as features."""
        return DenseKernel(K if K is not None else self.pool_kernel(X))

    def pool_kernel(self, X: np.ndarray) -> np.ndarray:
        """The pool kernel from this strategy's kernel parameters (graph components joined
        unless ``graph_connect=False``)."""
        return pool_kernel(
            X,
            self.kernel,
            sigma=self._width(X) or 1.0,
            degree=self.degree,
            graph_k=self.graph_k,
            graph_t=self.graph_t,
            graph_connect=self.graph_connect,
        )

    def needs_pool_kernel(self) -> bool:
        # tuning t, or the CG solver, builds the graph kernels itself from the pool
        return not (self._tunes_t() or self.get_params().get("graph_solver") == "cg")

    def _set_beta(self, beta: np.ndarray) -> None:
        self._beta = beta
        self._P = probabilities(beta)

    def _setting_changed(self, lam: float, t: float) -> bool:
        return (lam, t) != (self._lam, self._t)

    def _tune(self, L: list[int], codes: list[int]) -> KLRTuning | None:
        """The LOO log-loss choice of (t, λ) on the first :func:`tuned_prefix` of these labels
        (None: keep the parameters); the same prefix gives the same choice, not recomputed."""
        if self.tune != "loo" or not L:
            return None
        s = tuned_prefix(len(L))
        key = (tuple(L[:s]), tuple(codes[:s]))
        if self._tuned is not None and self._tuned[0] == key:
            return self._tuned[1]
        tuning = self._tune_on(L[:s], codes[:s]) if s else None
        self._tuned = (key, tuning)
        return tuning

    def _tune_on(self, L: list[int], codes: list[int]) -> KLRTuning | None:
        if self._tunes_t():
            family = self._K.family
            t_grid = T_GRID

            def kernel_LL(t):
                return family.columns(t, L)[L]
        else:
            t_grid = (None,)

            def kernel_LL(t):
                return self._K.block(L, L)

        return tune_klr(kernel_LL, codes, self.classes_.size, t_grid=t_grid, lam_grid=LAM_GRID)

    def _refit(self, L: list[int], codes: list[int], alpha0: np.ndarray) -> None:
        # fit first, commit after: a failed Newton (KLRConvergenceError) leaves the state as
        # it was, and the base class then records nothing either
        tuning = self._tune(L, codes)
        lam = float(self.lam) if tuning is None else tuning.lam
        t = self._param_t() if tuning is None or tuning.t is None else tuning.t
        kern = graph_kernel_at(self._K.family, t) if self._tunes_t() else self._K
        K_LL = None
        if tuning is not None and len(tuning.alpha) == len(L):
            alpha = tuning.alpha  # chosen on all the labels: its fit is this state's
            beta = kern.columns_times(L, alpha)
        elif L:
            if self._setting_changed(lam, t):
                alpha0 = np.zeros_like(alpha0)  # the old coefficients belong to another setting
            T = ova_targets(codes, self.classes_.size, negative=0.0)
            # a feature kernel of rank m < l: Newton's systems by Woodbury on the m features
            phi_L = kern.features[L] if isinstance(kern, FeatureKernel) else None
            K_LL = self._labeled_block(kern, L)
            if phi_L is not None and phi_L.shape[1] < len(L):
                # lazy Newton: its matrix kept while it serves, maybe the last model's factor
                jac = None if self._setting_changed(lam, t) else self._newton_matrix(L, phi_L, lam)
                alpha, _ = newton_features(K_LL, phi_L, T, lam, alpha0=alpha0, jacobian=jac)
            else:
                alpha, _ = newton_representer(K_LL, T, lam, alpha0=alpha0)
            beta = kern.columns_times(L, alpha)
        else:
            alpha, beta = np.zeros((0, self._h)), np.zeros((self.n_pool_, self._h))
        self._K_LL = None if K_LL is None else (kern, L, K_LL)
        self._L, self._codes, self._alpha = L, codes, alpha
        self._lam, self._t, self.tuning_ = lam, t, tuning
        self._K = kern
        self._set_beta(beta)
        self._cache = None

    def _newton_matrix(self, L: list[int], phi_L, lam: float) -> FeatureJacobian | None:
        """Newton's matrix on the features ``phi_L`` for the refit on ``L`` at the warm start,
        when it can be had without a factorisation (:class:`~rlscore.query.klr.
        aoptimal_lowrank.LowRankAOptimalKLR`: from its last posterior); None here (then it is
        made at the warm start)."""
        return None

    def _labeled_block(self, kern, L: list[int]) -> np.ndarray:
        """``K_LL``, grown from the last fit's block when its labels begin ``L`` (a label
        taught: the new rows only, l·m for features instead of l²·m) or shrunk when ``L`` is
        them with one removed; made afresh otherwise (another kernel, another order)."""
        if self._K_LL is None or self._K_LL[0] is not kern or not self._K_LL[1]:
            return kern.block(L, L)
        old, B = self._K_LL[1], self._K_LL[2]
        k = len(old)
        if L[:k] == old:
            new = L[k:]
            if not new:
                return B
            cross = kern.block(old, new)
            return np.block([[B, cross], [cross.T, kern.block(new, new)]])
        if len(L) == k - 1:
            pos = next((j for j in range(len(L)) if L[j] != old[j]), k - 1)
            if old[:pos] + old[pos + 1 :] == L:
                return np.delete(np.delete(B, pos, axis=0), pos, axis=1)
        return kern.block(L, L)

    @property
    def lam_(self) -> float:
        """The λ of the current model (``lam``, or the tuned one)."""
        self._check_started()
        return self._lam

    @property
    def graph_t_(self) -> float | None:
        """The graph-kernel scale of the current model (``graph_t``, or the tuned one)."""
        self._check_started()
        return self._t

    @property
    def regime_(self) -> ConfidenceRegime:
        """How far from uniform the current KLR is on the unlabeled pool."""
        self._check_started()
        return confidence_regime(self.predict_proba()[self._unlabeled()])

    def model_note(self) -> str | None:
        """:func:`klr_regime`'s note for this strategy."""
        return klr_regime(self)

    def _add(self, i: int, c: int) -> None:
        if getattr(self, "_batch", None) is not None:
            self._batch.append((i, c))  # teach_many / a rebuild fit once at the end
            return
        alpha0 = np.vstack([self._alpha, np.zeros((1, self._h))])
        self._refit([*self._L, i], [*self._codes, c], alpha0)

    def teach_many(self, indices, labels) -> None:
        """Teach several labels with one KLR fit (warm-started from the current coefficients)
        instead of one Newton solve per label. All or nothing: if a label is refused or the
        fit fails, the strategy is left as it was and the error raised."""
        self._check_started()
        # the label lists grow in place: keep copies, the rest is replaced, not mutated
        saved = {**self.__dict__, "labeled_": list(self.labeled_), "labels_": list(self.labels_)}
        try:
            self._batch = []
            for i, y in zip(indices, labels, strict=True):
                self.teach(i, y)
            self._fit_batch()
        except Exception:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    def _replay(self, K: np.ndarray | None) -> None:
        """Restart from the pool and the labels (after ``set_params``) with one fit."""
        self._batch = []
        try:
            super()._replay(K)
            self._fit_batch()
        finally:
            self._batch = None

    def _fit_batch(self) -> None:
        """Fit the KLR on the labels taught since the batch began (one refit)."""
        batch, self._batch = self._batch, None
        if batch:
            alpha0 = np.vstack([self._alpha, np.zeros((len(batch), self._h))])
            L = [*self._L, *(i for i, _ in batch)]
            self._refit(L, [*self._codes, *(c for _, c in batch)], alpha0)

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
                Z, self.X_[self._L], kernel=self.kernel, sigma=self.sigma_, degree=self.degree
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
    :class:`~rlscore.query.klr.aoptimal.AOptimalKLR`.
    """

    def __init__(
        self,
        kernel: str = "graph",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 0.1,
        graph_k: int = 6,
        graph_t: float | None = None,
        graph_connect: bool = True,
        tune: str = "none",
        graph_solver: str = "dense",
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.lam = lam
        self.graph_k = graph_k
        self.graph_t = graph_t
        self.graph_connect = graph_connect
        self.tune = tune
        self.graph_solver = graph_solver

    def scores(self) -> np.ndarray:
        self._check_started()
        s = -self._entropy()
        s[self._L] = np.nan
        return s

    def estimated_risk(self) -> float:
        self._check_started()
        U = self._unlabeled()
        return float(np.sum(1.0 - self.predict_proba()[U].max(axis=1)))


def klr_regime(strategy) -> str | None:
    """The note to show beside a KLR strategy whose model is near uniform, else None.

    Near uniform (:func:`rlscore.core.klr.tuning.confidence_regime`): the mean largest class
    probability over the unlabeled pool is less than a quarter of the way from chance (1/T)
    to 1. Returns None for a strategy that is not a started :class:`KLRPoolStrategy`, and
    before every class has a label (the KLR is uniform then by construction).
    """
    if not isinstance(strategy, KLRPoolStrategy) or not hasattr(strategy, "X_"):
        return None
    if len(set(strategy.labels_)) < strategy.classes_.size:
        return None
    regime = strategy.regime_
    if not regime.near_uniform:
        return None
    if strategy.tune == "loo":
        advice = "λ and t are chosen from the labels: more labels make it more confident."
    else:
        advice = (
            "Smaller λ or a larger graph t makes it more confident, or the automatic λ "
            "(tune='loo'), which chooses both from the labels."
        )
    return (
        f"The KLR is near uniform on the unlabeled points (mean largest class probability "
        f"{regime.mean_max_proba:.2f}; chance is {regime.chance:.2f}): "
        f"{strategy.near_uniform_effect}. {advice}"
    )
