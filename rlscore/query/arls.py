"""Active regularized least squares (ARLS): greedy minimisation of an estimated Bayes risk.

Paskov §3.3 and appendix A.4 (seed ``000``), SPEC §5. The incremental RLS state over the pool
(predictions ``m``, posterior covariances ``D = K − V``, class weights) is
:class:`~rlscore.query.rls_pool.RLSPoolStrategy`; ARLS adds the lookahead: for every
candidate i and label y the hypothetical classifier after teaching it,
``f' = m + d_i (y − m_i)/s_i`` with ``d_i = D_{:i}`` and ``s_i = D_ii + λ/w_y`` (O(n) each),
and the expected risk of the pool under it.
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
        n, T = self.n_pool_, self.classes_.size
        inv_w = self._risk_weights()
        lam_w = self._lam / self._W  # λ/a_t(y), (T', T)
        q = self.class_probabilities() * inv_w  # expectation weights p̂(y|x_i)/w_y, (n, T)
        targets = ova_targets(np.arange(T), T)  # (T, T')
        m = self._m
        out = np.full(n, np.nan)
        unlabeled = np.setdiff1d(np.arange(n), self.labeled_)
        Tm = m.shape[1]
        Ds = self._Ds
        shared = len(Ds) == 1  # one D for every column: no per-column work
        group_of = np.empty(Tm, dtype=np.intp)
        for g, cols in enumerate(self._groups):
            group_of[cols] = g
        step = max(1, BLOCK_ELEMENTS // (n * Tm))
        half_m = 0.5 * (m.T[None] + 1.0)
        buffer = np.empty((step, n) if Tm == 1 else (step, Tm, n))
        for a in range(0, unlabeled.size, step):
            idx = unlabeled[a : a + step]
            rows = [matrix_rows(D, idx) for D in Ds]  # d_i of the candidates, (b, n) per D
            diag = np.column_stack([r[np.arange(idx.size), idx] for r in rows])  # (b, groups)
            dii = diag if shared else diag[:, group_of]  # (b, 1) or (b, T')
            F = buffer[: idx.size]
            total = np.zeros(idx.size)
            for c in range(T):
                alpha = (targets[c][None, :] - m[idx]) / (dii + lam_w[:, c])  # (b, T')
                if Tm == 1:
                    np.multiply(rows[0], alpha, out=F)  # (b, n)
                    F += m[:, 0]
                else:  # (f' + 1)/2 = d_i α/2 + (m + 1)/2, (b, T, n)
                    if shared:
                        np.multiply(rows[0][:, None, :], 0.5 * alpha[:, :, None], out=F)
                    else:
                        for t in range(Tm):
                            np.multiply(rows[group_of[t]], 0.5 * alpha[:, t, None], out=F[:, t])
                    F += half_m
                total += q[idx, c] * pool_risk(F, inv_w, clip=self.clip, halved=Tm > 1)
            out[idx] = total
        self._scores_cache = (self._version, out)
        return out.copy()
