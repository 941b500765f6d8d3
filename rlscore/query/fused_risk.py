"""ARLS's lookahead in one pass over the covariance rows: compiled kernels (numba).

For each candidate i, every hypothetical label y and every one-vs-all column t, the
classifier after teaching (i, y) is ``f' = m + d_i α_i(y)`` (docs/mathematics.md §5), and the
expected risk is ``Σ_y q_i(y) R̂^w(f')`` with ``q_i(y) = p̂(y|x_i)/w_y`` and the risk of
eq. 3.49 (:func:`~rlscore.query.weighted_rls.pool_risk`). Written as numpy operations this is
about five passes per label over every block of rows; here each covariance entry ``d_ij`` is
read once and serves every label and column, and the clipping, the winner and the sum happen
in registers, so a query costs about one read of the covariance (the floor measured by
``benchmarks/arls_speed.py``).

The kernels compile on first use (a second or two, cached on disk by numba afterwards); this
module is imported only when a lookahead runs, so importing :mod:`rlscore.query` does not load
numba.
"""

from __future__ import annotations

import numba
import numpy as np

# reassociation lets LLVM vectorise the sums over the pool (the order of a float sum changes
# the last bits only); no "nnan"/"ninf": NaN and inf keep their meaning
_FASTMATH = {"reassoc", "contract", "nsz"}


#: candidate rows streamed together by the binary pass: each pool value ``m_j`` loaded serves
#: 2 · ROWS hypothetical classifiers, and several rows in flight keep the memory busy
#: (4 measured fastest in ``benchmarks/arls_speed.py``)
ROWS = 4


@numba.njit(cache=True, fastmath=_FASTMATH, nogil=True)
def _binary(D, rows, idx, m, targets, lam_w, q, inv_w, clip, weighted):  # pragma: no cover
    b, n = rows.size, m.size
    out = np.empty(b)
    cap = 1.0 if clip else np.inf  # min(|f|, ∞) = |f|: one loop for both rules
    a = np.empty((ROWS, 2))
    for k0 in range(0, b, ROWS):
        # the last group repeats its last candidate (same values written twice)
        ks = [min(k0 + u, b - 1) for u in range(ROWS)]
        for u in range(ROWS):
            i = idx[ks[u]]
            dii = D[rows[ks[u]], i]
            # α(y) = (y − m_i)/(D_ii + λ/a(y)) of both labels
            a[u, 0] = (targets[0] - m[i]) / (dii + lam_w[0])
            a[u, 1] = (targets[1] - m[i]) / (dii + lam_w[1])
        d0, d1, d2, d3 = D[rows[ks[0]]], D[rows[ks[1]]], D[rows[ks[2]]], D[rows[ks[3]]]
        a00, a01, a10, a11 = a[0, 0], a[0, 1], a[1, 0], a[1, 1]
        a20, a21, a30, a31 = a[2, 0], a[2, 1], a[3, 0], a[3, 1]
        # Σ_j min(|f_j|, cap) per row and label; weighted also Σ_{f_j > 0} (1 − min(|f_j|, cap))
        s = np.zeros((ROWS, 2))
        p = np.zeros((ROWS, 2))
        if weighted:
            s00 = s01 = s10 = s11 = s20 = s21 = s30 = s31 = 0.0
            p00 = p01 = p10 = p11 = p20 = p21 = p30 = p31 = 0.0
            for j in range(n):
                mj = m[j]
                f00, f01 = mj + d0[j] * a00, mj + d0[j] * a01
                f10, f11 = mj + d1[j] * a10, mj + d1[j] * a11
                f20, f21 = mj + d2[j] * a20, mj + d2[j] * a21
                f30, f31 = mj + d3[j] * a30, mj + d3[j] * a31
                g00, g01 = min(abs(f00), cap), min(abs(f01), cap)
                g10, g11 = min(abs(f10), cap), min(abs(f11), cap)
                g20, g21 = min(abs(f20), cap), min(abs(f21), cap)
                g30, g31 = min(abs(f30), cap), min(abs(f31), cap)
                s00 += g00
                s01 += g01
                s10 += g10
                s11 += g11
                s20 += g20
                s21 += g21
                s30 += g30
                s31 += g31
                p00 += (1.0 - g00) if f00 > 0.0 else 0.0
                p01 += (1.0 - g01) if f01 > 0.0 else 0.0
                p10 += (1.0 - g10) if f10 > 0.0 else 0.0
                p11 += (1.0 - g11) if f11 > 0.0 else 0.0
                p20 += (1.0 - g20) if f20 > 0.0 else 0.0
                p21 += (1.0 - g21) if f21 > 0.0 else 0.0
                p30 += (1.0 - g30) if f30 > 0.0 else 0.0
                p31 += (1.0 - g31) if f31 > 0.0 else 0.0
            p[0, 0], p[0, 1], p[1, 0], p[1, 1] = p00, p01, p10, p11
            p[2, 0], p[2, 1], p[3, 0], p[3, 1] = p20, p21, p30, p31
        else:
            s00 = s01 = s10 = s11 = s20 = s21 = s30 = s31 = 0.0
            for j in range(n):
                mj = m[j]
                s00 += min(abs(mj + d0[j] * a00), cap)
                s01 += min(abs(mj + d0[j] * a01), cap)
                s10 += min(abs(mj + d1[j] * a10), cap)
                s11 += min(abs(mj + d1[j] * a11), cap)
                s20 += min(abs(mj + d2[j] * a20), cap)
                s21 += min(abs(mj + d2[j] * a21), cap)
                s30 += min(abs(mj + d3[j] * a30), cap)
                s31 += min(abs(mj + d3[j] * a31), cap)
        s[0, 0], s[0, 1], s[1, 0], s[1, 1] = s00, s01, s10, s11
        s[2, 0], s[2, 1], s[3, 0], s[3, 1] = s20, s21, s30, s31
        for u in range(ROWS):
            i = idx[ks[u]]
            # eq. 3.49 for two classes: ½ Σ_j (1 − p̂ of the predicted class)/w of the other
            if weighted:
                r0 = 0.5 * (inv_w[1] * (n - s[u, 0]) + (inv_w[0] - inv_w[1]) * p[u, 0])
                r1 = 0.5 * (inv_w[1] * (n - s[u, 1]) + (inv_w[0] - inv_w[1]) * p[u, 1])
            else:
                r0 = inv_w[0] * 0.5 * (n - s[u, 0])
                r1 = inv_w[0] * 0.5 * (n - s[u, 1])
            out[ks[u]] = q[i, 0] * r0 + q[i, 1] * r1
    return out


#: pool points per chunk of the multiclass pass: its T' decision values per label stay in L1
CHUNK = 256


@numba.njit(cache=True, fastmath=_FASTMATH, nogil=True)
def _multiclass(Ds, group_of, rows, idx, m, targets, lam_w, q, inv_w, clip):  # pragma: no cover
    b = rows.size
    n, Tm = m.shape
    T = targets.shape[0]
    inv_sum = inv_w.sum()
    out = np.zeros(b)
    half_m = np.empty((Tm, n))  # (m + 1)/2, one contiguous row per column
    for t in range(Tm):
        for j in range(n):
            half_m[t, j] = 0.5 * (m[j, t] + 1.0)
    h = np.empty((Tm, CHUNK))
    best = np.empty(CHUNK)
    winner_w = np.empty(CHUNK)  # 1/w of the winner
    total = np.empty(CHUNK)
    wsum = np.empty(CHUNK)
    half_alpha = np.empty((T, Tm))
    acc = np.empty(T)
    G = len(Ds)
    d = np.empty((G, n))  # the candidate's rows: read from D once, then from cache
    for k in range(b):
        r, i = rows[k], idx[k]
        for g in range(G):
            d[g] = Ds[g][r]
        for c in range(T):
            for t in range(Tm):
                dii = Ds[group_of[t]][r, i]
                half_alpha[c, t] = 0.5 * ((targets[c, t] - m[i, t]) / (dii + lam_w[t, c]))
        acc[:] = 0.0
        for j0 in range(0, n, CHUNK):
            w = min(CHUNK, n - j0)
            for c in range(T):
                # (f' + 1)/2 of every column on the chunk: the loops below run along the
                # pool points, so they vectorise
                for t in range(Tm):
                    # 1-D slices: plain indices in the loops (no wraparound checks)
                    ht, mt = h[t], half_m[t, j0 : j0 + w]
                    dt = d[group_of[t], j0 : j0 + w]
                    a = half_alpha[c, t]
                    for jj in range(w):
                        ht[jj] = mt[jj] + dt[jj] * a
                # the winner (first on ties), its value, then the clipped sums
                h0 = h[0]
                for jj in range(w):
                    best[jj] = h0[jj]
                    winner_w[jj] = inv_w[0]
                for t in range(1, Tm):
                    wt, ht = inv_w[t], h[t]
                    for jj in range(w):
                        v = ht[jj]
                        winner_w[jj] = wt if v > best[jj] else winner_w[jj]
                        best[jj] = v if v > best[jj] else best[jj]
                for jj in range(w):
                    total[jj] = 0.0
                    wsum[jj] = 0.0
                for t in range(Tm):
                    wt, ht = inv_w[t], h[t]
                    for jj in range(w):
                        v = ht[jj]
                        if clip:
                            v = min(max(v, 0.0), 1.0)
                        total[jj] += v
                        wsum[jj] += wt * v
                s = 0.0
                if clip:
                    for jj in range(w):
                        e = wsum[jj] - min(max(best[jj], 0.0), 1.0) * winner_w[jj]
                        # every column clipped to 0: the uniform p̂ = 1/T
                        s += e / total[jj] if total[jj] > 0.0 else (inv_sum - winner_w[jj]) / T
                else:
                    for jj in range(w):
                        s += wsum[jj] - best[jj] * winner_w[jj]
                acc[c] += s
        s = 0.0
        for c in range(T):
            s += q[i, c] * acc[c]
        out[k] = s
    return out


def fused_expected_risks(
    Ds: list[np.ndarray],
    rows: np.ndarray,
    idx: np.ndarray,
    m: np.ndarray,
    targets: np.ndarray,
    lam_w: np.ndarray,
    q: np.ndarray,
    group_of: np.ndarray,
    inv_w: np.ndarray,
    *,
    clip: bool,
) -> np.ndarray:
    """``Σ_y q_i(y) R̂^w(m + d_i α_i(y))`` for b candidates, one read of each covariance row.

    ``α_i(y) = (y_t − m_it)/(D_ii + λ/a_t(y))`` per label and column is formed inside the pass
    from the row's own diagonal entry.

    Parameters
    ----------
    Ds : list of ndarray (r, n), C-ordered
        Covariance rows ``d_i`` (whole matrices ``D`` or blocks of rows), one per group of
        one-vs-all columns.
    rows : ndarray (b,) of int
        The row of each candidate in every array of ``Ds``.
    idx : ndarray (b,) of int
        The pool index of each candidate.
    m : ndarray (n, T')
        The current predictions on the pool.
    targets : ndarray (T, T')
        One-vs-all targets of each label.
    lam_w : ndarray (T', T)
        ``λ/a_t(y)`` per column and label.
    q : ndarray (n, T)
        Expectation weights ``p̂(y|x_i)/w_y`` of every pool point.
    group_of : ndarray (T',) of int
        The group (index into ``Ds``) of each column.
    inv_w : ndarray (T,)
        ``1/w_l`` of the risk.
    clip : bool
        The probabilities' rule (:func:`~rlscore.query.weighted_rls.pool_risk`).

    Returns
    -------
    ndarray (b,)
    """
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    idx = np.ascontiguousarray(idx, dtype=np.intp)
    f64 = {"dtype": np.float64}
    inv_w, q = np.ascontiguousarray(inv_w, **f64), np.ascontiguousarray(q, **f64)
    targets, lam_w = np.ascontiguousarray(targets, **f64), np.ascontiguousarray(lam_w, **f64)
    Ds = [np.ascontiguousarray(D, **f64) for D in Ds]
    if m.shape[1] == 1:
        weighted = bool(inv_w[0] != inv_w[1])
        m0 = np.ascontiguousarray(m[:, 0])
        return _binary(
            Ds[0], rows, idx, m0, targets[:, 0].copy(), lam_w[0].copy(), q, inv_w, clip, weighted
        )
    groups = np.ascontiguousarray(group_of, dtype=np.intp)
    m = np.ascontiguousarray(m, **f64)
    return _multiclass(tuple(Ds), groups, rows, idx, m, targets, lam_w, q, inv_w, clip)
