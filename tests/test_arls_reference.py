"""Naive references for ARLS (SPEC §5): refit RLS from scratch for every candidate and label.

Used by test_arls.py and test_baselines.py; the tests here check the references themselves
against facts that do not depend on them.
"""

from __future__ import annotations

import numpy as np

from rlscore.core.kernels import rbf_kernel


def targets(classes_idx, T: int) -> np.ndarray:
    """±1 one-vs-all targets (one column, class 1 positive, when T = 2)."""
    rows = []
    for c in classes_idx:
        if T == 2:
            rows.append([1.0 if c == 1 else -1.0])
        else:
            rows.append([1.0 if t == c else -1.0 for t in range(T)])
    return np.array(rows, dtype=float).reshape(len(classes_idx), 1 if T == 2 else T)


def naive_fit(K, labeled, classes_idx, lam, w, T) -> np.ndarray:
    """Pool predictions ``K_{:L}(K_LL + λ diag(1/w_y))⁻¹ Y_L``, (n, 1) or (n, T)."""
    n = K.shape[0]
    if len(labeled) == 0:
        return np.zeros((n, 1 if T == 2 else T))
    L = np.asarray(labeled)
    G = K[np.ix_(L, L)] + lam * np.diag(1.0 / np.asarray(w)[np.asarray(classes_idx)])
    return K[:, L] @ np.linalg.solve(G, targets(classes_idx, T))


def naive_V(K, labeled, classes_idx, lam, w) -> np.ndarray:
    """``V = K_{:L}(K_LL + λW^L)⁻¹K_{L:}`` (eq. 3.51)."""
    if len(labeled) == 0:
        return np.zeros_like(K)
    L = np.asarray(labeled)
    G = K[np.ix_(L, L)] + lam * np.diag(1.0 / np.asarray(w)[np.asarray(classes_idx)])
    return K[:, L] @ np.linalg.solve(G, K[L, :])


def naive_proba(f: np.ndarray, clip: bool, T: int) -> np.ndarray:
    """``p̂(c|z)`` per point, (n, T): SPEC §1/§5 (clipped and normalised, or raw)."""
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
    """Expected risk of every unlabeled candidate by refitting for each label (eq. 3.50)."""
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


def test_naive_fit_interpolates_with_tiny_lambda():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    K = rbf_kernel(X, sigma=1.0)
    f = naive_fit(K, [0, 3, 5], [0, 1, 1], 1e-9, np.ones(2), 2)
    np.testing.assert_allclose(f[[0, 3, 5], 0], [-1, 1, 1], atol=1e-6)


def test_naive_risk_of_the_zero_classifier_is_half_per_point():
    f = np.zeros((7, 1))
    assert naive_risk(f, np.ones(2), True, 2) == 3.5
    # multiclass: uniform p̂ = 1/3, the error is 2/3 per point
    assert np.isclose(naive_risk(np.zeros((6, 3)), np.ones(3), True, 3), 4.0)
