"""Naive references for ARLS (docs/mathematics.md §5): refit RLS from scratch for every candidate
and label.

Used by the ARLS, baseline and low-memory tests; ``tests/test_arls_reference.py`` checks
these references against facts that do not depend on them.
"""

from __future__ import annotations

import numpy as np


def targets(classes_idx, T: int) -> np.ndarray:
    """±1 one-vs-all targets (one column, class 1 positive, when T = 2)."""
    rows = []
    for c in classes_idx:
        if T == 2:
            rows.append([1.0 if c == 1 else -1.0])
        else:
            rows.append([1.0 if t == c else -1.0 for t in range(T)])
    return np.array(rows, dtype=float).reshape(len(classes_idx), 1 if T == 2 else T)


def spec_weights(classes_idx, classes, class_weight):
    """docs/mathematics.md §1 weights written out, with ARLS's convention (counts over the labels so
    far).

    Returns ``(W, w)``: ``W[t, c]`` the loss weight of a class-c label in OvA column t (one
    column for two classes), and ``w[c]`` the per-class risk weight of eq. 3.49.
    ``"balanced"``: binary ``l/(2l_c)``; multiclass column t gives its class ``l/(2l_t)`` and
    the others ``l/(2(l − l_t))``, risk weight ``l/(T·l_c)``; all 1 until every class has a
    label. A dict (class label → weight) is used as given in every column.
    """
    T = len(classes)
    W = np.ones((1 if T == 2 else T, T))
    w = np.ones(T)
    if isinstance(class_weight, dict):
        for c, label in enumerate(classes):
            W[:, c] = w[c] = class_weight.get(label, 1.0)
    elif class_weight == "balanced":
        l_total = len(classes_idx)
        counts = [sum(1 for k in classes_idx if k == c) for c in range(T)]
        if min(counts) > 0:
            for c in range(T):
                w[c] = l_total / (T * counts[c])
                if T == 2:
                    W[0, c] = l_total / (2 * counts[c])
                for t in range(W.shape[0] if T > 2 else 0):
                    if c == t:
                        W[t, c] = l_total / (2 * counts[t])
                    else:
                        W[t, c] = l_total / (2 * (l_total - counts[t]))
    return W, w


def _column_weights(w, T):
    """Loss weights as (T', T): a per-class vector (T,) is the same in every column."""
    return np.broadcast_to(np.asarray(w, dtype=float), (1 if T == 2 else T, T))


def naive_fit(K, labeled, classes_idx, lam, w, T) -> np.ndarray:
    """Pool predictions ``K_{:L}(K_LL + λ diag(1/a_t(y)))⁻¹ y_L^t`` per column, (n, T').

    ``w`` is the (T', T) loss-weight table of :func:`spec_weights` or a per-class (T,) vector.
    """
    n = K.shape[0]
    W = _column_weights(w, T)
    f = np.zeros((n, W.shape[0]))
    if len(labeled) == 0:
        return f
    L, cls = np.asarray(labeled), np.asarray(classes_idx)
    Y = targets(classes_idx, T)
    for t in range(W.shape[0]):
        G = K[np.ix_(L, L)] + lam * np.diag(1.0 / W[t, cls])
        f[:, t] = K[:, L] @ np.linalg.solve(G, Y[:, t])
    return f


def naive_V(K, labeled, classes_idx, lam, w, T) -> np.ndarray:
    """``V = K_{:L}(K_LL + λW^L)⁻¹K_{L:}`` (eq. 3.51) per OvA column, (T', n, n)."""
    W = _column_weights(w, T)
    V = np.zeros((W.shape[0], *K.shape))
    if len(labeled) == 0:
        return V
    L, cls = np.asarray(labeled), np.asarray(classes_idx)
    for t in range(W.shape[0]):
        G = K[np.ix_(L, L)] + lam * np.diag(1.0 / W[t, cls])
        V[t] = K[:, L] @ np.linalg.solve(G, K[L, :])
    return V


def naive_proba(f: np.ndarray, clip: bool, T: int) -> np.ndarray:
    """``p̂(c|z)`` per point, (n, T): docs/mathematics.md §1/§5 (clipped and normalised, or raw)."""
    if T == 2:
        p = (1.0 + f[:, 0]) / 2.0
        if clip:
            p = np.clip(p, 0.0, 1.0)
        return np.column_stack([1.0 - p, p])
    p = (f + 1.0) / 2.0
    if not clip:
        return p
    p = np.clip(p, 0.0, 1.0)
    out = np.full_like(p, 1.0 / T)
    for z in range(p.shape[0]):
        if p[z].sum() > 0:
            out[z] = p[z] / p[z].sum()
    return out


def naive_prediction(f: np.ndarray, T: int) -> np.ndarray:
    """Predicted class position: sign for binary (0 → first class), argmax otherwise."""
    if T == 2:
        return (f[:, 0] > 0).astype(int)
    return np.argmax(f, axis=1)


def naive_risk(f: np.ndarray, inv_w, clip: bool, T: int) -> float:
    """``Σ_z Σ_{l ≠ ĉ_z} p̂(l|z)/w_l`` written as the definition (eqs. 3.47, 3.49)."""
    P = naive_proba(f, clip, T)
    chosen = naive_prediction(f, T)
    total = 0.0
    for z in range(f.shape[0]):
        for ell in range(T):
            if ell != chosen[z]:
                total += P[z, ell] * inv_w[ell]
    return total


def naive_scores(K, labeled, classes_idx, lam, w, inv_w, clip, T) -> np.ndarray:
    """Expected risk of every unlabeled candidate by refitting for each label (eq. 3.50).

    The hypothetical label is weighted by the current weights ``w`` (fixed while labeling).
    """
    n = K.shape[0]
    P = naive_proba(naive_fit(K, labeled, classes_idx, lam, w, T), clip, T)
    out = np.full(n, np.nan)
    for i in range(n):
        if i in labeled:
            continue
        out[i] = sum(
            P[i, c]
            * inv_w[c]
            * naive_risk(naive_fit(K, [*labeled, i], [*classes_idx, c], lam, w, T), inv_w, clip, T)
            for c in range(T)
        )
    return out
