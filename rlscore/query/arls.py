"""Active regularized least squares (ARLS): greedy minimisation of an estimated Bayes risk.

Paskov §3.3 and appendix A.4 (seed ``000``), docs/mathematics.md §5. The incremental RLS state over
the pool
(predictions ``m``, posterior covariances ``D = K − V``, class weights) is
:class:`~rlscore.query.rls_pool.RLSPoolStrategy`; ARLS adds the lookahead: for every
candidate i and label y the hypothetical classifier after teaching it,
``f' = m + d_i (y − m_i)/s_i`` with ``d_i = D_{:i}`` and ``s_i = D_ii + λ/w_y`` (O(n) each),
and the expected risk of the pool under it (:meth:`Lookahead.expected_risks`, shared with
:class:`~rlscore.query.arls_focused.FocusedARLS`, which scores a few candidates only; the risk
of the hypothetical classifiers, :func:`hypothetical_risks`, also with low-rank ARLS).
"""

from __future__ import annotations

import numpy as np

from rlscore.query.rls_pool import BLOCK_ELEMENTS, RLSPoolStrategy, matrix_rows
from rlscore.query.weighted_rls import WeightedRLSStrategy, pool_risk


class ARLS(RLSPoolStrategy):
    """Active RLS: query the point minimising the expected estimated risk (docs/mathematics.md §5).

    ``scores()[i] = Σ_y p̂(y|x_i)/w_y · R̂^w(f^{+(i,y)})`` (eqs. 3.48, 3.50; ``w_y = 1`` unless
    bias-corrected), computed for every candidate at once in O(T² n²) with numpy, block by
    block (1 MiB blocks), from the rank-one hypothetical ``f' = m + d_i (y − m_i)/s_i``.
    With balanced multiclass weights each one-vs-all column t moves along its own covariance:
    ``d_i = D_t[:, i]`` and ``s_i = D_t[i, i] + λ/a_t(y)``. The risk weights ``w_l`` are the
    error weights of :mod:`rlscore.core.weighting` (multiclass balanced: ``l/(T·l_l)``).
    Parameters as :class:`~rlscore.query.rls_pool.RLSPoolStrategy`.
    """

    def scores(self) -> np.ndarray:
        self._check_started()
        if self._scores_cache is not None and self._scores_cache[0] == self._version:
            return self._scores_cache[1].copy()
        n = self.n_pool_
        lookahead = Lookahead(self)
        out = np.full(n, np.nan)
        unlabeled = np.setdiff1d(np.arange(n), self.labeled_)
        step = max(1, BLOCK_ELEMENTS // (n * lookahead.n_columns))
        for a in range(0, unlabeled.size, step):
            idx = unlabeled[a : a + step]
            out[idx] = lookahead.expected_risks(idx, [matrix_rows(D, idx) for D in self._Ds])
        self._scores_cache = (self._version, out)
        return out.copy()


class Lookahead:
    """The expected risk after one more label, for blocks of candidates (docs/mathematics.md §5).

    Holds what every block shares — the predictions ``m``, the expectation weights
    ``p̂(y|x_i)/w_y``, ``λ/a_t(y)``, the one-vs-all targets and the column groups of the
    strategy's current state — and a work buffer of :data:`BLOCK_ELEMENTS`.

    Parameters
    ----------
    strategy
        A started strategy of the RLS family
        (:class:`~rlscore.query.weighted_rls.WeightedRLSStrategy`).
    """

    def __init__(self, strategy: WeightedRLSStrategy) -> None:
        n = strategy.n_pool_
        # λ/a_t(y) (T', T), targets (T, T'), the group of each column
        self.inv_w, self.lam_w, self.targets, self.group_of = strategy.lookahead_terms()
        self.clip = strategy.clip
        # expectation weights p̂(y|x_i)/w_y, (n, T)
        self.q = strategy.class_probabilities() * self.inv_w
        self.m = strategy._m
        self.n_columns = self.m.shape[1]
        self.shared = not self.group_of.any()  # one D for every column: no per-column work
        self.half_m = 0.5 * (self.m.T[None] + 1.0)
        step = max(1, BLOCK_ELEMENTS // (n * self.n_columns))
        self.buffer = np.empty((step, n) if self.n_columns == 1 else (step, self.n_columns, n))

    def expected_risks(self, idx: np.ndarray, rows: list[np.ndarray]) -> np.ndarray:
        """``Σ_y p̂(y|x_i)/w_y · R̂^w(f^{+(i,y)})`` for the candidates ``idx``.

        Parameters
        ----------
        idx : ndarray (b,)
            Pool indices of the candidates, b at most the buffer's rows.
        rows : list of ndarray (b, n)
            Their covariance rows ``d_i = D_{:i}``, one array per group of columns.

        Returns
        -------
        ndarray (b,)
        """
        T, m = self.targets.shape[0], self.m
        diag = np.column_stack([r[np.arange(idx.size), idx] for r in rows])  # (b, groups)
        dii = diag if self.shared else diag[:, self.group_of]  # (b, 1) or (b, T')
        F = self.buffer[: idx.size]
        total = np.zeros(idx.size)
        for c in range(T):
            alpha = (self.targets[c][None, :] - m[idx]) / (dii + self.lam_w[:, c])  # (b, T')
            risk = hypothetical_risks(
                rows, alpha, m, self.group_of, self.inv_w, clip=self.clip, out=F, half_m=self.half_m
            )
            total += self.q[idx, c] * risk
        return total


def hypothetical_risks(
    rows: list[np.ndarray],
    alpha: np.ndarray,
    m: np.ndarray,
    group_of: np.ndarray,
    inv_w: np.ndarray,
    *,
    clip: bool,
    out: np.ndarray | None = None,
    half_m: np.ndarray | None = None,
) -> np.ndarray:
    """Risk (eq. 3.49) on p points of each hypothetical classifier ``f' = m + d_i α_i``
    (docs/mathematics.md §5).

    Parameters
    ----------
    rows : list of ndarray (b, p)
        The candidates' covariance rows ``d_i`` on the points, one array per group of columns.
    alpha : ndarray (b, T')
        ``(y − m_i)/s_i`` of each candidate and one-vs-all column, for one label y.
    m : ndarray (p, T')
        The current predictions on the points.
    group_of : ndarray (T',)
        The group (index into ``rows``) of each column.
    inv_w : ndarray (T,)
        ``1/w_l`` of the risk.
    clip : bool
        The probabilities' rule (:func:`~rlscore.query.weighted_rls.pool_risk`).
    out : ndarray (b, p) or (b, T', p), optional
        Work buffer for the decision values (overwritten).
    half_m : ndarray (1, T', p), optional
        ``(m + 1)/2`` transposed, when the caller keeps it for many calls.

    Returns
    -------
    ndarray (b,)
    """
    b, p = rows[0].shape
    Tm = m.shape[1]
    F = np.empty((b, p) if Tm == 1 else (b, Tm, p)) if out is None else out
    if Tm == 1:
        np.multiply(rows[0], alpha[:, :1], out=F)
        F += m[:, 0]
        return pool_risk(F, inv_w, clip=clip)
    # (f' + 1)/2 = d_i α/2 + (m + 1)/2, (b, T', p)
    if not group_of.any():  # one covariance for every column: one broadcast product
        np.multiply(rows[0][:, None, :], 0.5 * alpha[:, :, None], out=F)
    else:
        for t in range(Tm):
            np.multiply(rows[group_of[t]], 0.5 * alpha[:, t, None], out=F[:, t])
    F += 0.5 * (m.T[None] + 1.0) if half_m is None else half_m
    return pool_risk(F, inv_w, clip=clip, halved=True)
