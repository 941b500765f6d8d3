"""Focused ARLS against naive refits: the candidates are the smallest margins of a
from-scratch RLS, and each candidate's score is the expected risk of refitted classifiers."""

from __future__ import annotations

import numpy as np
import pytest
from reference.arls import naive_fit, spec_weights
from reference.arls_focused import naive_fit_offset, naive_focused_scores
from reference.exploration import exploratory_pick

from rlscore.core.kernels.functions import rbf_kernel
from rlscore.query import ARLS, FocusedARLS, NoCandidatesError, make_strategy

SIGMA, LAM = 1.2, 0.3


def pool(n=40, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 1.7
    y_bin = np.where(X[:, 0] - 0.4 * X[:, 1] > 0.3, 1, -1)
    y_multi = np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.9, 0.8])  # classes 0, 1, 2
    return X, y_bin, y_multi


CASES = [
    pytest.param(2, None, id="binary"),
    pytest.param(2, "balanced", id="binary-balanced"),
    pytest.param(3, None, id="multiclass"),
    pytest.param(3, {0: 1.0, 1: 2.5, 2: 0.7}, id="multiclass-weighted"),
    pytest.param(3, "balanced", id="multiclass-balanced"),
]


@pytest.mark.parametrize(("T", "class_weight"), CASES)
@pytest.mark.parametrize(
    ("given_kernel", "offset", "prior", "until"),
    [
        (False, True, 1.0, None),
        (True, True, 1.0, None),
        (False, True, 0.0, None),
        (False, False, 1.0, None),
        (False, True, 1.0, 5),  # the prior for the first 4 labels only, then the flat prior
    ],
)
def test_scores_and_queries_equal_naive_refits(T, class_weight, given_kernel, offset, prior, until):
    X, y_bin, y_multi = pool()
    classes, y = ([-1, 1], y_bin) if T == 2 else ([0, 1, 2], y_multi)
    K = rbf_kernel(X, sigma=SIGMA)
    q = FocusedARLS(
        sigma=SIGMA, lam=LAM, class_weight=class_weight, focus=6, fit_intercept=offset,
        offset_precision=prior, offset_prior_labels=until,
    )  # fmt: skip
    q.start(X, classes, K=K if given_kernel else None)
    Z = np.random.default_rng(1).normal(size=(7, 2))
    for c in classes:
        for i in np.flatnonzero(y == c)[: 1 + (c == classes[0])]:
            q.teach(int(i), c)
    for step in range(4):
        cls = [q.class_index(v) for v in q.labels_]
        # the reference's own reading of the schedule: P while fewer than `until` labels
        p = prior if until is None or len(cls) < until else 0.0
        assert q.offset_precision_ == p
        W, w = spec_weights(cls, classes, class_weight)
        inv_w = 1.0 / w if class_weight is not None else np.ones(T)
        exclude = () if step % 2 == 0 else tuple(q.candidate_indices()[:2])
        ref = naive_focused_scores(
            K, q.labeled_, cls, 6, exclude, W, inv_w, T, offset, LAM, precision=p
        )
        if offset and len(set(cls)) == T:
            m = naive_fit_offset(K, q.labeled_, cls, LAM, W, T, precision=p)
        else:
            m = naive_fit(K, q.labeled_, cls, LAM, W, T)
        np.testing.assert_allclose(q.m_, m, atol=1e-10)
        Kz = rbf_kernel(Z, X, sigma=SIGMA)
        f_new = naive_fit_offset(K, q.labeled_, cls, LAM, W, T, Kz, precision=p)
        if not offset:
            f_new = naive_fit(np.vstack([K, rbf_kernel(Z, X, sigma=SIGMA)]),
                              q.labeled_, cls, LAM, W, T)[K.shape[0]:]  # fmt: skip
        got_new = q.decision_function_at(Z)
        np.testing.assert_allclose(got_new.reshape(f_new.shape), f_new, atol=1e-10)
        if not exclude:
            np.testing.assert_allclose(q.scores(), ref, atol=1e-9, equal_nan=True)
        i, score = q.next_query(exclude)
        # the default explores a share of queries (documented rule, tests/reference)
        explored = exploratory_pick(K.shape[0], q.labeled_, exclude, q.explore, q.seed)
        best = int(np.nanargmin(ref)) if explored is None else explored
        assert i == best and score == pytest.approx(ref[best], abs=1e-9, nan_ok=True)
        q.teach(i, y[i].item())


def test_no_label_scores_every_point_and_one_class_fits_no_offset():
    # no label: every margin is 0, so every point is scored (thesis ARLS's first query)
    X, y_bin, _ = pool(n=15)
    K = rbf_kernel(X, sigma=SIGMA)
    q = FocusedARLS(sigma=SIGMA, lam=LAM, focus=4).start(X, [-1, 1])
    ref = naive_focused_scores(K, [], [], 4, (), np.ones(2), np.ones(2), 2, True, LAM)
    assert np.isfinite(ref).all()
    np.testing.assert_allclose(q.scores(), ref, atol=1e-12)
    arls = ARLS(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
    np.testing.assert_allclose(q.scores(), arls.scores(), atol=1e-12)
    # one class labeled: no offset yet (it would be the constant f ≡ y), f decays from the label
    q.teach(3, 1)
    np.testing.assert_allclose(q.intercept_, [0.0])
    np.testing.assert_allclose(
        q.decision_function(), naive_fit(K, [3], [1], LAM, np.ones(2), 2)[:, 0]
    )
    ref = naive_focused_scores(K, [3], [1], 4, (), np.ones(2), np.ones(2), 2, True, LAM)
    np.testing.assert_allclose(q.scores(), ref, atol=1e-10, equal_nan=True)
    # both classes: the offset comes in
    q.teach(int(np.flatnonzero(y_bin == -1)[0]), -1)
    assert q.intercept_[0] != 0.0


def test_a_rare_class_is_found_from_a_single_label():
    """Circles of 2000 negatives and 20 positives inside, one negative labeled: the offset
    would make every point certain (f ≡ −1); without it the search reaches the inner circle
    as uncertainty sampling does."""
    from rlscore.data.samples.bundled import load_sample, sample_meta

    ds, meta = load_sample("circles"), sample_meta("circles")
    start = int(np.flatnonzero(ds.y == -1)[0])
    found = {}
    for name in ("arls-focused", "uncertainty"):
        q = make_strategy(name, sigma=meta["sigma"], lam=meta["lam"]).start(ds.X, [-1, 1])
        q.teach(start, -1)
        for t in range(1, 31):
            i, _ = q.next_query()
            q.teach(i, ds.y[i].item())
            if ds.y[i] == 1:
                found[name] = t
                break
    assert "uncertainty" in found  # the reference finds it
    assert found.get("arls-focused", 99) <= max(2 * found["uncertainty"], 10), found


def test_every_candidate_is_arls():
    # scoring all points without an offset, the focused strategy is ARLS: same scores, queries
    X, _, y = pool(n=30, seed=7)
    a = ARLS(sigma=SIGMA, lam=LAM).start(X, [0, 1, 2])
    b = FocusedARLS(sigma=SIGMA, lam=LAM, focus=30, fit_intercept=False, explore=0.0)
    b.start(X, [0, 1, 2])
    for _ in range(5):
        np.testing.assert_allclose(b.scores(), a.scores(), atol=1e-10, equal_nan=True)
        i = a.next_query()[0]
        assert b.next_query()[0] == i
        a.teach(i, int(y[i]))
        b.teach(i, int(y[i]))


def test_undo_and_forget_leave_the_never_taught_state():
    X, _, y = pool(n=30, seed=8)
    q = FocusedARLS(sigma=SIGMA, lam=LAM, focus=4).start(X, [0, 1, 2])
    fresh = FocusedARLS(sigma=SIGMA, lam=LAM, focus=4).start(X, [0, 1, 2])
    for i in (0, 5, 9, 13):
        q.teach(i, int(y[i]))
    for i in (0, 9):
        fresh.teach(i, int(y[i]))
    q.forget(5)
    q.undo()
    np.testing.assert_allclose(q.scores(), fresh.scores(), atol=1e-12, equal_nan=True)
    assert q.next_query() == pytest.approx(fresh.next_query())


def test_low_memory_path_keeps_no_pool_kernel():
    X, y_bin, _ = pool(n=50)
    q = FocusedARLS(sigma=SIGMA, lam=LAM, focus=5)
    assert not q.needs_pool_kernel()
    q.start(X, [-1, 1])
    assert q._K is None
    assert q.memory_bytes(5000, 10) < 5000 * 5000 * 8 / 5  # a fifth of one n × n matrix


def test_an_exclusion_never_empties_the_draw():
    X, y_bin, _ = pool(n=12)
    q = FocusedARLS(sigma=SIGMA, lam=LAM, focus=2).start(X, [-1, 1])
    q.teach(0, int(y_bin[0]))
    drawn = q.candidate_indices()
    i, _ = q.next_query(exclude=drawn)
    assert i not in drawn
    with pytest.raises(NoCandidatesError):
        q.next_query(exclude=range(1, 12))


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_bad_candidates_are_refused(bad):
    X, _, _ = pool(n=10)
    with pytest.raises(ValueError, match="focus"):
        FocusedARLS(focus=bad).start(X, [0, 1])


@pytest.mark.parametrize("bad", [-1, 2.5, True, "10"])
def test_a_bad_prior_schedule_is_refused_by_name(bad):
    X, _, _ = pool(n=10)
    with pytest.raises(ValueError, match="offset_prior_labels"):
        FocusedARLS(offset_prior_labels=bad).start(X, [0, 1])


def test_registered_by_name():
    q = make_strategy("arls-focused", sigma=2.0, focus=7)
    assert isinstance(q, FocusedARLS) and q.focus == 7 and q.sigma == 2.0
