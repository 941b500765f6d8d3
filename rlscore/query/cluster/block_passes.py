"""The passes on one block of a pool held as row blocks of features by other processes (a
cluster), and the predictions state the changed predictions pass compares.

The strategies on low-rank features (docs/mathematics.md §7) touch the whole pool only through
sums and top-k's over its rows, with one small state shared by every row: the primal
coefficients ``w`` (r × T') and the r × r core ``C`` per group of one-vs-all columns
(:mod:`~rlscore.query.rls_state.on_features`). So a pool split into blocks of rows is queried by
sending that state to every block and combining what each returns. Each pass here is a function
``fn(Φ_b, offset_b, *args)`` run where the block lives (:data:`MapBlocks`):

* the *summary pass* (:func:`block_summary`): the block's predictions ``m = Φ_p w``, its
  part of the estimated risk (eq. 3.49, a sum over points) and its ``k`` best rows by the
  strategy's score (smallest margin, largest entropy);
* the *rows pass* (:func:`block_rows`): the features of a few given rows (labeled points,
  ARLS's candidates);
* the *predictions pass* (:func:`block_decisions`): ``Φ_p w + b`` of every row;
* the *predicted classes pass* (:func:`block_predicted_positions`): each row's predicted
  class position, one byte a row with up to 256 classes;
* the *changed predictions pass* (:func:`block_changed`): how many rows two states of the
  classifier predict differently — what a session's history reads of the whole pool
  (:class:`BlockPredictions`: a state kept per label, not n codes);
* the *density passes* (:func:`block_extent`, :func:`block_histogram`): the block's rows
  projected to 2-D by a given affine map, their extent, then their counts on a grid — the
  pool plot's density layer, of which only the grid reaches the client.

The lookahead pass of ARLS is :mod:`~rlscore.query.cluster.block_lookahead`; the client that
runs the passes and finishes the query is :class:`~rlscore.query.cluster.block_query.BlockQuery`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import numpy as np

from rlscore.core.rls.confidence import margin, predicted_index, soft_probabilities
from rlscore.query.arls.focused import smallest
from rlscore.query.baselines.uncertainty_scores import entropy
from rlscore.query.rls_state.weighted import pool_risk

#: how the client runs a pass: ``map_blocks(fn, *args)`` returns ``[fn(Φ_b, offset_b, *args)
#: for every block b]`` in block order
MapBlocks = Callable[..., list]


# -- passes on one block (run where the block lives) -----------------------------------------
def base_rule_scores(m: np.ndarray) -> np.ndarray:
    """Predictions ``m`` (p, T') as the base rule reads decision values: one column (two
    classes) as the vector of ``f`` (p,), several as they are."""
    return m[:, 0] if m.shape[1] == 1 else m


def block_predictions(
    features: np.ndarray, coef: np.ndarray, intercept: np.ndarray | None = None
) -> np.ndarray:
    """``m = Φ_p w + b`` of a block, (p, T') (``intercept`` b: focused ARLS's offsets, None
    for none)."""
    m = features @ coef
    if intercept is not None:
        m += intercept
    return m


def block_decisions(
    features: np.ndarray, offset: int, coef: np.ndarray, intercept: np.ndarray | None = None
) -> np.ndarray:
    """The rows pass of the predictions: ``Φ_p w + b`` of a block, (p, T') (``offset``
    unused)."""
    return block_predictions(features, coef, intercept)


def block_predicted_positions(
    features: np.ndarray,
    offset: int,
    coef: np.ndarray,
    intercept: np.ndarray | None,
    lookup: np.ndarray,
) -> np.ndarray:
    """The predicted classes pass: ``lookup[predicted_index(f)]`` per row of a block, (p,) in
    ``lookup``'s dtype, with ``f = Φ_p w + b`` as the client's decision values (one column:
    the two-class sign rule, ``f > 0``; several: the first largest). ``offset`` unused."""
    return lookup[predicted_index(base_rule_scores(block_predictions(features, coef, intercept)))]


def block_changed(
    features: np.ndarray,
    offset: int,
    coef: np.ndarray,
    intercept: np.ndarray | None,
    former_coef: np.ndarray,
    former_intercept: np.ndarray | None,
) -> int:
    """The changed predictions pass: how many rows of a block the classifier ``Φ w + b``
    predicts another class for than the classifier ``Φ w' + b'`` (``former_…``), each by the
    rule of :func:`block_predicted_positions`. ``offset`` unused."""
    now = predicted_index(base_rule_scores(block_predictions(features, coef, intercept)))
    former = block_predictions(features, former_coef, former_intercept)
    before = predicted_index(base_rule_scores(former))
    return int(np.count_nonzero(now != before))


class BlockPredictions:
    """The pool's predicted classes under one state of a
    :class:`~rlscore.query.cluster.block_query.BlockQuery`, held as that state — the primal
    coefficients ``w`` (r × T') and offsets ``b`` — not as n codes: the classes are computed
    again where the blocks live whenever two states are compared (:meth:`count_changed`, one
    pass), so a session's history keeps O(r T') numbers per label on the client, whatever the
    pool size.

    Parameters
    ----------
    map_blocks : callable
        Runs a pass on every block (:data:`MapBlocks`).
    size : int
        Rows of the pool.
    coef, intercept
        ``w`` and ``b`` (None: no offsets); copied.
    errors : callable or None
        A context manager factory each pass runs in (a cluster's error translation).
    """

    def __init__(
        self,
        map_blocks: MapBlocks,
        size: int,
        coef: np.ndarray,
        intercept: np.ndarray | None,
        errors: Callable[[], AbstractContextManager] | None = None,
    ) -> None:
        self._map, self.size = map_blocks, int(size)
        self.coef = np.array(coef, dtype=np.float64, copy=True)
        self.intercept = None if intercept is None else np.array(intercept, dtype=np.float64)
        self._errors = errors or nullcontext

    def count_changed(self, former: BlockPredictions) -> int:
        """Points of the pool whose predicted class differs between ``former`` and this
        state (one pass; each block returns one count)."""
        with self._errors():
            parts = self._map(
                block_changed, self.coef, self.intercept, former.coef, former.intercept
            )
        return int(sum(parts))


def local_rows(indices: np.ndarray, offset: int, size: int) -> np.ndarray:
    """The sorted global ``indices`` inside ``[offset, offset + size)``, as local rows of the
    block that starts at ``offset`` and holds ``size`` rows."""
    lo, hi = np.searchsorted(indices, [offset, offset + size])
    return indices[lo:hi] - offset


def block_summary(
    features: np.ndarray,
    offset: int,
    coef: np.ndarray,
    inv_w: np.ndarray,
    clip: bool,
    ranking: str | None,
    k: int,
    exclude: np.ndarray,
    intercept: np.ndarray | None = None,
) -> tuple[float, np.ndarray, np.ndarray]:
    """The block's part of the estimated risk and its ``k`` best rows.

    Parameters
    ----------
    features : ndarray (p, r)
        The block's features Φ_p.
    offset : int
        Global index of its first row.
    coef : ndarray (r, T')
        Primal coefficients ``w``.
    inv_w : ndarray (T,)
        ``1/w_l`` of the risk.
    clip : bool
        The probabilities' rule.
    ranking : {"margin", "entropy"} or None
        Rank by the smallest margin, or by the largest entropy of ``p̂`` (score: minus it);
        None: no rows.
    k : int
        Rows returned at most.
    exclude : ndarray of int
        Sorted global indices never returned (labeled and excluded points).
    intercept : ndarray (T',) or None
        Offsets ``b`` added to the predictions (focused ARLS), None for none.

    Returns
    -------
    (risk, indices, scores)
        ``Σ_{z in block} Σ_l p̂(l|z)/w_l δ(l, ĉ_z)``; the global indices of the k best rows and
        their scores, best first (ties to the lowest index).
    """
    m = block_predictions(features, coef, intercept)
    F = m.T[None].copy()
    risk = float(pool_risk(F[:, 0] if m.shape[1] == 1 else F, inv_w, clip=clip)[0])
    if ranking is None or k < 1:
        return risk, np.empty(0, dtype=np.intp), np.empty(0)
    if ranking == "margin":
        score = margin(base_rule_scores(m))
    else:
        score = -entropy(soft_probabilities(base_rule_scores(m)))
    score[local_rows(exclude, offset, features.shape[0])] = np.inf
    # the k smallest scores, a tie to the lowest index as in memory
    best = smallest(score, k)
    keep = np.isfinite(score[best])
    return risk, best[keep] + offset, score[best[keep]]


def block_rows(features: np.ndarray, offset: int, indices: np.ndarray) -> np.ndarray:
    """The features of the sorted global ``indices`` that fall in this block, (q, r)."""
    return features[local_rows(indices, offset, features.shape[0])]


def _projected(features: np.ndarray, center: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """``(Φ_p − center) A``: the block's rows in the plot's plane, finite rows only."""
    xy = (features - center) @ axes
    return xy[np.isfinite(xy).all(axis=1)]


def block_extent(
    features: np.ndarray, offset: int, center: np.ndarray, axes: np.ndarray
) -> np.ndarray:
    """The block's smallest and largest projected coordinates, (2, 2): ``[[x_min, y_min],
    [x_max, y_max]]`` (NaN for a block without a finite row)."""
    xy = _projected(features, center, axes)
    if not xy.shape[0]:
        return np.full((2, 2), np.nan)
    return np.vstack([xy.min(axis=0), xy.max(axis=0)])


def block_histogram(
    features: np.ndarray,
    offset: int,
    center: np.ndarray,
    axes: np.ndarray,
    x_edges: np.ndarray,
    y_edges: np.ndarray,
) -> np.ndarray:
    """The block's projected rows counted on the grid ``x_edges`` × ``y_edges``, int64
    (len(y_edges) − 1, len(x_edges) − 1): the cells of :func:`numpy.histogram2d`, row-major
    over (y, x) as a heatmap's ``z``."""
    xy = _projected(features, center, axes)
    counts, _, _ = np.histogram2d(xy[:, 0], xy[:, 1], bins=[x_edges, y_edges])
    return counts.T.astype(np.int64)


__all__ = [
    "BlockPredictions",
    "MapBlocks",
    "base_rule_scores",
    "block_changed",
    "block_decisions",
    "block_extent",
    "block_histogram",
    "block_predicted_positions",
    "block_predictions",
    "block_rows",
    "block_summary",
    "local_rows",
]
