"""The weighted one-vs-all RLS state over a pool, shared by every RLS query strategy.

Paskov §3.3 and appendix A.4 (seed ``000``), docs/mathematics.md §5 (dense kernel) and §7
(features). One
strategy family, one state, two implementations of its linear algebra:

* :class:`WeightedRLSStrategy` (this module) — what every implementation keeps with the same
  meaning, and every step that does not depend on how the kernel is held: the loss and error
  weights of the labeled points, the one-vs-all predictions ``m`` on the pool, the skeleton of
  teach / undo / forget / replay, the probabilities, the estimated risk and the predictions;
* :class:`~rlscore.query.rls_state.on_kernel.RLSPoolStrategy` — the state on the n × n pool kernel
``K``
  (posterior covariance ``D = K − V``, or the kernel columns of the labeled points only on
  the low-memory path): ARLS, focused ARLS and the baselines;
* :class:`~rlscore.query.rls_state.on_features.FeaturePoolStrategy` — the state on low-rank features
  Φ (``K = ΦΦᵀ``, an r × r core ``C = I − P`` per group of columns): low-rank ARLS.

The declared state (every implementation sets these in :meth:`WeightedRLSStrategy._start` and
keeps them up to date; nothing else of the family reads an attribute it does not declare):

``_lam`` (float)
    λ > 0, validated.
``_class_weight`` (None, ``"balanced"`` or ndarray (T,))
    ``class_weight`` resolved against ``classes_``
    (:func:`~rlscore.core.rls.class_weights.resolve_class_weight`).
``_W`` (ndarray (T', T))
    Loss weights: ``_W[t, c]`` weighs a class-c label in one-vs-all column t (T' = 1 for
    two classes, else T), by the rule of :mod:`rlscore.core.rls.class_weights`.
``_e`` (ndarray (T,))
    Error weights ``w_l`` of the risk (eq. 3.49).
``_groups`` (list of ndarray)
    Columns sharing one weight vector, hence one covariance
    (:func:`~rlscore.core.rls.class_weights.column_groups`).
``_m`` (ndarray (n, T'))
    RLS predictions on the pool, eq. 3.52.
``_version`` (int)
    Incremented by every change of the state; keys the score caches.
``_scores_cache`` (tuple or None)
    The scores of a version, as each strategy caches them.
``_terms_cache`` (tuple or None)
    :meth:`WeightedRLSStrategy.lookahead_terms` with what they were computed from (``_W`` and
    ``_e`` by identity: they are replaced, never changed in place, when the weights change).

An implementation provides ``_start_state`` (allocate the kernel or the features and the
no-label state), ``_update`` (the rank-one update of a label when the weights do not change),
``_build`` (the state of some labels from scratch) and, if it has a cheaper way than a build,
``_downdate`` (remove one label when the weights do not change).
"""

from __future__ import annotations

import numpy as np

from rlscore.core.conventions.input_validation import check_positive
from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.rls.class_weights import class_weight_table, column_groups, resolve_class_weight
from rlscore.core.rls.confidence import soft_probabilities
from rlscore.query.protocol.strategy import QueryStrategy

#: n-vectors per class a strategy of the family holds at its peak besides its kernel or
#: features: the predictions, the scores and the temporaries of the probabilities, the entropy
#: and the risk (measured with ``tracemalloc`` in tests/test_low_memory.py)
VECTORS_PER_CLASS = 8


class WeightedRLSStrategy(QueryStrategy):
    """Incremental (weighted, one-vs-all) RLS over a pool: the state of the RLS strategies.

    Abstract: see the module docstring for the declared state and the four methods an implementation
    provides (:class:`~rlscore.query.rls_state.on_kernel.RLSPoolStrategy` on the pool kernel,
    :class:`~rlscore.query.rls_state.on_features.FeaturePoolStrategy` on features). Strategies then
    only define :meth:`scores`.

    Parameters
    ----------
    kernel : str
        A kernel name; each implementation says which kernels it takes.
    sigma : float
        RBF width σ, ``k(x, z) = exp(-‖x − z‖²/(2σ²))``.
    degree : int
        Polynomial degree.
    lam : float
        Regularisation λ > 0 in the convention ``(K_LL + λ A⁻¹) c = y`` (docs/mathematics.md §1).
    class_weight : None, "balanced" or dict
        Loss weights of the labeled points (Paskov's ``W^L``), by the rule of
        :mod:`rlscore.core.rls.class_weights` (the same as ``RLSClassifier``). ``"balanced"``
        computes them from the ``l`` labels so far (all 1 until every class has a label): binary
        ``l/(2l₊)``, ``l/(2l₋)``; for T ≥ 3 one-vs-all column t weighs its class ``l/(2l_t)`` and
        the others ``l/(2(l − l_t))``, one covariance per column. The state is rebuilt whenever
        these weights change. A dict maps classes to weights (missing classes get 1), used as given
        in every column.
    bias_corrected : bool or None
        Divide each class's term of the risk by its *error* weight ``w_l`` (eqs. 3.49–3.50):
        ``l/(T·l_l)`` for ``"balanced"`` (binary: the loss weights themselves), the dict's
        weight, else 1 (see :attr:`weights_`). ``None`` means "when ``class_weight`` is set".
    clip : bool
        Clip the probability estimates ``p̂ = (f + 1)/2`` to [0, 1] (default,
        docs/mathematics.md §1). ``False``
        uses Paskov's raw asymptotic estimate; multiclass rows are then not normalised.
    """

    #: whether the state keeps a posterior covariance, updated by rank one per label; without
    #: it every label rebuilds the predictions from the labels (the baselines)
    _keeps_covariance: bool = True
    #: True while :meth:`teach_many` or a replay teaches labels that one build will follow
    _replaying: bool = False
    #: :meth:`lookahead_terms` with what they were computed from (they change only with the
    #: weights, and every ARLS query asks for them)
    _terms_cache: tuple | None = None

    # the declared state (module docstring)
    _lam: float
    _class_weight: None | str | np.ndarray
    _W: np.ndarray | None
    _e: np.ndarray
    _groups: list[np.ndarray]
    _m: np.ndarray
    _version: int
    _scores_cache: tuple | None

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 1.0,
        class_weight=None,
        bias_corrected: bool | None = None,
        clip: bool = True,
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.lam = lam
        self.class_weight = class_weight
        self.bias_corrected = bias_corrected
        self.clip = clip

    # -- to implement ----------------------------------------------------------------------
    def _start_state(self, X: np.ndarray, K: np.ndarray | None) -> None:
        """Validate the implementation's parameters, check the memory, and allocate the
        kernel or the features and the state of no label (weights and ``_m`` are set)."""
        raise NotImplementedError

    def _update(self, i: int, c: int) -> None:
        """Teach class position ``c`` at point ``i`` by a rank-one update of ``_m`` and the
        covariance of every group (the weights did not change)."""
        raise NotImplementedError

    def _build(self, labeled, classes) -> None:
        """The state (``_m`` and the covariances) of the points ``labeled`` with class
        positions ``classes``, from scratch, with the current weights."""
        raise NotImplementedError

    def _downdate(self, pos: int, classes: list[int], rest: list[int], rest_classes) -> None:
        """Remove the label at ``pos`` (teaching order; ``classes`` those of every label,
        ``rest``/``rest_classes`` the others) when the weights did not change: a build of the
        others unless the implementation has a cheaper update."""
        self._build(rest, rest_classes)

    # -- state -----------------------------------------------------------------------------
    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        n, T = X.shape[0], self.classes_.size
        self._lam = check_positive(self.lam, "lam")
        self._class_weight = resolve_class_weight(self.class_weight, self.classes_)
        self._W = None  # no weights yet (a restart must not compare with the old ones)
        self._set_weights([])
        self._m = np.zeros((n, 1 if T == 2 else T))
        self._start_state(X, K)
        self._version = 0
        self._scores_cache = None

    def _weights_for(self, classes) -> tuple[np.ndarray, np.ndarray]:
        """Loss weights (T', T) and error weights (T,) for the labeled classes (positions)."""
        T = self.classes_.size
        counts = np.bincount(np.asarray(classes, dtype=np.intp), minlength=T)
        cw = self._class_weight
        if isinstance(cw, str) and (counts == 0).any():
            cw = None  # balanced weights start once every class has a label
        return class_weight_table(counts, cw)

    def _set_weights(self, classes) -> bool:
        """Set the weights for ``classes``; whether they changed (then the state needs a build)."""
        W, e = self._weights_for(classes)
        if self._W is not None and np.array_equal(W, self._W) and np.array_equal(e, self._e):
            return False
        self._W, self._e = W, e
        self._groups = column_groups(W)
        return True

    def _label_positions(self) -> list[int]:
        return [self.class_index(y) for y in self.labels_]

    # -- labels ----------------------------------------------------------------------------
    def teach_many(self, indices, labels) -> None:
        """Teach several labels with one build of the state, instead of one update per label
        (and, with ``"balanced"`` weights, one build per label). Use it to replay a session.
        If a label is refused, the ones before it stay taught."""
        self._replaying = True
        try:
            for i, y in zip(indices, labels, strict=True):
                self.teach(i, y)
        finally:
            self._replaying = False
            self._build_from_labels()

    def _replay(self, K: np.ndarray | None) -> None:
        """Restart from the pool and the labels (after ``set_params``) with one build."""
        labeled, labels = list(self.labeled_), list(self.labels_)
        self.start(self.X_, self.classes_, K=K)
        self.teach_many(labeled, labels)

    def _build_from_labels(self) -> None:
        classes = self._label_positions()
        self._set_weights(classes)
        self._build(list(self.labeled_), classes)
        self._version += 1

    def _add(self, i: int, c: int) -> None:
        if self._replaying:
            return  # teach_many / a replay build the state once at the end
        classes = [*self._label_positions(), c]
        if self._set_weights(classes) or not self._keeps_covariance:
            self._build([*self.labeled_, i], classes)
        else:
            self._update(i, c)
        self._version += 1

    def _remove(self, pos: int) -> None:
        classes = self._label_positions()
        rest = self.labeled_[:pos] + self.labeled_[pos + 1 :]
        rest_classes = classes[:pos] + classes[pos + 1 :]
        if self._set_weights(rest_classes) or not self._keeps_covariance:
            self._build(rest, rest_classes)
        else:
            self._downdate(pos, classes, rest, rest_classes)
        self._version += 1

    # -- public state ----------------------------------------------------------------------
    @property
    def weights_(self) -> np.ndarray:
        """Current per-class weights ``w_l`` of the risk (eq. 3.49), in ``classes_`` order.

        These are the error weights of :mod:`rlscore.core.rls.class_weights`: the loss weights
        themselves without weights, with a dict and for two classes; ``l/(T·l_c)`` for
        balanced multiclass weights, whose loss weights differ per column
        (:attr:`loss_weights_`).
        """
        return self._e.copy()

    @property
    def loss_weights_(self) -> np.ndarray:
        """Current loss weights, (T', T): entry ``[t, c]`` weighs a class-c label in column t."""
        return self._W.copy()

    @property
    def m_(self) -> np.ndarray:
        """RLS predictions on the pool, (n, 1) binary or (n, T) one-vs-all (eq. 3.52)."""
        return self._m.copy()

    def decision_function(self) -> np.ndarray:
        self._check_started()
        return self._m[:, 0].copy() if self._m.shape[1] == 1 else self._m.copy()

    def decision_function_at(self, Z) -> np.ndarray:
        """Decision values on new points ``Z``: (n_z,) binary, (n_z, T) one-vs-all."""
        raise NotImplementedError

    def predict_at(self, Z) -> np.ndarray:
        """Predicted classes of new points ``Z``."""
        f = self.decision_function_at(Z)
        if f.ndim == 1:
            return self.classes_[(f > 0).astype(int)]
        return self.classes_[np.argmax(f, axis=1)]

    # -- risk ------------------------------------------------------------------------------
    def _risk_weights(self) -> np.ndarray:
        """``1/w_l`` when the risk is bias-corrected (eq. 3.49), else ones."""
        corrected = self.bias_corrected
        if corrected is None:
            corrected = self.class_weight is not None
        return 1.0 / self._e if corrected else np.ones_like(self._e)

    def class_probabilities(self) -> np.ndarray:
        """``p̂(c | x)`` on the pool used by the risk, (n, T): clipped and normalised
        (:meth:`predict_proba`), or Paskov's raw ``(f + 1)/2`` when ``clip=False``."""
        if self.clip:
            return self.predict_proba()
        return unclipped_probabilities(self.decision_function())

    def class_probabilities_at(self, idx: np.ndarray) -> np.ndarray:
        """:meth:`class_probabilities` at the pool points ``idx`` only, (b, T): made row by row,
        so the same values without the whole pool's."""
        f = self._m[idx]
        if f.shape[1] == 1:
            f = f[:, 0]
        return soft_probabilities(f) if self.clip else unclipped_probabilities(f)

    def estimated_risk(self) -> float:
        """``R̂(f) = Σ_z Σ_l p̂(l|z)/w_l δ(l, ĉ_z)`` of the current classifier (eqs. 3.47, 3.49)."""
        self._check_started()
        F = self._m.T[None].copy()  # (1, T', n)
        if F.shape[1] == 1:
            F = F[:, 0]
        return float(pool_risk(F, self._risk_weights(), clip=self.clip)[0])

    def lookahead_terms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What ARLS's lookahead needs of the state besides the covariance rows
        (docs/mathematics.md §5).

        Returns
        -------
        inv_w : ndarray (T,)
            ``1/w_y`` of the risk (:meth:`_risk_weights`).
        lam_w : ndarray (T', T)
            ``λ/a_t(y)``: the noise term of ``s_i`` per column and label.
        targets : ndarray (T, T')
            One-vs-all targets of each label.
        group_of : ndarray (T',)
            The group (covariance) of each one-vs-all column.
        """
        # what the terms depend on: the weights arrays (replaced, never changed in place, when
        # the weights change), λ and the parameters of the risk weights
        key = (self._W, self._e, self._m.shape[1], self._lam, self.bias_corrected)
        key += (self.class_weight is None,)
        cached = self._terms_cache
        if cached is not None and cached[0][0] is key[0] and cached[0][1] is key[1]:
            if cached[0][2:] == key[2:]:
                return cached[1]
        T, Tm = self.classes_.size, self._m.shape[1]
        group_of = np.empty(Tm, dtype=np.intp)
        for g, cols in enumerate(self._groups):
            group_of[cols] = g
        terms = (self._risk_weights(), self._lam / self._W, ova_targets(np.arange(T), T), group_of)
        for a in terms:
            a.flags.writeable = False  # shared by every query of these weights
        self._terms_cache = (key, terms)
        return terms


def unclipped_probabilities(f: np.ndarray) -> np.ndarray:
    """Paskov's raw ``p̂ = (f + 1)/2`` of decision values, (n, T): per one-vs-all column of
    ``f`` (n, T), or ``[(1 − f)/2, (1 + f)/2]`` for a binary ``f`` (n,)."""
    if f.ndim == 1:
        return np.column_stack([(1.0 - f) / 2.0, (1.0 + f) / 2.0])
    return (f + 1.0) / 2.0


def pool_risk(
    F: np.ndarray, inv_w: np.ndarray, *, clip: bool = True, halved: bool = False
) -> np.ndarray:
    """Estimated risk ``Σ_z Σ_{l ≠ ĉ_z} p̂(l|z)/w_l`` of each row of classifiers (eq. 3.49).

    Parameters
    ----------
    F : ndarray (b, n) binary or (b, T, n) one-vs-all
        Decision values of ``b`` classifiers on the pool; **overwritten**.
    inv_w : ndarray (T,)
        ``1/w_l`` per class (ones for the unweighted risk 3.47).
    clip : bool
        ``p̂ = clip((f+1)/2, 0, 1)`` normalised per point (docs/mathematics.md §5), or raw
        ``(f+1)/2``.
    halved : bool
        Multiclass only: ``F`` already holds ``(f + 1)/2`` (saves two passes).

    Returns
    -------
    ndarray (b,)
    """
    if F.ndim == 2:
        # binary: p̂(-) = (1-f)/2, p̂(+) = (1+f)/2; ĉ = +1 iff f > 0; the error term is
        # (1 - |f|)/2 (floored at 0 when clipped) times 1/w of the class not predicted
        n = F.shape[1]
        weighted = inv_w[0] != inv_w[1]
        positive = F > 0 if weighted else None
        np.abs(F, out=F)
        if clip:
            np.minimum(F, 1.0, out=F)
        if not weighted:
            return inv_w[0] * 0.5 * (n - F.sum(axis=1))
        np.subtract(1.0, F, out=F)
        total = F.sum(axis=1)
        np.multiply(F, positive, out=F)
        return 0.5 * (inv_w[1] * total + (inv_w[0] - inv_w[1]) * F.sum(axis=1))
    T = F.shape[1]
    if not halved:
        F += 1.0
        F *= 0.5
    weighted = inv_w.min() != inv_w.max()
    # the winner ĉ = argmax_t F (first class on ties) and its p̂ (p̂ is increasing in f), by a
    # loop over the few classes: numpy's argmax along a short middle axis is several times
    # slower; the unweighted risk needs only the largest p̂, not ĉ
    best = np.maximum(F[:, 0], F[:, 1])
    winner = np.zeros(best.shape, dtype=np.intp) if weighted else None
    if weighted:
        winner[F[:, 1] > F[:, 0]] = 1
    for t in range(2, T):
        if weighted:
            np.copyto(winner, t, where=F[:, t] > best)
        np.maximum(best, F[:, t], out=best)
    if clip:
        np.clip(F, 0.0, 1.0, out=F)
        np.clip(best, 0.0, 1.0, out=best)
    total = F.sum(axis=1)
    if weighted:
        errors = np.tensordot(inv_w, F, axes=(0, 1)) - best * inv_w[winner]
    else:
        errors = (total - best) * inv_w[0]
    if not clip:
        return errors.sum(axis=1)
    # all-clipped points get the uniform p̂ = 1/T
    if weighted:
        uniform = (inv_w.sum() - inv_w[winner]) / T
    else:
        uniform = np.full_like(errors, inv_w[0] * (T - 1) / T)
    risk = np.divide(errors, total, out=uniform, where=total > 0.0)
    return risk.sum(axis=1)


__all__ = ["VECTORS_PER_CLASS", "WeightedRLSStrategy", "pool_risk", "unclipped_probabilities"]
