"""The sums of a sampled lookahead in one compiled pass (numba): ``Σ_z g_i(z)`` and ``Σ_z g_i(z)²``.

Low-rank ARLS estimates each candidate's expected risk on a sample S of pool points and its
standard error from the spread of the per-point terms (:mod:`rlscore.query.arls.lowrank`), so it
needs, per candidate i, the sum and the sum of squares over z ∈ S of

``g_i(z) = Σ_y p̂(y|x_i)/w_y · ρ(m_z + d_i(z) α_i(y))``,

with ρ the per-point term of the pool risk (eq. 3.49,
:func:`~rlscore.query.rls_state.weighted.pool_risk` applied to single points). In numpy this is
about a dozen passes over every (point, candidate) block per label; here each covariance entry
``d_i(z)`` is read once and serves every label and column, the per-point risk is formed in
registers and only the two running sums per candidate are written. The loop over a point's
candidates (a contiguous row of ``d``) is the inner one, so it vectorises; the loops over the
columns unroll (the columns' covariances come as a tuple, one compiled kernel per number of
columns, as in :mod:`rlscore.query.arls.fused_lookahead`).

The sums equal the numpy ones to rounding (``tests/test_point_risk_sums.py``: the order of the
additions differs). The module is imported only when a sampled lookahead runs, so importing
:mod:`rlscore.query` does not load numba.
"""

from __future__ import annotations

import numba
import numpy as np

from rlscore.query.arls.fused_lookahead import FASTMATH, add_column, column_risk


@numba.njit(cache=True, fastmath=FASTMATH, nogil=True)
def _binary(D, alpha, m, q, h, cap, total, squares):  # pragma: no cover
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
def _multiclass(
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
        ``d_i(z)`` on the block's points, one array per group of one-vs-all columns.
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
    inv_w = np.ascontiguousarray(inv_w, **f64)
    qT = np.ascontiguousarray(np.asarray(q, **f64).T)
    if m_rows.shape[1] == 1:
        weighted = inv_w[0] != inv_w[1]
        # f > 0 predicts class 1: the error is class 0's, weighted 1/w_0
        h = 0.5 * (inv_w if weighted else np.full(2, inv_w[0]))
        alpha = np.ascontiguousarray(np.stack([a[:, 0] for a in alphas]))
        D = np.ascontiguousarray(Ds[0], **f64)
        m = np.ascontiguousarray(m_rows[:, 0], **f64)
        _binary(D, alpha, m, qT, h, 1.0 if clip else np.inf, total, squares)
        return
    weighted = bool(inv_w.min() != inv_w.max())
    D_of = tuple(np.ascontiguousarray(Ds[g], **f64) for g in np.asarray(group_of).tolist())
    half_alpha = np.ascontiguousarray(0.5 * np.stack(alphas).transpose(0, 2, 1))
    half_m = np.ascontiguousarray(0.5 * (m_rows + 1.0), **f64)
    _multiclass(D_of, half_alpha, half_m, qT, inv_w, bool(clip), weighted, total, squares)


__all__ = ["point_risk_sums"]
