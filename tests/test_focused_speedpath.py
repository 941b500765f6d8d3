"""Focused ARLS's fast path (issue 25) against the computation it replaced.

The candidates come from a partition instead of a full sort, the kernel rows from the pool's
squared norms kept since ``start`` (no validation or norm pass per query), and the covariance
rows of all candidates from one product: each must equal the old result
(``tests/reference/focused_candidates.py``: a stable argsort; dense ``K − K_{:L}G⁻¹K_{L:}``
plus the offset term) and the scores those of the blocked lookahead
(``tests/reference/arls_blocked.py``) to 1e-10.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference.arls_blocked import expected_risks
from reference.focused_candidates import dense_covariance_rows, old_candidates

import rlscore.core.conventions.input_validation
import rlscore.core.kernels.functions
from rlscore.core.kernels.functions import (
    checked_kernel_matrix,
    kernel_matrix,
    rbf_kernel,
    squared_distances_from_norms,
    squared_norms,
)
from rlscore.query import FocusedARLS
from rlscore.query.arls.focused import smallest

SIGMA, LAM = 1.4, 0.4


def pool(n: int, T: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) * 1.5
    if T == 2:
        return X, np.where(X[:, 0] + np.sin(X[:, 1]) > 0, 1, -1), [-1, 1]
    g = X[:, 0] - 0.4 * X[:, 1]
    return X, np.digitize(g, np.quantile(g, np.linspace(0, 1, T + 1)[1:-1])), list(range(T))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=1, max_size=60),
    st.integers(1, 70),
)
def test_smallest_equals_the_first_k_of_a_stable_argsort(values, k):
    v = np.asarray(values, dtype=float)  # few distinct values: many ties at the threshold
    expected = np.argsort(v, kind="stable")[:k]
    np.testing.assert_array_equal(smallest(v, k), expected)


def test_kernel_rows_from_kept_norms_equal_the_kernel_matrix():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4)) * 3.0
    Z = X[[5, 17, 200]]
    n = squared_norms(X)
    old = n[:, None] + n[[5, 17, 200]][None, :] - 2.0 * (X @ Z.T)
    np.maximum(old, 0.0, out=old)
    # the same rounding as the expression it replaces, in either orientation
    np.testing.assert_array_equal(squared_distances_from_norms(X, Z, n, n[[5, 17, 200]]), old)
    np.testing.assert_array_equal(squared_distances_from_norms(Z, X, n[[5, 17, 200]], n), old.T)
    for kernel in ("rbf", "linear", "polynomial"):
        got = checked_kernel_matrix(X, Z, kernel=kernel, sigma=2.0, degree=3)
        np.testing.assert_array_equal(
            got, kernel_matrix(X, Z, kernel=kernel, sigma=2.0, degree=3), err_msg=kernel
        )


def reference_state(q: FocusedARLS) -> dict:
    inv_w, lam_w, targets, group_of = q.lookahead_terms()
    return {
        "m": q._m,
        "q": q.class_probabilities() * inv_w,
        "inv_w": inv_w,
        "lam_w": lam_w,
        "targets": targets,
        "group_of": group_of,
        "clip": q.clip,
    }


def check_against_old(q: FocusedARLS, K: np.ndarray, T: int, exclude=()) -> None:
    """Candidates, covariance rows, scores and pick equal the old computation."""
    L = list(q.labeled_)
    cand = q.candidate_indices(exclude)
    f = q.decision_function()
    np.testing.assert_array_equal(cand, old_candidates(q.n_pool_, L, f, q.focus, exclude))
    rows = q.covariance_rows(cand)
    if L:
        classes = q._label_positions()
        offset = q._offset_active(classes)
        for cols, got in zip(q._groups, rows, strict=True):
            G = K[np.ix_(L, L)] + np.diag(q._lam / q._W[cols[0], classes])
            ref = dense_covariance_rows(K, L, G, cand, offset, q.offset_precision)
            np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10)
    ref_scores = expected_risks(reference_state(q), cand, [np.asarray(r) for r in rows])
    scores = q._scored(tuple(sorted(exclude)))[1]  # the scores of that candidate draw
    scale = max(1.0, np.abs(ref_scores).max())
    np.testing.assert_allclose(scores[cand], ref_scores, rtol=0, atol=1e-10 * scale)
    assert np.isnan(np.delete(scores, cand)).all()
    i, _ = q.next_query(exclude=exclude)
    order = np.sort(ref_scores)
    if order.size == 1 or order[1] - order[0] > 1e-9 * scale:
        assert i == cand[int(np.argmin(ref_scores))]


@pytest.mark.parametrize(
    ("T", "class_weight", "given_kernel", "offset"),
    [
        (2, None, False, True),
        (2, None, True, False),
        (2, "balanced", False, True),
        (3, "balanced", False, True),
        (3, None, True, True),
    ],
)
def test_fast_path_equals_the_old_computation_through_teach_and_undo(
    T, class_weight, given_kernel, offset
):
    X, y, classes = pool(90, T, seed=T)
    K = rbf_kernel(X, sigma=SIGMA)
    q = FocusedARLS(
        sigma=SIGMA,
        lam=LAM,
        class_weight=class_weight,
        focus=7,
        fit_intercept=offset,
        explore=0.0,  # the exploiting path is what is compared
    ).start(X, classes, K=K if given_kernel else None)
    check_against_old(q, K, T)  # cold start: every point a candidate
    for c in classes:
        q.teach(int(np.flatnonzero(y == c)[0]), c)
    for _ in range(5):
        check_against_old(q, K, T, exclude=(3, 4))
        i, _ = q.next_query()
        q.teach(i, y[i].item())
    q.undo()
    q.undo()
    check_against_old(q, K, T)


def test_queries_neither_validate_the_pool_nor_recompute_its_norms(monkeypatch):
    """After ``start``, a query and a label check no matrix and compute no squared norms of
    the pool: those happen once per pool (counted)."""
    X, y, classes = pool(400, 2, seed=7)
    q = FocusedARLS(sigma=SIGMA, lam=LAM, focus=10).start(X, classes)
    calls = {"check_matrix": 0, "squared_norms": 0}

    def counted(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(
        rlscore.core.kernels.functions,
        "check_matrix",
        counted("check_matrix", rlscore.core.kernels.functions.check_matrix),
    )
    monkeypatch.setattr(
        rlscore.core.conventions.input_validation,
        "check_matrix",
        counted("check_matrix", rlscore.core.conventions.input_validation.check_matrix),
    )
    monkeypatch.setattr(
        rlscore.core.kernels.functions,
        "squared_norms",
        counted("squared_norms", rlscore.core.kernels.functions.squared_norms),
    )
    for c in classes:
        q.teach(int(np.flatnonzero(y == c)[0]), c)
    for _ in range(4):
        i, _ = q.next_query()
        q.teach(i, y[i].item())
    assert calls == {"check_matrix": 0, "squared_norms": 0}
    # the counters work: a kernel matrix on new points validates and computes norms
    kernel_matrix(X[:3], X[:2], sigma=SIGMA)
    assert calls["check_matrix"] > 0 and calls["squared_norms"] > 0


def test_covariance_product_over_stretches_and_blocks_equals_the_dense_one(monkeypatch):
    """``Cᵀ K_{L:}`` a stretch of pool points at a time (issue 36), over several blocks of
    labeled columns and after a removal moved a column, against the dense kernel's rows."""
    from rlscore.query.rls_state import on_kernel

    monkeypatch.setattr(on_kernel, "_DOT_ROWS_POINTS", 70)  # 300 points: five stretches
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 3))
    held = on_kernel._LabeledColumns(X, "rbf", 1.3, 2)
    L = rng.choice(300, 40, replace=False)  # three blocks of 16 columns
    held.sync(L)
    L = np.delete(L, 7)
    held.sync(L)  # the last column moved into the freed slot
    C = rng.normal(size=(L.size, 5))
    want = C.T @ rbf_kernel(X[L], X, sigma=1.3)
    np.testing.assert_allclose(held.dot_rows(L, C), want, rtol=0, atol=1e-12)
    assert held.dot_rows(L, C).flags["C_CONTIGUOUS"]


def test_lookahead_weights_only_at_the_candidates_equal_the_pool_probabilities():
    """The lookahead's expectation weights made at the candidates (issue 36) are the pool's
    class probabilities at those rows, clipped or not, binary or one-vs-all."""
    for T in (2, 3):
        X, y, classes = pool(200, T)
        for clip in (True, False):
            q = FocusedARLS(sigma=SIGMA, lam=LAM, clip=clip).start(X, classes)
            q.teach_many(list(range(12)), [y[i] for i in range(12)])
            idx = np.array([20, 21, 150, 199])
            np.testing.assert_array_equal(
                q.class_probabilities_at(idx), q.class_probabilities()[idx]
            )
