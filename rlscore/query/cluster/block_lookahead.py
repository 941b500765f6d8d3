"""ARLS's lookahead pass on one block of a pool held as row blocks of features elsewhere.

For ARLS's candidates, the pass gives the block's part of ``Σ_z g_i(z)`` and ``Σ_z g_i(z)²``
(:func:`~rlscore.query.arls.lowrank.lookahead_sums`), computed by the same code as the in-memory
engine: the block is handed to that code as a posterior whose rows are the block's rows followed
by the candidates', with covariance rows ``d_i = Φ_p r_i + t_i`` made from the ``r_i`` and shifts
``t_i`` the client sends (:class:`~rlscore.query.cluster.block_query.BlockQuery`). It is run like
the other passes of :mod:`~rlscore.query.cluster.block_passes`.
"""

from __future__ import annotations

import numpy as np

from rlscore.query.arls.lowrank import lookahead_sums, sampled_rows
from rlscore.query.cluster.block_passes import block_predictions, local_rows


class _BlockCovariance:
    """``d_i = Φ_p r_i + t_i`` of a block of candidates, with ``r_i`` (``C φ_i``) and the
    shifts ``t_i`` (focused ARLS's offset, else none) made by the client."""

    def __init__(
        self, features: np.ndarray, R: list[np.ndarray], diagonal: np.ndarray, shift
    ) -> None:
        self._phi, self._R, self.diagonal, self._shift = features, R, diagonal, shift

    def by_point(self, points) -> list[np.ndarray]:
        out = sampled_rows(self._phi, points, self._R)
        if self._shift is not None:
            for g, d in enumerate(out):
                d += self._shift[:, g]
        return out

    def by_candidate(self, points) -> list[np.ndarray]:
        out = [R.T @ self._phi[points].T for R in self._R]
        if self._shift is not None:
            for g, d in enumerate(out):
                d += self._shift[:, g, None]
        return out


class _BlockPosterior:
    """The posterior of one block as :func:`~rlscore.query.arls.lowrank.lookahead_sums`
    reads it: the block's rows first, then the c candidates (rows p … p + c − 1)."""

    def __init__(self, features, m_block, m_cand, p_cand, R, diagonal, shift, block_size):
        self._p = features.shape[0]
        self._phi, self._R, self._diagonal, self._shift = features, R, diagonal, shift
        self.m = _Rows(m_block, m_cand)
        self.probabilities = _Rows(None, p_cand, self._p)
        self.block_size = block_size

    def covariance(self, idx: np.ndarray) -> _BlockCovariance:
        cols = idx - self._p
        shift = None if self._shift is None else self._shift[cols]
        R = [R[:, cols] for R in self._R]
        return _BlockCovariance(self._phi, R, self._diagonal[cols], shift)


class _Rows:
    """The block's rows ``0 … p − 1`` (slices and point indices) and the candidates' rows
    ``p … p + c − 1`` (candidate indices) of one quantity, without stacking them."""

    def __init__(self, block: np.ndarray | None, cand: np.ndarray, p: int | None = None) -> None:
        self._block, self._cand = block, cand
        self._p = block.shape[0] if p is None else p
        self.shape = (self._p + cand.shape[0], cand.shape[1])

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self._block[idx]
        idx = np.asarray(idx)
        if idx.size and idx.min() >= self._p:
            return self._cand[idx - self._p]
        return self._block[idx]


class _BlockStrategy:
    """What :func:`~rlscore.query.arls.lowrank.lookahead_sums` reads of the strategy."""

    def __init__(self, n_classes: int, clip: bool, terms: tuple, n_rows: int) -> None:
        self.classes_ = np.arange(n_classes)
        self.clip, self._terms, self.n_pool_ = clip, terms, n_rows

    def lookahead_terms(self) -> tuple:
        return self._terms


def block_lookahead(
    features: np.ndarray,
    offset: int,
    coef: np.ndarray,
    cand: dict,
    terms: tuple,
    n_classes: int,
    clip: bool,
    risk_points: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """The block's part of ``Σ_z g_i(z)`` and ``Σ_z g_i(z)²`` for every candidate i
    (:func:`~rlscore.query.arls.lowrank.lookahead_sums`, the in-memory engine's code).

    ``cand`` holds the candidates' ``m`` (c, T'), their ``p̂`` as ``probabilities`` (c, T;
    the lookahead weighs them by ``1/w_y`` itself), ``R`` (one
    (r, c) array per group), ``diagonal`` (c, groups), ``block_size`` and optionally
    ``shift`` (c, groups) and ``intercept`` (T'): focused ARLS's offset, whose covariance
    ``d_i = Φ r_i + t_i`` and predictions ``Φ w + b`` are affine in the features; ``terms`` is
    :meth:`~rlscore.query.rls_state.weighted.WeightedRLSStrategy.lookahead_terms`; ``risk_points``
    the sorted global risk points (None: every row).
    """
    p = features.shape[0]
    c = cand["m"].shape[0]
    S = None if risk_points is None else local_rows(risk_points, offset, p)
    if S is not None and S.size == 0:
        return np.zeros(c), np.zeros(c)
    posterior = _BlockPosterior(
        features, block_predictions(features, coef, cand.get("intercept")), cand["m"],
        cand["probabilities"], cand["R"], cand["diagonal"], cand.get("shift"), cand["block_size"],
    )  # fmt: skip
    strategy = _BlockStrategy(n_classes, clip, terms, p)
    return lookahead_sums(strategy, p + np.arange(c), S, posterior)


__all__ = ["block_lookahead"]
