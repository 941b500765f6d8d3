"""Active regularized least squares (ARLS): greedy minimisation of an estimated Bayes risk.

Paskov §3.3 and appendix A.4 (seed ``000``), docs/mathematics.md §5. The incremental RLS state over
the pool
(predictions ``m``, posterior covariances ``D = K − V``, class weights) is
:class:`~rlscore.query.rls_state.on_kernel.RLSPoolStrategy`; ARLS adds the lookahead: for every
candidate i and label y the hypothetical classifier after teaching it,
``f' = m + d_i (y − m_i)/s_i`` with ``d_i = D_{:i}`` and ``s_i = D_ii + λ/w_y`` (O(n) each),
and the expected risk of the pool under it (:meth:`Lookahead.expected_risks`, shared with
:class:`~rlscore.query.arls.focused.FocusedARLS`, which scores a few candidates only; the risk
of the hypothetical classifiers, :func:`hypothetical_risks`, also with low-rank ARLS).
"""

from __future__ import annotations

import numpy as np

from rlscore.query.rls_state.on_kernel import RLSPoolStrategy
from rlscore.query.rls_state.weighted import WeightedRLSStrategy, pool_risk

#: lookaheads of at most this many covariance entries (candidates × pool points) on a pool of
#: fewer than :data:`COMPILED_LOOKAHEAD_POOL` points run in numpy, the others in the compiled
#: pass (rlscore.query.arls.fused_lookahead). Loading numba and the pass costs about 0.4 s of
#: CPU, once per process; numpy takes 17 ms at the limit (the 1000 candidates of focused
#: ARLS's first query on 2000 points) and 1.5 ms for its 10 candidates on 50 000 points (0.18 ms
#: compiled; benchmarks/lookahead_paths.py)
NUMPY_LOOKAHEAD = 1 << 21
#: pools of at least this many points always take the compiled pass: there numpy costs 10 ms
#: and more per query of 10 candidates (issue 36: 20 ms of an 80 ms step at 200 000 points),
#: so a pool of up to 100 000 points is labeled with focused ARLS without loading numba
COMPILED_LOOKAHEAD_POOL = 100_000


class ARLS(RLSPoolStrategy):
    """Active RLS: query the point minimising the expected estimated risk (docs/mathematics.md §5).

    ``scores()[i] = Σ_y p̂(y|x_i)/w_y · R̂^w(f^{+(i,y)})`` (eqs. 3.48, 3.50; ``w_y = 1`` unless
    bias-corrected), computed for every candidate at once in O(T² n²) by one compiled pass
    over the covariance (:mod:`rlscore.query.arls.fused_lookahead`), from the rank-one hypothetical
    ``f' = m + d_i (y − m_i)/s_i``.
    With balanced multiclass weights each one-vs-all column t moves along its own covariance:
    ``d_i = D_t[:, i]`` and ``s_i = D_t[i, i] + λ/a_t(y)``. The risk weights ``w_l`` are the
    error weights of :mod:`rlscore.core.rls.class_weights` (multiclass balanced: ``l/(T·l_l)``).
    Parameters as :class:`~rlscore.query.rls_state.on_kernel.RLSPoolStrategy`.
    """

    def scores(self) -> np.ndarray:
        self._check_started()
        if self._scores_cache is not None and self._scores_cache[0] == self._version:
            return self._scores_cache[1].copy()
        out = np.full(self.n_pool_, np.nan)
        free = np.ones(self.n_pool_, dtype=bool)
        free[self.labeled_] = False
        unlabeled = np.flatnonzero(free)
        if unlabeled.size:
            # one fused pass: every covariance row is read once for all labels and columns
            out[unlabeled] = Lookahead(self).expected_risks_at(self._Ds, unlabeled, unlabeled)
        self._scores_cache = (self._version, out)
        return out.copy()


class Lookahead:
    """The expected risk after one more label, for candidates (docs/mathematics.md §5).

    Holds what every candidate shares — the predictions ``m``, the expectation weights
    ``p̂(y|x_i)/w_y``, ``λ/a_t(y)``, the one-vs-all targets and the column groups of the
    strategy's current state. The risks are computed by the fused pass of
    :mod:`rlscore.query.arls.fused_lookahead` (each covariance entry read once for every label and
    column), or in numpy, one label at a time, for a lookahead of at most
    :data:`NUMPY_LOOKAHEAD` entries (the two agree to rounding: ``tests/test_arls_fused.py``).

    Parameters
    ----------
    strategy
        A started strategy of the RLS family
        (:class:`~rlscore.query.rls_state.weighted.WeightedRLSStrategy`).
    """

    def __init__(self, strategy: WeightedRLSStrategy) -> None:
        # λ/a_t(y) (T', T), targets (T, T'), the group of each column
        self.inv_w, self.lam_w, self.targets, self.group_of = strategy.lookahead_terms()
        self.clip = strategy.clip
        # expectation weights p̂(y|x_i)/w_y, made at the candidates only (:meth:`_weights`)
        self._probabilities_at = strategy.class_probabilities_at
        self.m = strategy._m
        self.n_columns = self.m.shape[1]

    def expected_risks(self, idx: np.ndarray, rows: list[np.ndarray]) -> np.ndarray:
        """``Σ_y p̂(y|x_i)/w_y · R̂^w(f^{+(i,y)})`` for the candidates ``idx``.

        Parameters
        ----------
        idx : ndarray (b,)
            Pool indices of the candidates.
        rows : list of ndarray (b, n)
            Their covariance rows ``d_i = D_{:i}``, one array per group of columns.

        Returns
        -------
        ndarray (b,)
        """
        return self.expected_risks_at(rows, np.arange(len(idx)), idx)

    def expected_risks_at(
        self, Ds: list[np.ndarray], rows: np.ndarray, idx: np.ndarray
    ) -> np.ndarray:
        """:meth:`expected_risks` with the covariance rows read in place (no copy).

        Parameters
        ----------
        Ds : list of ndarray (r, n)
            The covariances (or blocks of their rows), one per group of columns.
        rows : ndarray (b,)
            The row of each candidate in every array of ``Ds``.
        idx : ndarray (b,)
            Pool indices of the candidates.

        Returns
        -------
        ndarray (b,)
        """
        rows, idx = np.asarray(rows), np.asarray(idx)
        n = self.m.shape[0]
        if rows.size * n <= NUMPY_LOOKAHEAD and n < COMPILED_LOOKAHEAD_POOL:
            return self._numpy_risks(Ds, rows, idx)
        # the compiled pass loads numba: imported when a large lookahead first runs
        from rlscore.query.arls.fused_lookahead import fused_expected_risks

        return fused_expected_risks(
            Ds,
            rows,
            idx,
            self.m,
            self.targets,
            self.lam_w,
            self._weights(idx),
            self.group_of,
            self.inv_w,
            clip=self.clip,
        )

    def _numpy_risks(self, Ds: list[np.ndarray], rows: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """:meth:`expected_risks_at` in numpy, one label at a time (:func:`hypothetical_risks`)."""
        R = [D[rows] for D in Ds]
        diag = np.stack([R[g][np.arange(rows.size), idx] for g in self.group_of], axis=1)
        m_i = self.m[idx]
        q = self._weights(idx)
        out = np.zeros(rows.size)
        for y in range(q.shape[1]):
            alpha = (self.targets[y] - m_i) / (diag + self.lam_w[:, y])
            risk = hypothetical_risks(R, alpha, self.m, self.group_of, self.inv_w, clip=self.clip)
            out += q[idx, y] * risk
        return out

    def _weights(self, idx: np.ndarray) -> np.ndarray:
        """The expectation weights ``p̂(y|x_i)/w_y`` (n, T) with only the rows of the candidates
        ``idx`` set: the lookahead reads no others, and the pool's probabilities (n × T, most of
        a focused query's setup at 200 000 points) are not made."""
        q = np.empty((self.m.shape[0], self.inv_w.size))
        q[idx] = self._probabilities_at(idx) * self.inv_w
        return q


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
        The probabilities' rule (:func:`~rlscore.query.rls_state.weighted.pool_risk`).
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
