"""Naive references for focused ARLS (rlscore.query.arls.focused): RLS with an offset from its
KKT system, margins, and the focused candidates scored by refits (docs/mathematics.md §5, eq. 3.50).
"""

from __future__ import annotations

import numpy as np

from reference.arls import naive_fit, naive_proba, naive_risk


def naive_fit_offset(K, labeled, cls, lam, W, T, Kz=None, precision=0.0) -> np.ndarray:
    """RLS with an offset by its KKT system, per column:
    ``[[K_LL + λA⁻¹, 1], [1ᵀ, −P]] [c; b] = [y; 0]`` (P = ``precision``, the precision of the
    offset's Gaussian prior; 0: unpenalised); values ``K_{:L} c + b`` on the pool (or on the
    points of ``Kz``, (m, n) kernel rows against the pool)."""
    Kz = K if Kz is None else Kz
    W = np.broadcast_to(np.asarray(W, dtype=float), (1 if T == 2 else T, T))
    if not labeled:
        return np.zeros((Kz.shape[0], W.shape[0]))
    L, c_idx = np.asarray(labeled), np.asarray(cls)
    Y = np.array([[1.0 if (T == 2 and c == 1) or (T > 2 and t == c) else -1.0
                   for t in range(W.shape[0])] for c in c_idx])  # fmt: skip
    out = np.zeros((Kz.shape[0], W.shape[0]))
    for t in range(W.shape[0]):
        l = L.size
        A = np.zeros((l + 1, l + 1))
        A[:l, :l] = K[np.ix_(L, L)] + lam * np.diag(1.0 / W[t, c_idx])
        A[:l, l] = A[l, :l] = 1.0
        A[l, l] = -precision
        sol = np.linalg.solve(A, np.r_[Y[:, t], 0.0])
        out[:, t] = Kz[:, L] @ sol[:l] + sol[l]
    return out


def naive_margins(f: np.ndarray) -> np.ndarray:
    """|f| for one column; the gap between the two largest values otherwise."""
    if f.shape[1] == 1:
        return np.abs(f[:, 0])
    top = np.sort(f, axis=1)
    return top[:, -1] - top[:, -2]


def naive_focused_scores(K, labeled, cls, k, exclude, W, inv_w, T, offset, lam, precision=0.0):
    """The k unlabeled, not excluded points of smallest margin (ties: lowest index), each
    scored by refitting RLS with every hypothetical label (eq. 3.50); NaN elsewhere. The
    offset (with the prior ``precision``) only once every class is labeled (for the current
    fit and its refits alike); with no label every free point is scored."""
    n = K.shape[0]
    if offset and len(set(cls)) == T:

        def fit(K, labeled, cls, lam, W, T):
            return naive_fit_offset(K, labeled, cls, lam, W, T, precision=precision)
    else:
        fit = naive_fit
    f = fit(K, labeled, cls, lam, W, T)
    P = naive_proba(f, True, T)
    free = [i for i in range(n) if i not in labeled and i not in exclude]
    mg = naive_margins(f)
    chosen = sorted(free, key=lambda i: (mg[i], i))[:k] if labeled else free
    out = np.full(n, np.nan)
    for i in chosen:
        out[i] = sum(
            P[i, c]
            * inv_w[c]
            * naive_risk(fit(K, [*labeled, i], [*cls, c], lam, W, T), inv_w, True, T)
            for c in range(T)
        )
    return out
