"""rlscore.label_issues: the exact leave-one-out label checker against brute-force refits."""

from __future__ import annotations

import numpy as np
import pytest

import rlscore
from rlscore.core.evaluation.calibration import fit_platt
from rlscore.core.evaluation.label_issues import label_margins


def _rbf(X: np.ndarray, sigma: float) -> np.ndarray:
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-sq / (2.0 * sigma**2))


def _brute_force(K: np.ndarray, codes: np.ndarray, n_classes: int, lam: float) -> np.ndarray:
    """(n, T) one-vs-all decision values at each point of RLS refitted without it: the
    system (K + λI)c = Y solved from scratch n times."""
    Y = -np.ones((codes.size, n_classes))
    Y[np.arange(codes.size), codes] = 1.0
    F = np.empty_like(Y)
    for i in range(codes.size):
        rest = np.delete(np.arange(codes.size), i)
        c = np.linalg.solve(K[np.ix_(rest, rest)] + lam * np.eye(rest.size), Y[rest])
        F[i] = K[i, rest] @ c
    # a binary RLS has one classifier: the second class's, the first's is its negative
    return np.column_stack([-F[:, 1], F[:, 1]]) if n_classes == 2 else F


def _expected(F: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Label margin, suggested class position and score as docs/mathematics.md defines them."""
    rows = np.arange(codes.size)
    others = F.copy()
    others[rows, codes] = -np.inf
    s = others.max(axis=1) - F[rows, codes]
    top = np.sort(F, axis=1)
    m = top[:, -1] - top[:, -2]  # the prediction's margin
    calibration = fit_platt(m, np.argmax(F, axis=1) == codes)
    q = calibration.probability(m)
    return s, np.argmax(F, axis=1), np.where(s > 0, q, 1.0 - q)


def _blobs(n_classes: int, n: int = 60, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=3.0, size=(n_classes, 2))
    y = rng.integers(0, n_classes, size=n)
    return centres[y] + rng.normal(size=(n, 2)), y


@pytest.mark.parametrize("n_classes", [2, 3])
def test_scores_equal_brute_force_refits(n_classes):
    X, y = _blobs(n_classes)
    y = y.astype(float)
    y[:4] = (y[:4] + 1) % n_classes  # flipped labels: some LOO predictions disagree
    y[50:] = np.nan  # unlabeled: skipped, but part of the pool σ is read off
    table = rlscore.label_issues(X, y)
    assert table.attrs["sigma"] == rlscore.median_sigma(X)  # read off the whole pool, once
    labeled = np.arange(50)
    K = _rbf(X[labeled], table.attrs["sigma"])
    codes = y[labeled].astype(int)
    F = _brute_force(K, codes, n_classes, table.attrs["lam"])
    s, suggested, score = _expected(F, codes)
    got = table.set_index("index").loc[labeled]
    np.testing.assert_allclose(got["label_margin"], s, atol=1e-8)
    np.testing.assert_allclose(got["score"], score, atol=1e-8)
    np.testing.assert_array_equal(got["suggested"], suggested.astype(float))
    np.testing.assert_array_equal(got["label"], y[labeled])
    assert sorted(table["index"]) == labeled.tolist()
    assert np.all(np.diff(table["label_margin"]) <= 0)  # most suspicious first
    disagree = table["label_margin"] > 0  # the agreeing labels in the order of their score
    assert np.all(np.diff(table["score"][~disagree]) <= 0)
    if n_classes == 2:  # the label margin is the prediction's: the score's order too
        assert np.all(np.diff(table["score"][disagree]) <= 0)


def test_a_disagreeing_label_scores_at_the_predictions_margin():
    # three classes: a label that is not the runner-up has a label margin larger than the
    # prediction's margin; the calibration (P(prediction right | its margin)) read at the
    # label margin overstated the score, which should be a lower bound of P(label wrong)
    X, y = _blobs(3, n=90, seed=1)
    y = y.astype(float)
    y[:9] = (y[:9] + 1) % 3
    table = rlscore.label_issues(X, y).set_index("index")
    K = _rbf(X, table.attrs["sigma"])
    F = _brute_force(K, y.astype(int), 3, table.attrs["lam"])
    top = np.sort(F, axis=1)
    m = top[:, -1] - top[:, -2]
    s = table.loc[np.arange(90), "label_margin"].to_numpy()
    beyond = s > m + 1e-6  # disagreeing labels that are not the runner-up
    assert beyond.any()
    q = fit_platt(m, np.argmax(F, axis=1) == y.astype(int))
    np.testing.assert_allclose(
        table.loc[np.flatnonzero(beyond), "score"], q.probability(m[beyond]), atol=1e-8
    )
    assert np.all(table.loc[np.flatnonzero(beyond), "score"] < q.probability(s[beyond]))


def test_precomputed_kernel_equals_brute_force():
    X, y = _blobs(3, n=40, seed=1)
    K = _rbf(X, 1.3)
    y = y.astype(object)
    y[:3] = (y[:3] + 1) % 3
    y[35:] = None
    table = rlscore.label_issues(K, y, kernel="precomputed", lam=0.5)
    labeled = np.arange(35)
    codes = np.asarray(y[labeled].tolist())
    F = _brute_force(K[np.ix_(labeled, labeled)], codes, 3, 0.5)
    s, _, score = _expected(F, codes)
    got = table.set_index("index").loc[labeled]
    np.testing.assert_allclose(got["label_margin"], s, atol=1e-8)
    np.testing.assert_allclose(got["score"], score, atol=1e-8)
    assert table.attrs["sigma"] is None and table.attrs["lam"] == 0.5


def test_flipped_labels_come_first():
    X, y = _blobs(2, n=100, seed=2)
    flipped = np.array([3, 17, 42, 77])
    y[flipped] = 1 - y[flipped]
    table = rlscore.label_issues(X, y)
    assert set(table["index"][: flipped.size]) == set(flipped)
    assert (table["suggested"][: flipped.size] != table["label"][: flipped.size]).all()


def test_other_marker_and_columns():
    X, y = _blobs(2, n=30, seed=3)
    y = y.astype(int)
    y[25:] = -5  # the marker: not a class
    table = rlscore.label_issues(X, y, unlabeled=-5, lam=1.0)
    assert list(table.columns) == ["index", "label", "suggested", "score", "label_margin"]
    assert sorted(table["index"]) == list(range(25))
    assert ((table["score"] >= 0) & (table["score"] <= 1)).all()


@pytest.mark.parametrize(
    ("y", "message"),
    [
        (np.array([1.0, 1.0, 1.0, np.nan]), "two classes"),
        (np.array([1.0, np.nan, np.nan, np.nan]), "two labeled points"),
        (np.array([1.0, 0.0, 1.0]), "one row per label"),
    ],
)
def test_bad_input_is_named(y, message):
    with pytest.raises(ValueError, match=message):
        rlscore.label_issues(np.zeros((4, 2)), y)


def test_a_binary_decision_is_its_two_one_vs_all_columns():
    f = np.array([0.7, -0.2, 1.5, -2.0])
    codes = np.array([0, 0, 1, 0])
    two = np.column_stack([-f, f])
    np.testing.assert_array_equal(label_margins(f, codes), label_margins(two, codes))
    # the label margin by hand: the other column minus the label's
    np.testing.assert_allclose(label_margins(f, codes), [1.4, -0.4, -3.0, -4.0])


def test_with_an_offset_the_scores_equal_brute_force_refits():
    """The checker with an offset (RLSClassifier's path): each left-out model solves
    [[K + λI, 1], [1ᵀ, 0]] [c; b] = [y; 0] from scratch on the other labels."""
    X, y = _blobs(2, n=40, seed=4)
    y[:3] = 1 - y[:3]
    table = rlscore.label_issues(X, y, sigma=1.5, lam=0.7, offset=True)
    K = _rbf(X, 1.5)
    t = np.where(y == 1, 1.0, -1.0)
    f = np.empty(y.size)
    for i in range(y.size):
        rest = np.delete(np.arange(y.size), i)
        m = rest.size
        A = np.block([[K[np.ix_(rest, rest)] + 0.7 * np.eye(m), np.ones((m, 1))],
                      [np.ones((1, m)), np.zeros((1, 1))]])  # fmt: skip
        sol = np.linalg.solve(A, np.append(t[rest], 0.0))
        f[i] = K[i, rest] @ sol[:m] + sol[m]
    s, _, score = _expected(np.column_stack([-f, f]), y)
    got = table.set_index("index").sort_index()
    np.testing.assert_allclose(got["label_margin"], s, atol=1e-8)
    np.testing.assert_allclose(got["score"], score, atol=1e-8)


@pytest.mark.parametrize(
    ("option", "message"),
    [({"lam": "big"}, "lam"), ({"lam": -1.0}, "lam"), ({"kernel": "cosine"}, "kernel")],
)
def test_a_bad_parameter_is_named(option, message):
    X, y = _blobs(2, n=20, seed=5)
    with pytest.raises(ValueError, match=message):
        rlscore.label_issues(X, y, **option)


def test_a_bad_precomputed_kernel_is_named():
    K = _rbf(_blobs(2, n=20, seed=6)[0], 1.0)
    y = np.arange(20) % 2
    K[0, 1] += 0.5
    with pytest.raises(ValueError, match="not symmetric"):
        rlscore.label_issues(K, y, kernel="precomputed")
    K = _rbf(_blobs(2, n=20, seed=6)[0], 1.0)
    K[3, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        rlscore.label_issues(K, y, kernel="precomputed")


def test_continuous_labels_are_refused():
    X, _ = _blobs(2, n=20, seed=7)
    y = np.random.default_rng(7).uniform(size=20)
    with pytest.raises(ValueError, match="continuous"):
        rlscore.label_issues(X, y)


@pytest.mark.parametrize("seed", [0, 1])
def test_platt_at_its_slope_bound_is_the_bounded_maximum_likelihood(seed):
    """Where a larger margin is less often right, the slope stays at 0 and the intercept is
    the one minimising the smoothed cross-entropy at slope 0 (a 1-D search from scratch)."""
    from scipy.optimize import minimize_scalar

    rng = np.random.default_rng(seed)
    m = rng.exponential(1.0, 60)
    right = rng.random(60) < 1 / (1 + np.exp(1.5 * m - 1.0))
    n_right = right.sum()
    target = np.where(right, (n_right + 1) / (n_right + 2), 1 / (right.size - n_right + 2))
    best = minimize_scalar(
        lambda b: np.sum(np.logaddexp(0, b) - target * b), bracket=(-5, 5), tol=1e-12
    )
    fit = fit_platt(m, right)
    assert fit.slope == 0.0
    assert fit.intercept == pytest.approx(best.x, abs=1e-6)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("n", [30, 260])  # the exact λ search and the sketched one
def test_an_overflowing_kernel_is_refused_with_a_message(n):
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(n, 2)) * 1e160, rng.integers(0, 2, n)
    with pytest.raises(ValueError, match="kernel matrix contains NaN or infinite"):
        rlscore.label_issues(X, y, kernel="polynomial")
