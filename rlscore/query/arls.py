"""Active regularized least squares (ARLS): greedy minimisation of an estimated Bayes risk.

Paskov §3.3 and appendix A.4 (seed ``000``), SPEC §5. The incremental RLS state over the pool
(predictions ``m``, posterior covariances ``D = K − V``, class weights) is
:class:`~rlscore.query.rls_pool.RLSPoolStrategy`; ARLS adds the lookahead: for every
candidate i and label y the hypothetical classifier after teaching it,
``f' = m + d_i (y − m_i)/s_i`` with ``d_i = D_{:i}`` and ``s_i = D_ii + λ/w_y`` (O(n) each),
and the expected risk of the pool under it (:func:`expected_risks`, shared with
:class:`~rlscore.query.arls_focused.FocusedARLS`, which scores a few candidates only).
"""

from __future__ import annotations

import numpy as np

from rlscore.core.encoding import ova_targets
from rlscore.query.rls_pool import BLOCK_ELEMENTS, RLSPoolStrategy, matrix_rows, pool_risk


class ARLS(RLSPoolStrategy):
    """Active RLS: query the point minimising the expected estimated risk (SPEC §5).

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
    """The expected risk after one more label, for blocks of candidates (SPEC §5).

    Holds what every block shares — the predictions ``m``, the expectation weights
    ``p̂(y|x_i)/w_y``, ``λ/a_t(y)``, the one-vs-all targets and the column groups of the
    strategy's current state — and a work buffer of :data:`BLOCK_ELEMENTS`.

    Parameters
    ----------
    strategy
        A started :class:`~rlscore.query.rls_pool.RLSPoolStrategy`.
    """

    def __init__(self, strategy: RLSPoolStrategy) -> None:
        n, T = strategy.n_pool_, strategy.classes_.size
        self.inv_w = strategy._risk_weights()
        self.clip = strategy.clip
        self.lam_w = strategy._lam / strategy._W  # λ/a_t(y), (T', T)
        # expectation weights p̂(y|x_i)/w_y, (n, T)
        self.q = strategy.class_probabilities() * self.inv_w
        self.targets = ova_targets(np.arange(T), T)  # (T, T')
        self.m = strategy._m
        self.n_columns = self.m.shape[1]
        self.shared = len(strategy._groups) == 1  # one D for every column: no per-column work
        self.group_of = np.empty(self.n_columns, dtype=np.intp)
        for g, cols in enumerate(strategy._groups):
            self.group_of[cols] = g
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
        T, Tm, m = self.targets.shape[0], self.n_columns, self.m
        diag = np.column_stack([r[np.arange(idx.size), idx] for r in rows])  # (b, groups)
        dii = diag if self.shared else diag[:, self.group_of]  # (b, 1) or (b, T')
        F = self.buffer[: idx.size]
        total = np.zeros(idx.size)
        for c in range(T):
            alpha = (self.targets[c][None, :] - m[idx]) / (dii + self.lam_w[:, c])  # (b, T')
            if Tm == 1:
                np.multiply(rows[0], alpha, out=F)  # (b, n)
                F += m[:, 0]
            else:  # (f' + 1)/2 = d_i α/2 + (m + 1)/2, (b, T, n)
                if self.shared:
                    np.multiply(rows[0][:, None, :], 0.5 * alpha[:, :, None], out=F)
                else:
                    for t in range(Tm):
                        np.multiply(rows[self.group_of[t]], 0.5 * alpha[:, t, None], out=F[:, t])
                F += self.half_m
            total += self.q[idx, c] * pool_risk(F, self.inv_w, clip=self.clip, halved=Tm > 1)
        return total
