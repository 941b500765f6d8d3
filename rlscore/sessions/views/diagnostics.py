"""What a session shows besides the next query: its histories along the labeling path.

The history's prediction change feeds the stopping indicator
(:func:`~rlscore.sessions.stopping.prediction_change.stopping_report`).

The histories are kept along the *labeling path*, one entry per number of labels: entry ``n``
is the state with ``n`` labels. A new label appends an entry; an undo drops the last one and
recomputes the entry it returns to, so the entries before stay valid (undo reverts events in
the reverse order they were given, so the path back is the path that was walked).

The **validation error** is :mod:`rlscore.core.evaluation.validation_error`' one definition: the
session has no held-out split, so it is measured on the pool points that are not labeled. A
multi-label project's predictions are label sets, coded by :func:`label_set_codes`; its
validation error is the share of unlabeled points whose predicted set is not their true set
(:func:`set_validation_errors`), and it has no balanced error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from rlscore.core.conventions.label_sets import multi_hot
from rlscore.core.conventions.missing_labels import unlabeled_mask
from rlscore.core.evaluation.validation_error import label_codes, validation_errors
from rlscore.core.rls.confidence import predicted_index
from rlscore.query import QueryStrategy


def class_codes(pred: np.ndarray, classes: Sequence) -> np.ndarray:
    """Positions of the predicted classes in ``classes``, in the smallest integer type
    (a pool of n points costs n bytes per history entry with up to 255 classes)."""
    position = {c: k for k, c in enumerate(classes)}
    dtype = np.min_scalar_type(max(len(classes) - 1, 0))
    # per click on the whole pool: each distinct class looked up once, not each point
    codes, distinct = label_codes(np.asarray(pred))
    return np.fromiter((position[v] for v in distinct), dtype=dtype, count=len(distinct))[codes]


def pool_validation_errors(
    truth: np.ndarray, pred: np.ndarray, labeled
) -> tuple[float | None, float | None]:
    """``(error, balanced error)`` of the pool predictions on the unlabeled points."""
    mask = unlabeled_mask(truth.size, labeled)
    return validation_errors(truth[mask], np.asarray(pred)[mask])


def predicts_by_decision_rule(engine: QueryStrategy) -> bool:
    """Whether ``engine`` predicts by the base rule on its decision values (the class of
    ``predicted_index``, probabilities ``soft_probabilities``): then a prediction follows from
    the decision values alone, without building the pool's predictions."""
    kind = type(engine)
    return (
        getattr(kind, "predict", None) is QueryStrategy.predict
        and getattr(kind, "predict_proba", None) is QueryStrategy.predict_proba
    )


class PoolPredictions(Protocol):
    """The predicted classes of a pool held elsewhere, as the state that makes them (e.g.
    :class:`~rlscore.query.cluster.block_passes.BlockPredictions`): what :class:`History` keeps per
    label for an engine that offers ``pool_predictions()`` instead of n codes."""

    size: int

    def count_changed(self, former: PoolPredictions) -> int:
        """Points whose predicted class differs between ``former`` and this state."""
        ...


def predicted_codes(engine: QueryStrategy, classes: Sequence) -> np.ndarray | PoolPredictions:
    """The pool's predicted classes as :class:`History` records them: :func:`class_codes` of
    ``engine.predict()`` in ``classes``, or, for an engine whose pool lives elsewhere (one
    that offers ``pool_predictions()``, e.g.
    :meth:`~rlscore.sessions.cluster.engine.ClusterEngine.pool_predictions`), the state that
    makes them (:class:`PoolPredictions`): the history then counts the changed predictions
    where the pool is, and no n-vector reaches this process (the class order plays no part
    in which points changed).

    The codes are computed from the class positions when the engine predicts by the base
    rule: the T classes are coded once and indexed by each point's
    ``predicted_index(engine.decision_function())``, so no (n,) array of labels is built and
    hashed per click.
    """
    # an optional method rather than a QueryStrategy hook: only an engine whose pool is
    # elsewhere needs it, and the history is its one whole-pool reader
    elsewhere = getattr(engine, "pool_predictions", None)
    if elsewhere is not None:
        return elsewhere()
    if not predicts_by_decision_rule(engine):
        return class_codes(np.asarray(engine.predict()), classes)
    lookup = class_codes(engine.classes_, classes)
    return lookup[predicted_index(engine.decision_function())]


def truth_codes(truth: np.ndarray, classes: Sequence) -> np.ndarray:
    """Positions of the true labels in ``classes`` (as :func:`class_codes`), a label that is
    none of the classes coded ``len(classes)``, ``len(classes) + 1``, … (labels compared as Python
    compares them, as :func:`~rlscore.core.evaluation.validation_error.validation_errors` does);
    computed
    once per pool, so a click codes no labels."""
    codes, distinct = label_codes(np.asarray(truth))
    position = {c: k for k, c in enumerate(classes)}
    for v in distinct:
        position.setdefault(v, len(position))
    return np.array([position[v] for v in distinct], dtype=np.intp)[codes]


def label_set_codes(member: np.ndarray) -> np.ndarray:
    """(n,) codes of a multi-label pool's label sets, from their (n, L) membership (True
    where the class is in the set): each row's bits packed into one scalar, so two codes are
    equal exactly when the sets are — what :class:`History` compares, at ⌈L / 8⌉ bytes a
    point."""
    packed = np.ascontiguousarray(np.packbits(np.asarray(member, dtype=bool), axis=1))
    return packed.view(np.dtype((np.void, packed.shape[1]))).ravel()


def predicted_set_codes(engine: QueryStrategy) -> np.ndarray:
    """:func:`label_set_codes` of a multi-label engine's predicted sets: the classes whose
    decision value is > 0 (the rule of :func:`~rlscore.query.predicted_sets`), without
    building a tuple per point."""
    return label_set_codes(np.asarray(engine.decision_function()) > 0)


def truth_set_codes(truth: np.ndarray, classes: Sequence) -> np.ndarray:
    """:func:`label_set_codes` of a multi-label project's true label sets."""
    return label_set_codes(multi_hot(truth, classes) > 0.5)


def set_validation_errors(
    truth: np.ndarray, pred: np.ndarray, labeled
) -> tuple[float | None, None]:
    """``(error, None)`` of a multi-label pool from :func:`label_set_codes`: the share of the
    unlabeled points whose predicted set is not exactly their true set (subset 0/1 error); a
    balanced error of sets is not defined (None)."""
    mask = unlabeled_mask(truth.size, labeled)
    if not mask.any():
        return None, None
    return float(np.mean(truth[mask] != pred[mask])), None


def coded_validation_errors(
    truth: np.ndarray, pred: np.ndarray, labeled
) -> tuple[float | None, float | None]:
    """:func:`pool_validation_errors` from codes: ``truth`` from :func:`truth_codes`, ``pred``
    from :func:`predicted_codes` (the same ``classes``); equal to it bit for bit."""
    mask = unlabeled_mask(truth.size, labeled)
    t, p = truth[mask], pred[mask]
    if t.size == 0:
        return None, None
    wrong = t != p
    n_true = np.bincount(t)
    missed = np.bincount(t, weights=wrong, minlength=n_true.size)
    # the recalls averaged in the order validation_errors takes them (classes by first
    # appearance in the truth): a mean in another order may differ in the last bit
    first = np.full(n_true.size, t.size)
    np.minimum.at(first, t, np.arange(t.size))
    present = np.flatnonzero(n_true)
    order = present[np.argsort(first[present], kind="stable")]
    recall = 1.0 - missed[order] / n_true[order]
    return float(wrong.mean()), float(1.0 - recall.mean())


class History:
    """The figures of a session along its labeling path (entry n: the state with n labels).

    The predicted classes on the pool are kept for the stopping indicator's prediction change
    as the latest entry's codes plus, per earlier entry, what differed from the next one:
    the positions that changed and their former codes, or the whole former array when that is
    smaller. A settled session's predictions change on few points per label, so a long
    session on a large pool costs the app server about n bytes plus the changes, not
    n bytes per label. When :func:`predicted_codes` gives :class:`PoolPredictions` (a pool
    held elsewhere), each entry keeps that state instead (O(r T') numbers, whatever n), and
    the changes are counted where the pool is: the same figures, no n-vector here. (Such a
    pool has no truth on this server — a cluster-backed project stores none — so no
    validation errors are computed from it.)
    """

    def __init__(self) -> None:
        self.risk: list[float] = []
        self.validation: list[float | None] = []
        self.balanced_validation: list[float | None] = []
        self.change: list[float | None] = []
        self._codes: np.ndarray | None = None  # the latest entry's predicted class positions
        # entry k + 1 -> entry k: (positions, their codes at k), or (None, all codes at k)
        self._undo: list[tuple[np.ndarray | None, np.ndarray]] = []
        # a pool held elsewhere: each entry's state (None: an entry not recorded)
        self._states: list[PoolPredictions | None] | None = None
        self._window_change: tuple | None = None  # (latest state, window, change)

    def record(
        self,
        n_labeled: int,
        risk: float,
        codes: np.ndarray | PoolPredictions,
        errors: tuple[float | None, float | None] | None,
    ) -> None:
        """Set entry ``n_labeled`` (dropping any later ones): the estimated ``risk``, the
        predicted class ``codes`` on the pool (or their :class:`PoolPredictions`) and the
        validation ``errors`` (None: no truth)."""
        for entries in (self.risk, self.validation, self.balanced_validation, self.change):
            del entries[n_labeled:]
        if hasattr(codes, "count_changed"):
            self._record_elsewhere(n_labeled, codes)
        else:
            self._record_codes(n_labeled, codes)
        self.risk.append(float(risk))
        if errors is not None:
            self.validation.append(errors[0])
            self.balanced_validation.append(errors[1])

    def _record_elsewhere(self, n_labeled: int, state: PoolPredictions) -> None:
        """Entry ``n_labeled``'s predictions as the state that makes them; its change from
        entry ``n_labeled − 1`` counted where the pool is."""
        self._codes, self._undo = None, []
        states = [] if self._states is None or n_labeled == 0 else self._states[:n_labeled]
        states += [None] * (n_labeled - len(states))  # entries never recorded
        prev = states[-1] if states else None
        self.change.append(None if prev is None else state.count_changed(prev) / state.size)
        self._states = [*states, state]

    def _record_codes(self, n_labeled: int, codes: np.ndarray) -> None:
        """Entry ``n_labeled``'s predicted class codes (the latest array and the changes)."""
        self._states = None
        if n_labeled == 0:
            prev, self._codes, self._undo = None, None, []
        else:
            prev = self._rewind(n_labeled - 1)
            if prev is None and self._codes is not None:  # entries missing before this one
                self._undo.append((None, self._codes))
        codes = np.array(codes, copy=True)  # kept and rewound in place: not the caller's
        if prev is None:
            self.change.append(None)
        else:
            changed = np.flatnonzero(codes != prev)
            self.change.append(changed.size / codes.size)
            positions = changed.astype(np.min_scalar_type(max(codes.size - 1, 0)))
            sparse_bytes = positions.nbytes + changed.size * prev.itemsize
            self._undo.append(
                (positions, prev[changed]) if sparse_bytes < prev.nbytes else (None, prev)
            )
        self._codes = codes

    def prediction_change(self, window: int) -> float | None:
        """Fraction of pool points whose predicted class changed over the last ``window``
        labels; None with fewer labels than that."""
        n = self._n_entries() - 1
        if n < window or window < 1:
            return None
        if self._states is None:
            return float(np.mean(self._codes != self._codes_at(n - window)))
        latest, former = self._states[n], self._states[n - window]
        if former is None:
            return None
        cached = self._window_change
        if cached is None or cached[0] is not latest or cached[1] != window:
            # one pass where the pool is; the stopping panel asks again on every render
            change = latest.count_changed(former) / latest.size
            self._window_change = cached = (latest, window, change)
        return cached[2]

    def _n_entries(self) -> int:
        if self._states is not None:
            return len(self._states)
        return 0 if self._codes is None else len(self._undo) + 1

    def _codes_at(self, k: int) -> np.ndarray:
        """The codes of entry ``k`` (a copy), from the latest by the recorded differences."""
        codes = self._codes.copy()
        for positions, former in reversed(self._undo[k:]):
            if positions is None:
                codes = former.copy()
            else:
                codes[positions] = former
        return codes

    def _rewind(self, k: int) -> np.ndarray | None:
        """Make entry ``k`` the latest (dropping later ones) and return its codes; None if
        there is no entry ``k``."""
        if not 0 <= k < self._n_entries():
            return None
        while len(self._undo) > k:
            positions, former = self._undo.pop()
            if positions is None:
                self._codes = former
            else:
                self._codes[positions] = former
        return self._codes


__all__ = [
    "History",
    "PoolPredictions",
    "class_codes",
    "coded_validation_errors",
    "pool_validation_errors",
    "predicted_codes",
    "predicts_by_decision_rule",
    "label_set_codes",
    "predicted_set_codes",
    "set_validation_errors",
    "truth_set_codes",
    "truth_codes",
]
