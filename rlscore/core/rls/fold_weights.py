"""Exact leave-one-out with balanced class weights recomputed without the left-out point.

Balanced class weights depend on the class counts (:mod:`rlscore.core.rls.class_weights`), so
the classifier refitted without point i has other weights than the full fit: the weights of
the side of an OvA column that lost i go up. The fixed-weight LOO formula of
:class:`~rlscore.core.rls.path.RLSPath` keeps the full-data weights, i's label leaks into them
and the LOO model under-weights i's own class (with an offset it can anti-learn:
docs/mathematics.md §3, "Exact leave-one-out with balanced weights").

Each balanced OvA column's weights depend only on the numbers of points on its two sides, so
the refit without any positive of column t has one and the same weight vector, and so has the
refit without any negative: two fixed-weight configurations per column. Deleting i from a
fixed-weight RLS is setting its weight to 0 whatever that weight was, so the exact LOO formula
of the configuration of i's side is the LOO value of the honest refit. :class:`FoldWeightedPath`
is the model's path (the full-data fit, its λ grid and variances) whose LOO values, LOO errors
and λ search read one extra :class:`~rlscore.core.rls.path.RLSPath` holding the 2T'
configurations as columns.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rlscore.core.rls.class_weights import class_weight_table
from rlscore.core.rls.path import RLSPath


def fold_class_weights(counts) -> tuple[np.ndarray, np.ndarray]:
    """Balanced loss weights per OvA column and class of the refits without one point.

    Parameters
    ----------
    counts
        (T,) number of points of each class (T ≥ 2, every count > 0).

    Returns
    -------
    (W_pos, W_neg)
        (T', T) each, as ``W`` of :func:`~rlscore.core.rls.class_weights.class_weight_table`:
        row t of ``W_pos`` holds column t's weights once one of its positives is left out,
        row t of ``W_neg`` once one of its negatives is. A side holding a single point keeps
        the full-data row: without that point the column has one side only, and the refit
        would not be a classifier of the same classes.
    """
    counts = np.asarray(counts, dtype=np.int64)
    T = counts.size
    W, _ = class_weight_table(counts, "balanced")
    W_pos, W_neg = W.copy(), W.copy()
    positive = [1] if T == 2 else range(T)  # the positive class of each OvA column
    for t, p in enumerate(positive):
        n_pos = int(counts[p])
        n_neg = int(counts.sum()) - n_pos
        # the rule weighs a column by its two sides' totals (the binary rule of the counts
        # (negatives, positives)): recount the side that lost the point, whatever its class
        for rows, sides in ((W_pos, (n_neg, n_pos - 1)), (W_neg, (n_neg - 1, n_pos))):
            if min(sides) > 0:
                neg_w, pos_w = class_weight_table(sides, "balanced")[0][0]
                rows[t] = np.where(np.arange(T) == p, pos_w, neg_w)
    return W_pos, W_neg


def balanced_fold_weights(A: np.ndarray, y_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A classifier's loss weights ``A`` (balanced class weights times any sample weights) in
    the refits without one positive and without one negative of each OvA column.

    Parameters
    ----------
    A
        (n, T') the full fit's loss weights.
    y_index
        (n,) class position of each point.

    Returns
    -------
    (A_pos, A_neg)
        (n, T') each: ``A`` with each point's class weight replaced by its fold's
        (:func:`fold_class_weights`); sample weights multiply in as in the full fit.
    """
    counts = np.bincount(y_index, minlength=max(2, A.shape[1]))
    W, _ = class_weight_table(counts, "balanced")
    W_pos, W_neg = fold_class_weights(counts)
    return A * (W_pos / W)[:, y_index].T, A * (W_neg / W)[:, y_index].T


class FoldWeightedPath(RLSPath):
    """The model's :class:`~rlscore.core.rls.path.RLSPath` with per-fold balanced weights in
    its leave-one-out values.

    The solution (coefficients, offsets, fitted values), the λ grid, the predictive
    variances, GACV and the LOO bound are the model's, with the full-data weights; the LOO
    values, LOO variances, LOO squared and classification errors (hence :meth:`curve` and
    :meth:`best_loo_lam`) are those of the refits without each point, class weights
    recomputed (:func:`fold_class_weights`).

    Parameters
    ----------
    model
        The path of the full fit: balanced weights (times any sample weights) in ``model.A``.
    fold_weights
        ``(A_pos, A_neg)``, (n, T') each: every point's loss weights in the refit without one
        positive, and without one negative, of each column (:func:`balanced_fold_weights`,
        :func:`rlscore.core.rls.multilabel.fold_label_weights`).
    build
        ``build(Y, A)`` → the :class:`RLSPath` of the same kernel (or features) and offset
        for targets ``Y`` and loss weights ``A``.

    Notes
    -----
    Costs one extra path over 2T' weight vectors: two decompositions per OvA column besides the
    model's, and twice the model's per-λ LOO cost.
    """

    def __init__(
        self,
        model: RLSPath,
        fold_weights: tuple[np.ndarray, np.ndarray],
        build: Callable[[np.ndarray, np.ndarray], RLSPath],
    ) -> None:
        # share the model's state (decompositions, targets, weights): a path of its own
        # would decompose the kernel again for nothing
        vars(self).update(vars(model))
        A_pos, A_neg = fold_weights
        self.folds = build(np.hstack([self.Y, self.Y]), np.hstack([A_pos, A_neg]))
        self._positive = self.Y > 0

    def _merge(self, values: np.ndarray) -> np.ndarray:
        """(n, T, L) each point's value from the configuration of its side of each column,
        out of (n, 2T, L) (left-out positive columns first)."""
        T = self.T
        return np.where(self._positive[:, :, None], values[:, :T], values[:, T:])

    def _loo_block(self, lams: np.ndarray) -> np.ndarray:
        return self._merge(self.folds._loo_block(lams))

    def _solve_block(self, lams: np.ndarray, with_variance: bool = False) -> dict:
        out = super()._solve_block(lams, with_variance)
        if not with_variance:
            out["loo"] = self._loo_block(lams)
            return out
        fold = self.folds._solve_block(lams, with_variance=True)
        out["loo"] = self._merge(fold["loo"])
        out["loo_variance"] = self._merge(fold["loo_variance"])
        return out


__all__ = ["FoldWeightedPath", "balanced_fold_weights", "fold_class_weights"]
