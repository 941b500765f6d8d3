"""ARLS's lookahead in one pass over the covariance rows, and a sampled lookahead's sums: compiled
kernels (numba).

For each candidate i, every hypothetical label y and every one-vs-all column t, the
classifier after teaching (i, y) is ``f' = m + d_i α_i(y)`` (docs/mathematics.md §5), and the
expected risk is ``Σ_y q_i(y) R̂^w(f')`` with ``q_i(y) = p̂(y|x_i)/w_y`` and the risk of
eq. 3.49 (:func:`~rlscore.query.rls_state.weighted.pool_risk`). Written as numpy operations this is
about five passes per label over every block of rows; here each covariance entry ``d_ij`` is
read once and serves every label and column, and the clipping, the winner and the sum happen
in registers. With two classes a query costs about one read of the covariance (the floor
measured by ``benchmarks/arls_speed.py``); with T ≥ 3 classes the arithmetic per entry,
not the read, sets the time.

With T ≥ 3 and an unweighted risk (all ``1/w`` equal), label y changes column y by its own
step and every other column t by one step ``off_t`` shared by all labels but t's (ARLS's
one-vs-all targets and ``λ/a``; checked once per call). Then one sweep along the pool serves
every label: per point the T' values ``u_t`` under a foreign label are formed once, with the
largest two of their clipped values and the sum of all but the largest, and each label adds
its own column's value: about 7 vector operations per column and 13 per label, instead of T
sweeps of T' values each. Otherwise (weights: the winner's ``1/w`` matters) each label makes
its own sweep, each entry then feeding T · T' / G hypothetical decision values (T' one-vs-all
columns over G covariances), each clipped, compared and normalised.

The multiclass kernel is compiled once per number of columns: the columns' covariances come
as a tuple, so the loops over the columns and labels unroll and the loop along the pool
vectorises.

**The sampled lookahead** (low-rank ARLS, :mod:`rlscore.query.arls.lowrank`) estimates each
candidate's expected risk on a sample S of pool points with its standard error, so it needs per
candidate the sum and the sum of squares over z ∈ S of ``g_i(z) = Σ_y q_i(y) ρ(m_z + d_i(z)
α_i(y))``, ρ the per-point term of the pool risk: :func:`point_risk_sums`, one pass over a block
of (point, candidate) pairs with the candidates innermost (a contiguous row of ``d``), so that
loop vectorises; in numpy it was about a dozen passes per label over every block. Both passes
share the per-point risk of the one-vs-all columns (:func:`add_column`, :func:`column_risk`):
they are in one module because numba's disk cache notices a change of the module of a cached
kernel only, not of another module's function it inlines.

The kernels compile on first use (a few seconds; the multiclass one once per number of
columns, about 3 s each), cached on disk by numba afterwards; this module is imported only
when a lookahead runs, so importing :mod:`rlscore.query` does not load numba.
"""

from __future__ import annotations

import numba
import numpy as np

# reassociation lets LLVM vectorise the sums over the pool (the order of a float sum changes
# the last bits only); no "nnan"/"ninf": NaN and inf keep their meaning
FASTMATH = {"reassoc", "contract", "nsz"}


#: candidate rows streamed together by the binary pass: each pool value ``m_j`` loaded serves
#: 2 · ROWS hypothetical classifiers, and several rows in flight keep the memory busy; 8 rows
#: (16 running sums) still fit the vector registers (the kernel alone with balanced weights at
#: n = 2000: 4 rows 1.8×, 8 rows 1.35–1.5× the read floor; 12 no better at n = 5000, 16 spill)
ROWS = 8


# one function by design: its 16 running sums share one loop along the pool in registers, unrolled
@numba.njit(cache=True, fastmath=FASTMATH, inline="always")
def _rows_pass(D, rows, ks, m, a, h0, h1, cap, weighted, s):  # pragma: no cover
    """One pass along the pool for the ROWS candidates ``rows[ks]``: ``s[u, y]`` is, over the
    pool, ``Σ_j (h0 if f_j > 0 else h1) · (1 − min(|f_j|, cap))`` (``weighted``), else
    ``Σ_j min(|f_j|, cap)``, of ``f = m + d_u a[u, y]``, ``d_u`` candidate u's covariance row."""
    n = m.size
    d0, d1, d2, d3 = D[rows[ks[0]]], D[rows[ks[1]]], D[rows[ks[2]]], D[rows[ks[3]]]
    d4, d5, d6, d7 = D[rows[ks[4]]], D[rows[ks[5]]], D[rows[ks[6]]], D[rows[ks[7]]]
    a00, a01, a10, a11 = a[0, 0], a[0, 1], a[1, 0], a[1, 1]
    a20, a21, a30, a31 = a[2, 0], a[2, 1], a[3, 0], a[3, 1]
    a40, a41, a50, a51 = a[4, 0], a[4, 1], a[5, 0], a[5, 1]
    a60, a61, a70, a71 = a[6, 0], a[6, 1], a[7, 0], a[7, 1]
    # one running sum per row and label (16: more would spill the registers)
    s00 = s01 = s10 = s11 = s20 = s21 = s30 = s31 = 0.0
    s40 = s41 = s50 = s51 = s60 = s61 = s70 = s71 = 0.0
    if weighted:
        # Σ_j (h0 if f_j > 0 else h1) · (1 − min(|f_j|, cap))
        for j in range(n):
            mj = m[j]
            f00, f01 = mj + d0[j] * a00, mj + d0[j] * a01
            f10, f11 = mj + d1[j] * a10, mj + d1[j] * a11
            f20, f21 = mj + d2[j] * a20, mj + d2[j] * a21
            f30, f31 = mj + d3[j] * a30, mj + d3[j] * a31
            f40, f41 = mj + d4[j] * a40, mj + d4[j] * a41
            f50, f51 = mj + d5[j] * a50, mj + d5[j] * a51
            f60, f61 = mj + d6[j] * a60, mj + d6[j] * a61
            f70, f71 = mj + d7[j] * a70, mj + d7[j] * a71
            s00 += (h0 if f00 > 0.0 else h1) * (1.0 - min(abs(f00), cap))
            s01 += (h0 if f01 > 0.0 else h1) * (1.0 - min(abs(f01), cap))
            s10 += (h0 if f10 > 0.0 else h1) * (1.0 - min(abs(f10), cap))
            s11 += (h0 if f11 > 0.0 else h1) * (1.0 - min(abs(f11), cap))
            s20 += (h0 if f20 > 0.0 else h1) * (1.0 - min(abs(f20), cap))
            s21 += (h0 if f21 > 0.0 else h1) * (1.0 - min(abs(f21), cap))
            s30 += (h0 if f30 > 0.0 else h1) * (1.0 - min(abs(f30), cap))
            s31 += (h0 if f31 > 0.0 else h1) * (1.0 - min(abs(f31), cap))
            s40 += (h0 if f40 > 0.0 else h1) * (1.0 - min(abs(f40), cap))
            s41 += (h0 if f41 > 0.0 else h1) * (1.0 - min(abs(f41), cap))
            s50 += (h0 if f50 > 0.0 else h1) * (1.0 - min(abs(f50), cap))
            s51 += (h0 if f51 > 0.0 else h1) * (1.0 - min(abs(f51), cap))
            s60 += (h0 if f60 > 0.0 else h1) * (1.0 - min(abs(f60), cap))
            s61 += (h0 if f61 > 0.0 else h1) * (1.0 - min(abs(f61), cap))
            s70 += (h0 if f70 > 0.0 else h1) * (1.0 - min(abs(f70), cap))
            s71 += (h0 if f71 > 0.0 else h1) * (1.0 - min(abs(f71), cap))
    else:
        # Σ_j min(|f_j|, cap)
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
            s40 += min(abs(mj + d4[j] * a40), cap)
            s41 += min(abs(mj + d4[j] * a41), cap)
            s50 += min(abs(mj + d5[j] * a50), cap)
            s51 += min(abs(mj + d5[j] * a51), cap)
            s60 += min(abs(mj + d6[j] * a60), cap)
            s61 += min(abs(mj + d6[j] * a61), cap)
            s70 += min(abs(mj + d7[j] * a70), cap)
            s71 += min(abs(mj + d7[j] * a71), cap)
    s[0, 0], s[0, 1], s[1, 0], s[1, 1] = s00, s01, s10, s11
    s[2, 0], s[2, 1], s[3, 0], s[3, 1] = s20, s21, s30, s31
    s[4, 0], s[4, 1], s[5, 0], s[5, 1] = s40, s41, s50, s51
    s[6, 0], s[6, 1], s[7, 0], s[7, 1] = s60, s61, s70, s71


@numba.njit(cache=True, fastmath=FASTMATH, nogil=True)
def _binary(D, rows, idx, m, targets, lam_w, q, inv_w, clip, weighted):  # pragma: no cover
    """:func:`fused_expected_risks` with two classes (one column): the candidates in groups of
    :data:`ROWS`, each group's rows read in one :func:`_rows_pass` along the pool."""
    b, n = rows.size, m.size
    out = np.empty(b)
    cap = 1.0 if clip else np.inf  # min(|f|, ∞) = |f|: one loop for both rules
    # eq. 3.49 for two classes: the error term (1 − min(|f_j|, cap))/2 times 1/w of the class
    # not predicted (class 0 where f_j > 0); unweighted it is (n − Σ_j min(|f_j|, cap))/(2w)
    h0, h1 = 0.5 * inv_w[0], 0.5 * inv_w[1]
    a = np.empty((ROWS, 2))
    ks = np.empty(ROWS, dtype=np.intp)
    s = np.zeros((ROWS, 2))  # the sums of _rows_pass, per row and label
    for k0 in range(0, b, ROWS):
        # the last group repeats its last candidate (same values written twice)
        for u in range(ROWS):
            ks[u] = min(k0 + u, b - 1)
        for u in range(ROWS):
            i = idx[ks[u]]
            dii = D[rows[ks[u]], i]
            # α(y) = (y − m_i)/(D_ii + λ/a(y)) of both labels
            a[u, 0] = (targets[0] - m[i]) / (dii + lam_w[0])
            a[u, 1] = (targets[1] - m[i]) / (dii + lam_w[1])
        _rows_pass(D, rows, ks, m, a, h0, h1, cap, weighted, s)
        for u in range(ROWS):
            i = idx[ks[u]]
            if weighted:
                r0, r1 = s[u, 0], s[u, 1]
            else:
                r0, r1 = h0 * (n - s[u, 0]), h0 * (n - s[u, 1])
            out[ks[u]] = q[i, 0] * r0 + q[i, 1] * r1
    return out


@numba.njit(cache=True, fastmath=FASTMATH, inline="always")
def add_column(v, w, best, ww, total, wsum, lo, hi, weighted):  # pragma: no cover
    """One column's ``(f' + 1)/2 = v`` (its ``1/w``: ``w``) into a point's running values: the
    winner's value ``best`` (first on ties) and ``1/w`` ``ww``, ``Σ_t clip(·)`` and
    ``Σ_t clip(·)/w_t``; start from ``(-inf, 1, 0, 0)``. ``clip(v) = min(max(v, lo), hi)``."""
    if weighted:
        ww = w if v > best else ww
    p = min(max(v, lo), hi)
    return max(v, best), ww, total + p, wsum + (w if weighted else 1.0) * p


@numba.njit(cache=True, fastmath=FASTMATH, inline="always")
def column_risk(best, ww, total, wsum, inv_sum, T, lo, hi, clip, weighted):  # pragma: no cover
    """A point's risk term from its running values (:func:`add_column` over its T columns);
    unweighted without the factor ``1/w``."""
    e = wsum - min(max(best, lo), hi) * ww
    # clipped: normalised, and the uniform p̂ = 1/T where every column is 0
    u = (inv_sum - ww) / T if weighted else (T - 1) / T
    return (e / total if total > 0.0 else u) if clip else e


@numba.njit(cache=True, fastmath=FASTMATH, inline="always")
def _label_sum(half_m, D_of, r, a, inv_w, clip, weighted):  # pragma: no cover
    """``R̂^w`` of one hypothetical classifier ``(f' + 1)/2 = half_m + d a``, where the
    candidate's row of column t is ``D_of[t][r]``; unweighted without the factor ``1/w``."""
    T = len(D_of)
    inv_sum = inv_w.sum()
    lo = 0.0 if clip else -np.inf  # clip(v) = min(max(v, lo), hi): one loop for both rules
    hi = 1.0 if clip else np.inf
    s = 0.0
    for j in range(half_m.shape[1]):  # from 0: numba drops the negative-index checks
        best, ww, total, wsum = -np.inf, 1.0, 0.0, 0.0
        for t in range(T):  # T' is a compile-time constant (a tuple's length): unrolled
            v = half_m[t, j] + D_of[t][r, j] * a[t]
            best, ww, total, wsum = add_column(v, inv_w[t], best, ww, total, wsum, lo, hi, weighted)
        s += column_risk(best, ww, total, wsum, inv_sum, T, lo, hi, clip, weighted)
    return s


@numba.njit(cache=True, fastmath=FASTMATH, inline="always")
def _one_vs_all_sum(half_m, D_of, r, off, on, qi, clip):  # pragma: no cover
    """``Σ_y q_i(y) R̂(f'_y)`` unweighted (without the factor ``1/w``) over every label y at once,
    when label y moves column y by ``on[y]`` and every other column t by ``off[t]``."""
    T = len(D_of)
    uniform = (T - 1) / T
    lo = 0.0 if clip else -np.inf  # clip(v) = min(max(v, lo), hi): one loop for both rules
    hi = 1.0 if clip else np.inf
    s = 0.0
    for j in range(half_m.shape[1]):
        # the columns under a label not their own: u_t = half_m + d·off, the same under every
        # label but t's. Of their clipped values p_t: the largest m1, the second m2 (m1 again
        # on a tie) and the sum of all but one largest, rest (terms ≥ 0 when clipped: no
        # cancellation before e/total)
        u = half_m[0, j] + D_of[0][r, j] * off[0]
        m1 = min(max(u, lo), hi)
        m2 = -np.inf
        rest = 0.0
        for t in range(1, T):  # T is a compile-time constant: unrolled
            u = half_m[t, j] + D_of[t][r, j] * off[t]
            p = min(max(u, lo), hi)
            low = min(p, m1)
            rest += low
            m2 = max(low, m2)
            m1 = max(p, m1)
        acc = 0.0  # Σ_y q_i(y) · (point j's term under label y)
        for y in range(T):
            u = half_m[y, j] + D_of[y][r, j] * off[y]  # the same expression: computed once
            p = min(max(u, lo), hi)
            v = half_m[y, j] + D_of[y][r, j] * on[y]
            pv = min(max(v, lo), hi)
            # column y takes pv: the others sum to rest + (m1 − p) (m1 − p ≥ 0) and their
            # largest is m2 where p is a largest, else m1; clip is monotone, so the winner's
            # clipped value is the largest clipped value
            total = rest + (m1 - p) + pv
            e = total - max(pv, m2 if p == m1 else m1)
            acc += qi[y] * ((e / total if total > 0.0 else uniform) if clip else e)
        s += acc
    return s


@numba.njit(cache=True, fastmath=FASTMATH, nogil=True)
def _multiclass(
    D_of, rows, idx, m, targets, lam_w, q, inv_w, clip, weighted, one_vs_all
):  # pragma: no cover
    # D_of: the covariance of each column, a tuple (columns sharing one repeat it) so that
    # T' is a compile-time constant: the loop over the columns unrolls and the loop along
    # the pool points vectorises, every running value (best, winner, sums) in registers; the
    # rows are read in place, each entry once from memory and then from cache by every label.
    # one_vs_all (a flag, not a second kernel: one compiled signature per number of columns):
    # the labels' steps have the form _one_vs_all_sum takes
    b = rows.size
    Tm = len(D_of)
    n = m.shape[0]
    T = targets.shape[0]
    out = np.zeros(b)
    half_m = np.empty((Tm, n))  # (m + 1)/2, one contiguous row per column
    for t in range(Tm):
        for j in range(n):
            half_m[t, j] = 0.5 * (m[j, t] + 1.0)
    half_alpha = np.empty((T, Tm))
    if one_vs_all and not weighted:
        # one sweep along the pool for all labels: label y changes column y by on[y] and
        # every other column t by the same off[t] (bit for bit the steps computed below)
        off, on, qi = np.empty(Tm), np.empty(Tm), np.empty(Tm)
        for k in range(b):
            r, i = rows[k], idx[k]
            for t in range(Tm):
                dii = D_of[t][r, i]
                o = 1 if t == 0 else 0  # a label other than t
                off[t] = 0.5 * ((targets[o, t] - m[i, t]) / (dii + lam_w[t, o]))
                on[t] = 0.5 * ((targets[t, t] - m[i, t]) / (dii + lam_w[t, t]))
                qi[t] = q[i, t]
            if clip:
                s = _one_vs_all_sum(half_m, D_of, r, off, on, qi, True)
            else:
                s = _one_vs_all_sum(half_m, D_of, r, off, on, qi, False)
            out[k] = inv_w[0] * s
        return out
    for k in range(b):
        r, i = rows[k], idx[k]
        for c in range(T):
            for t in range(Tm):
                dii = D_of[t][r, i]
                half_alpha[c, t] = 0.5 * ((targets[c, t] - m[i, t]) / (dii + lam_w[t, c]))
        s = 0.0
        for c in range(T):
            a = half_alpha[c]
            # the flags as constants: a loop-invariant test in the loop stops vectorisation
            if weighted and clip:
                risk = _label_sum(half_m, D_of, r, a, inv_w, True, True)
            elif weighted:
                risk = _label_sum(half_m, D_of, r, a, inv_w, False, True)
            elif clip:
                risk = _label_sum(half_m, D_of, r, a, inv_w, True, False)
            else:
                risk = _label_sum(half_m, D_of, r, a, inv_w, False, False)
            s += q[i, c] * risk
        out[k] = s if weighted else inv_w[0] * s
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
        The probabilities' rule (:func:`~rlscore.query.rls_state.weighted.pool_risk`).

    Returns
    -------
    ndarray (b,)
    """
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    idx = np.ascontiguousarray(idx, dtype=np.intp)
    f64 = {"dtype": np.float64}
    q = np.ascontiguousarray(q, **f64)
    inv_w, targets, lam_w = _small_copy(inv_w), _small_copy(targets), _small_copy(lam_w)
    Ds = [np.ascontiguousarray(D, **f64) for D in Ds]
    if m.shape[1] == 1:
        weighted = bool(inv_w[0] != inv_w[1])
        m0 = np.ascontiguousarray(m[:, 0])
        return _binary(
            Ds[0], rows, idx, m0, targets[:, 0].copy(), lam_w[0].copy(), q, inv_w, clip, weighted
        )
    m = np.ascontiguousarray(m, **f64)
    weighted = bool(inv_w.min() != inv_w.max())
    D_of = tuple(Ds[g] for g in np.asarray(group_of).tolist())
    one_vs_all = _is_one_vs_all(targets, lam_w)
    return _multiclass(D_of, rows, idx, m, targets, lam_w, q, inv_w, clip, weighted, one_vs_all)


def _small_copy(a: np.ndarray) -> np.ndarray:
    """A fresh C-ordered float64 copy of a small array (labels × columns at most).

    numba compiles a kernel once per argument type, and an array's type includes whether it
    is read-only: a caller's cached, read-only weights would compile every kernel a second
    time (about 3 s each, on a user's first query). A copy is always writable."""
    return np.array(a, dtype=np.float64, order="C")


def _is_one_vs_all(targets: np.ndarray, lam_w: np.ndarray) -> bool:
    """Whether label c moves every column t ≠ c alike: one label per column (T = T'), and
    column t's target and ``λ/a_t(y)`` the same for every label y ≠ t."""
    T, Tm = targets.shape
    if T != Tm:
        return False
    cols = np.arange(T)
    other = (cols == 0).astype(np.intp)  # a label other than each column's own, as the kernel
    others = ~np.eye(T, dtype=bool)  # [c, t]: label c is not column t's
    same_target = targets == targets[other, cols]  # targets[c, t] vs targets[other_t, t]
    same_lam = lam_w == lam_w[cols, other][:, None]  # lam_w[t, c] vs lam_w[t, other_t]
    return bool(same_target[others].all() and same_lam[others].all())


@numba.njit(cache=True, fastmath=FASTMATH, nogil=True)
def _sampled_binary(D, alpha, m, q, h, cap, total, squares):  # pragma: no cover
    # D (p, b); alpha (2, b); m (p,); q (2, b); h (2,) = 1/(2w) of the class not predicted
    # when f > 0 and when f ≤ 0; cap = 1 (clipped) or ∞
    p, b = D.shape
    a0, a1, q0, q1 = alpha[0], alpha[1], q[0], q[1]
    for z in range(p):
        mz = m[z]
        d = D[z]
        for i in range(b):
            f0 = mz + d[i] * a0[i]
            f1 = mz + d[i] * a1[i]
            r0 = (h[0] if f0 > 0.0 else h[1]) * (1.0 - min(abs(f0), cap))
            r1 = (h[0] if f1 > 0.0 else h[1]) * (1.0 - min(abs(f1), cap))
            g = q0[i] * r0 + q1[i] * r1
            total[i] += g
            squares[i] += g * g


@numba.njit(cache=True, fastmath=FASTMATH, inline="always")
def _add_label(g, D_of, z, half_m, half_alpha, qy, inv_w, clip, weighted):  # pragma: no cover
    """``g[i] += q_i(y) ρ_i(z)`` for every candidate i under one label y, where
    ``(f' + 1)/2 = half_m[z] + d_i(z) half_alpha[t, i]`` per column t; unweighted without the
    factor ``1/w``."""
    Tm = len(D_of)
    inv_sum = inv_w.sum()
    lo = 0.0 if clip else -np.inf  # clip(v) = min(max(v, lo), hi): one loop for both rules
    hi = 1.0 if clip else np.inf
    for i in range(g.size):
        best, ww, total, wsum = -np.inf, 1.0, 0.0, 0.0
        for t in range(Tm):  # T' is a compile-time constant (a tuple's length): unrolled
            v = half_m[z, t] + D_of[t][z, i] * half_alpha[t, i]
            best, ww, total, wsum = add_column(v, inv_w[t], best, ww, total, wsum, lo, hi, weighted)
        g[i] += qy[i] * column_risk(best, ww, total, wsum, inv_sum, Tm, lo, hi, clip, weighted)


@numba.njit(cache=True, fastmath=FASTMATH, nogil=True)
def _sampled_multiclass(
    D_of, half_alpha, half_m, q, inv_w, clip, weighted, total, squares
):  # pragma: no cover
    # D_of: the (p, b) covariance of each column (a tuple: T' is a compile-time constant);
    # half_alpha (T, T', b) = α/2; half_m (p, T') = (m + 1)/2; q (T, b)
    p, b = D_of[0].shape
    T = half_alpha.shape[0]
    scale = 1.0 if weighted else inv_w[0]
    g = np.empty(b)
    for z in range(p):
        g[:] = 0.0
        for y in range(T):
            # the flags as constants: a loop-invariant test in the loop stops vectorisation
            if weighted and clip:
                _add_label(g, D_of, z, half_m, half_alpha[y], q[y], inv_w, True, True)
            elif weighted:
                _add_label(g, D_of, z, half_m, half_alpha[y], q[y], inv_w, False, True)
            elif clip:
                _add_label(g, D_of, z, half_m, half_alpha[y], q[y], inv_w, True, False)
            else:
                _add_label(g, D_of, z, half_m, half_alpha[y], q[y], inv_w, False, False)
        for i in range(b):
            gi = scale * g[i]
            total[i] += gi
            squares[i] += gi * gi


def _rows(D: np.ndarray) -> np.ndarray:
    """``D`` contiguous, float32 kept as it is (a copy to float64 would cost a pass over it)."""
    dtype = np.float32 if D.dtype == np.float32 else np.float64
    return np.ascontiguousarray(D, dtype=dtype)


def point_risk_sums(
    Ds: list[np.ndarray],
    group_of: np.ndarray,
    alphas: list[np.ndarray],
    m_rows: np.ndarray,
    q: np.ndarray,
    inv_w: np.ndarray,
    clip: bool,
    total: np.ndarray,
    squares: np.ndarray,
) -> None:
    """Add ``Σ_z g_i(z)`` to ``total`` and ``Σ_z g_i(z)²`` to ``squares`` over a block of
    points z and candidates i (in place).

    Parameters
    ----------
    Ds : list of ndarray (p, b)
        ``d_i(z)`` on the block's points, one array per group of one-vs-all columns; float32
        rows are read as they are (the low-rank features' rows,
        :data:`~rlscore.query.arls.lowrank.SAMPLED_ROWS_DTYPE`), the sums are float64.
    group_of : ndarray (T',) of int
        The group (index into ``Ds``) of each column.
    alphas : list of ndarray (b, T')
        ``α_i(y)`` per label y.
    m_rows : ndarray (p, T')
        The current predictions on the block's points.
    q : ndarray (b, T)
        ``p̂(y|x_i)/w_y`` of the candidates.
    inv_w : ndarray (T,)
        ``1/w_l`` of the risk.
    clip : bool
        The probabilities' rule (:func:`~rlscore.query.rls_state.weighted.pool_risk`).
    total, squares : ndarray (b,)
        Running sums, updated.
    """
    f64 = {"dtype": np.float64}
    inv_w = _small_copy(inv_w)
    qT = np.ascontiguousarray(np.asarray(q, **f64).T)
    if m_rows.shape[1] == 1:
        weighted = inv_w[0] != inv_w[1]
        # f > 0 predicts class 1: the error is class 0's, weighted 1/w_0
        h = 0.5 * (inv_w if weighted else np.full(2, inv_w[0]))
        alpha = np.ascontiguousarray(np.stack([a[:, 0] for a in alphas]))
        D = _rows(Ds[0])
        m = np.ascontiguousarray(m_rows[:, 0], **f64)
        _sampled_binary(D, alpha, m, qT, h, 1.0 if clip else np.inf, total, squares)
        return
    weighted = bool(inv_w.min() != inv_w.max())
    D_of = tuple(_rows(Ds[g]) for g in np.asarray(group_of).tolist())
    half_alpha = np.ascontiguousarray(0.5 * np.stack(alphas).transpose(0, 2, 1))
    half_m = np.ascontiguousarray(0.5 * (m_rows + 1.0), **f64)
    _sampled_multiclass(D_of, half_alpha, half_m, qT, inv_w, bool(clip), weighted, total, squares)


__all__ = [
    "FASTMATH",
    "ROWS",
    "add_column",
    "column_risk",
    "fused_expected_risks",
    "point_risk_sums",
]
