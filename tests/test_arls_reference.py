"""Naive references for ARLS (SPEC §5): refit RLS from scratch for every candidate and label.

Used by test_arls.py and test_baselines.py; the first tests here check the references
themselves against facts that do not depend on them, the last ones check ARLS with balanced
multiclass weights (SPEC §1: one weight vector per one-vs-all column) against them.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlscore.core.kernels import rbf_kernel
from rlscore.query.arls import ARLS


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
    """SPEC §1 weights written out, with ARLS's convention (counts over the labels so far).

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


def test_naive_fit_solves_each_column_with_its_own_weights():
    # a single label: f_t = K_{:i} y_t / (K_ii + λ/a_t(y)) in closed form
    rng = np.random.default_rng(1)
    K = rbf_kernel(rng.normal(size=(6, 2)), sigma=1.0)
    W = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.5, 0.25, 8.0]])
    f = naive_fit(K, [2], [1], 0.3, W, 3)
    for t, y in enumerate([-1.0, 1.0, -1.0]):
        np.testing.assert_allclose(f[:, t], K[:, 2] * y / (1.0 + 0.3 / W[t, 1]))


def test_spec_weights_by_hand():
    # l = 6 labels, counts 3, 2, 1 (T = 3)
    W, w = spec_weights([0, 0, 0, 1, 1, 2], [0, 1, 2], "balanced")
    np.testing.assert_allclose(W, [[1.0, 1.0, 1.0], [0.75, 1.5, 0.75], [0.6, 0.6, 3.0]])
    np.testing.assert_allclose(w, [2 / 3, 1.0, 2.0])
    W, w = spec_weights([1, 0, 0, 0], ["a", "b"], "balanced")  # l = 4: 3 "a", 1 "b"
    np.testing.assert_allclose(W, [[2 / 3, 2.0]])
    np.testing.assert_allclose(w, [2 / 3, 2.0])
    W, w = spec_weights([0, 0, 1], [0, 1, 2], "balanced")  # class 2 unlabeled: all 1
    np.testing.assert_array_equal(W, np.ones((3, 3)))
    W, w = spec_weights([0], [-1, 1], {1: 4.0})
    np.testing.assert_allclose(W, [[1.0, 4.0]])
    np.testing.assert_allclose(w, [1.0, 4.0])


# -- ARLS with balanced multiclass weights against naive refits -------------------------------
def _arls_pool(n=30, seed=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 1.6
    y = np.digitize(X[:, 0] + 0.4 * X[:, 1], [-1.2, 0.3])  # classes 0, 1, 2, unequal sizes
    return X, y


@pytest.mark.parametrize("bias_corrected", [True, False])
def test_multiclass_balanced_arls_equals_naive_refits(bias_corrected):
    X, y = _arls_pool()
    sigma, lam, classes = 1.1, 0.25, [0, 1, 2]
    K = rbf_kernel(X, sigma=sigma)
    q = ARLS(sigma=sigma, lam=lam, class_weight="balanced", bias_corrected=bias_corrected)
    q.start(X, classes)
    # unequal class counts, so every OvA column has its own weights
    seeds = [np.flatnonzero(y == c)[:k] for c, k in ((0, 3), (1, 1), (2, 2))]
    for i in np.concatenate(seeds):
        q.teach(int(i), int(y[i]))
    for _ in range(3):
        L, cls = list(q.labeled_), [q.class_index(v) for v in q.labels_]
        W, w = spec_weights(cls, classes, "balanced")
        inv_w = 1.0 / w if bias_corrected else np.ones(3)
        f = naive_fit(K, L, cls, lam, W, 3)
        np.testing.assert_allclose(q.m_, f, atol=1e-10)
        np.testing.assert_allclose(q.V_, naive_V(K, L, cls, lam, W, 3), atol=1e-10)
        assert q.estimated_risk() == pytest.approx(naive_risk(f, inv_w, True, 3), abs=1e-9)
        ref = naive_scores(K, L, cls, lam, W, inv_w, True, 3)
        got = q.scores()
        np.testing.assert_allclose(got, ref, atol=1e-9, equal_nan=True)
        i, score = q.next_query()
        order = np.sort(ref[~np.isnan(ref)])
        assert order[1] - order[0] > 1e-9  # a clear winner on this pool
        assert i == int(np.nanargmin(ref)) and score == pytest.approx(order[0], abs=1e-9)
        q.teach(i, int(y[i]))
    # undo back to the seed labels, and the state equals the never-taught one
    for _ in range(3):
        q.undo()
    L, cls = list(q.labeled_), [q.class_index(v) for v in q.labels_]
    W, _ = spec_weights(cls, classes, "balanced")
    np.testing.assert_allclose(q.m_, naive_fit(K, L, cls, lam, W, 3), atol=1e-10)
    np.testing.assert_allclose(q.V_, naive_V(K, L, cls, lam, W, 3), atol=1e-9)
