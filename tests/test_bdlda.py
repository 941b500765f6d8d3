"""BDLDA (Sheng ch. 2, docs/mathematics.md §8) against independent computations.

Plain LDA (scikit-learn, and numpy written here) for one block, a diagonal LDA written here for
blocks of size one, the Jacobi decorrelation of a 2 × 2 covariance against ``eigh``, and the
error rate of eq. 2.8 evaluated with ``math.erf`` on hand-sized data.
"""

from __future__ import annotations

import importlib.util
import math
import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.exceptions import NotFittedError
from threadpoolctl import threadpool_limits

from rlscore.core.classifiers.bdlda import (
    BDLDA,
    count_candidate_models,
    estimated_error_rate,
    log_estimated_error_rate,
)
from rlscore.core.classifiers.treelets import treelets


def Phi(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def gaussian_data(n=300, d=6, shift=0.8, frac_a=0.35, seed=0):
    """Two Gaussian classes with a shared, well-conditioned, correlated covariance."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, d)) / np.sqrt(d) + np.eye(d)
    y = (rng.random(n) < frac_a).astype(int)
    X = rng.normal(size=(n, d)) @ A.T + shift * y[:, None] * rng.normal(size=d)
    return X, y


def numpy_lda(X, y, blocks):
    """LDA with a block-diagonal pooled ML covariance, written from the textbook formulas."""
    Xa, Xb = X[y == 1], X[y == 0]
    ma, mb = Xa.mean(0), Xb.mean(0)
    S = ((Xa - ma).T @ (Xa - ma) + (Xb - mb).T @ (Xb - mb)) / len(y)
    mask = np.zeros_like(S, dtype=bool)
    for b in blocks:
        mask[np.ix_(b, b)] = True
    feats = np.concatenate(blocks)
    K = np.where(mask, S, 0.0)[np.ix_(feats, feats)]
    w = np.zeros(X.shape[1])
    w[feats] = np.linalg.solve(K, (ma - mb)[feats])
    b = -w @ (ma + mb) / 2 + np.log(len(Xa) / len(Xb))
    return w, b


# --------------------------------------------------------------------- equal to independent LDAs


@pytest.mark.parametrize("frac_a", [0.5, 0.25])
def test_one_block_with_all_features_is_plain_lda(frac_a):
    X, y = gaussian_data(frac_a=frac_a)
    d = X.shape[1]
    m = BDLDA(blocks=[list(range(d))]).fit(X, y)
    sk = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    np.testing.assert_allclose(m.coef_, sk.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.intercept_, sk.intercept_, rtol=1e-9, atol=1e-12)
    Xt, _ = gaussian_data(n=50, seed=1)
    np.testing.assert_allclose(m.decision_function(Xt), sk.decision_function(Xt), atol=1e-10)
    np.testing.assert_allclose(m.predict_proba(Xt), sk.predict_proba(Xt), atol=1e-12)
    np.testing.assert_array_equal(m.predict(Xt), sk.predict(Xt))
    w, b = numpy_lda(X, y, [np.arange(d)])
    np.testing.assert_allclose(m.coef_[0], w, rtol=1e-9)
    np.testing.assert_allclose(m.intercept_[0], b, rtol=1e-9)
    # J = d̂ᵀK̂⁻¹d̂ of the same model
    ma, mb = X[y == 1].mean(0), X[y == 0].mean(0)
    assert m.fisher_ratio_ == pytest.approx(float((ma - mb) @ w), rel=1e-10)


def test_blocks_of_size_one_are_diagonal_lda():
    X, y = gaussian_data(d=7, seed=3)
    m = BDLDA(blocks=[[j] for j in range(7)]).fit(X, y)
    Xa, Xb = X[y == 1], X[y == 0]
    ma, mb = Xa.mean(0), Xb.mean(0)
    var = (((Xa - ma) ** 2).sum(0) + ((Xb - mb) ** 2).sum(0)) / len(y)  # pooled ML variances
    w = (ma - mb) / var
    b = -w @ (ma + mb) / 2 + np.log(len(Xa) / len(Xb))
    np.testing.assert_allclose(m.coef_[0], w, rtol=1e-10)
    np.testing.assert_allclose(m.intercept_[0], b, rtol=1e-10)
    np.testing.assert_allclose(m.decision_function(X), X @ w + b, atol=1e-10)


def test_mixed_blocks_match_numpy_block_lda_and_a_subset_of_columns():
    X, y = gaussian_data(d=8, seed=4)
    blocks = [[5, 1, 2], [7, 0], [3]]
    m = BDLDA(blocks=blocks).fit(X, y)
    w, b = numpy_lda(X, y, [np.array(bl) for bl in blocks])
    np.testing.assert_allclose(m.coef_[0], w, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(m.intercept_[0], b, rtol=1e-9)
    assert m.coef_[0, [4, 6]].tolist() == [0.0, 0.0]  # unused columns
    assert [bl.tolist() for bl in m.blocks_] == blocks


def test_search_with_max_grow_one_is_dlda_on_the_top_scores():
    X, y = gaussian_data(d=12, seed=5)
    m = BDLDA(max_grow=1, max_features=5, n_models=1, prescreen=False).fit(X, y)
    Xa, Xb = X[y == 1], X[y == 0]
    ma, mb = Xa.mean(0), Xb.mean(0)
    var = (((Xa - ma) ** 2).sum(0) + ((Xb - mb) ** 2).sum(0)) / len(y)
    top = np.argsort(-((ma - mb) ** 2) / var)[:5]
    assert [b.tolist() for b in m.blocks_] == [[int(j)] for j in top]
    w, b = numpy_lda(X, y, [np.array([j]) for j in top])
    np.testing.assert_allclose(m.coef_[0], w, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(m.intercept_[0], b, rtol=1e-10)


def test_search_pairs_a_signal_with_its_correlated_noise_feature():
    # x1 carries no mean shift but cancels x0's noise: only a 2-block sees it (Sheng §2.1)
    rng = np.random.default_rng(6)
    n = 400
    y = np.repeat([0, 1], n // 2)
    z = rng.normal(size=n)
    X = np.column_stack([z + 0.5 * y, z + 0.2 * rng.normal(size=n), rng.normal(size=(n, 6))])
    m = BDLDA(max_grow=2, max_features=2, n_models=1, prescreen=False).fit(X, y)
    assert [b.tolist() for b in m.blocks_] == [[0, 1]]
    assert m.score(X, y) > 0.9
    assert BDLDA(blocks=[[0]]).fit(X, y).score(X, y) < 0.7


def test_pe_selection_keeps_the_largest_fisher_ratio_model():
    # P̂_e (2.8) decreases with Ĵ, so the kept model is the Ĵ-maximiser of the tree, of
    # MaxFeature features (seed finding; see the module docstring)
    X, y = gaussian_data(n=120, d=30, seed=7)
    m = BDLDA(max_features=6, max_grow=3, n_models=2, prescreen=False).fit(X, y)
    table = m.search_path_[0]
    assert table.shape == (count_candidate_models(6, 3), 3)
    assert np.argmin(table[:, 2]) == np.argmax(table[:, 1])
    sizes = [len(b) for b, r in zip(m.blocks_, m.model_of_block_, strict=True) if r == 0]
    assert sum(sizes) == 6 and sizes == sorted(sizes, reverse=True)
    assert max(sizes) <= 3 and set(m.model_of_block_) == {0, 1}
    chosen = np.concatenate(m.blocks_)
    assert np.unique(chosen).size == chosen.size == 12  # RFSS removed the first model's features


def test_count_candidate_models_is_partitions():
    # partitions of F into parts ≤ 3: 1, 2, 3, 4, 5, 7 for F = 1 … 6
    assert count_candidate_models(6, 3) == 1 + 2 + 3 + 4 + 5 + 7
    assert count_candidate_models(5, 1) == 5
    # p₃(F) = round((F + 3)²/12): the thesis setting gives 357 models per repetition
    assert count_candidate_models(20, 3) == sum(round((f + 3) ** 2 / 12) for f in range(1, 21))
    assert count_candidate_models(20, 3) == 357


# ----------------------------------------------------------------------------------- treelets


def test_treelet_rotation_decorrelates_a_2x2_block_like_eigh():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(200, 2)) @ np.array([[2.0, 0.0], [1.5, 0.7]])
    tl = treelets(X, 1)
    B = tl.basis
    np.testing.assert_allclose(B.T @ B, np.eye(2), atol=1e-14)
    Z = tl.transform(X)
    C = np.cov(Z, rowvar=False)
    assert abs(C[0, 1]) < 1e-12 * C.max()
    np.testing.assert_allclose(tl.covariance, C, atol=1e-12)
    assert abs(tl.angles[0]) <= np.pi / 4
    ev, V = np.linalg.eigh(np.cov(X, rowvar=False))
    keep, drop = tl.merges[0]
    assert tl.covariance[keep, keep] == pytest.approx(ev[1], rel=1e-12)  # sum = principal
    assert tl.covariance[drop, drop] == pytest.approx(ev[0], rel=1e-12)
    assert abs(B[:, keep] @ V[:, 1]) == pytest.approx(1.0, rel=1e-12)


def test_treelets_merge_the_most_correlated_pair_by_absolute_value():
    rng = np.random.default_rng(9)
    n = 500
    u, v = rng.normal(size=(2, n))
    # |corr(x1, x3)| ≈ 0.99 (negative), corr(x0, x2) ≈ 0.8
    X = np.column_stack([u, v, 0.8 * u + 0.6 * rng.normal(size=n), -v + 0.1 * rng.normal(size=n)])
    tl = treelets(X, 3)
    assert sorted(tl.merges[0].tolist()) == [1, 3]
    assert sorted(tl.merges[1].tolist()) == [0, 2]
    B = tl.basis
    np.testing.assert_allclose(B @ B.T, np.eye(4), atol=1e-13)
    Sigma0 = np.cov(X, rowvar=False)
    np.testing.assert_allclose(tl.covariance, B.T @ Sigma0 @ B, atol=1e-12)
    assert np.all(np.abs(tl.angles) <= np.pi / 4 + 1e-15)


def test_treelet_coefficients_mix_at_most_level_plus_one_features():
    # one rotation per level: a basis vector after 𝓛 levels touches ≤ 𝓛 + 1 features, not 2^𝓛
    rng = np.random.default_rng(10)
    X = rng.normal(size=(80, 3)) @ rng.normal(size=(3, 12)) + 0.3 * rng.normal(size=(80, 12))
    for level in range(12):
        B = treelets(X, level).basis
        assert (np.abs(B) > 0).sum(axis=0).max() <= level + 1


def test_tbdlda_decision_equals_block_lda_on_the_treelet_coefficients():
    X, y = gaussian_data(n=200, d=10, seed=11)
    m = BDLDA(max_features=4, n_models=2, treelet_level=4, prescreen=False).fit(X, y)
    assert m.treelet_level_ == 4 and m.treelets_.merges.shape == (4, 2)
    Z = X[:, m.prescreened_] @ m.treelets_.basis
    w, b = numpy_lda(Z, y, m.blocks_)
    np.testing.assert_allclose(m.decision_function(X), Z @ w + b, atol=1e-10)


# --------------------------------------------------------------------------- the metric (2.8)


def test_estimated_error_rate_by_hand_equal_priors():
    # A = {1, 3}, B = {−1, −3}: d = 4, pooled ML variance (1+1+1+1)/4 = 1, Δ² = 16
    X = np.array([[1.0], [3.0], [-1.0], [-3.0]])
    y = np.array([1, 1, 0, 0])
    m = BDLDA(blocks=[[0]]).fit(X, y)
    assert m.fisher_ratio_ == pytest.approx(16.0)
    assert m.estimated_error_ == pytest.approx(Phi(-2.0), rel=1e-12)  # Φ(−Δ/2)
    assert m.intercept_[0] == pytest.approx(0.0, abs=1e-12)  # midpoint 0, ln(π_A/π_B) = 0


def test_estimated_error_rate_by_hand_unequal_priors():
    # A = {0, 2, 0, 2} (mean 1, SS 4), B = {−3, −1} (mean −2, SS 2): K = 6/6 = 1, d = 3
    X = np.array([[0.0], [2.0], [0.0], [2.0], [-3.0], [-1.0]])
    y = np.array([1, 1, 1, 1, 0, 0])
    m = BDLDA(blocks=[[0]]).fit(X, y)
    c = math.log(2.0)  # ln(π_A/π_B) = ln((2/3)/(1/3))
    hand = 2 / 3 * Phi(-(4.5 + c) / 3) + 1 / 3 * Phi(-(4.5 - c) / 3)
    assert m.fisher_ratio_ == pytest.approx(9.0)
    assert m.estimated_error_ == pytest.approx(hand, rel=1e-12)
    assert estimated_error_rate(9.0, 2 / 3) == pytest.approx(hand, rel=1e-12)
    # g(x) = 3(x + 1/2) + ln 2
    assert m.intercept_[0] == pytest.approx(1.5 + c) and m.coef_[0, 0] == pytest.approx(3.0)


def test_estimated_error_rate_limits_and_monotonicity():
    assert estimated_error_rate(0.0, 0.3) == pytest.approx(0.3)
    assert estimated_error_rate(0.0, 0.5) == pytest.approx(0.5)
    d2 = np.linspace(0, 60, 601)
    for pa in (0.5, 0.2, 0.9):
        assert np.all(np.diff(log_estimated_error_rate(d2, pa)) < 0)
    # no underflow: still ordered where P̂_e itself is below the smallest double
    assert log_estimated_error_rate(6000.0) > log_estimated_error_rate(6001.0)
    assert estimated_error_rate(6000.0) == 0.0


# --------------------------------------------------------------------------- reproducibility


def test_fit_is_deterministic_and_survives_clone_and_pickle():
    X, y = gaussian_data(n=150, d=40, seed=12)
    est = BDLDA(max_features=8, n_models=3, treelet_level=3)
    a, b = clone(est).fit(X, y), clone(est).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert [x.tolist() for x in a.blocks_] == [x.tolist() for x in b.blocks_]
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(c.decision_function(X), a.decision_function(X))
    perm = np.random.default_rng(0).permutation(len(y))
    p = clone(est).fit(X[perm], y[perm])
    assert [x.tolist() for x in p.blocks_] == [x.tolist() for x in a.blocks_]
    np.testing.assert_allclose(p.coef_, a.coef_, rtol=1e-8, atol=1e-12)


def test_string_labels_and_class_a_is_the_second_class():
    X, y = gaussian_data(seed=13)
    labels = np.array(["healthy", "tumour"])[y]
    m = BDLDA(max_features=3).fit(X, labels)
    assert m.classes_.tolist() == ["healthy", "tumour"]
    g = m.decision_function(X)
    np.testing.assert_array_equal(m.predict(X), np.where(g >= 0, "tumour", "healthy"))
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], 1 / (1 + np.exp(-g)))


# ------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"max_grow": 0}, r"max_grow \(MaxGrow\) must be an integer ≥ 1"),
        ({"max_features": 2.5}, r"max_features \(MaxFeature\) must be an integer"),
        ({"n_models": True}, r"n_models \(𝒩\) must be an integer"),
        ({"treelet_level": -1}, r"treelet_level \(𝓛\) must be an integer ≥ 0"),
        ({"prescreen_fraction": 1.5}, r"prescreen_fraction must be a number in \[0, 1\]"),
        ({"prescreen_reg": -1.0}, r"prescreen_reg \(c\) must be a finite number ≥ 0"),
        ({"prescreen": "yes"}, "prescreen must be True or False"),
        ({"max_features": 60, "max_grow": 60}, "candidate models per repetition"),
        ({"blocks": [[0, 9]]}, r"outside \[0, 5\]"),
        ({"blocks": [[0, 1], [1]]}, "disjoint"),
        ({"blocks": [[]]}, "non-empty"),
        ({"blocks": [[0.5]]}, "integer column"),
        ({"blocks": [3]}, "sequence of sequences"),
        ({"blocks": [[0]], "treelet_level": 2}, "needs treelet_level=0"),
    ],
)
def test_bad_parameters_are_named(params, match):
    X, y = gaussian_data(n=40)
    with pytest.raises(ValueError, match=match):
        BDLDA(**params).fit(X, y)


def test_bad_data_messages():
    X, y = gaussian_data(n=40)
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        BDLDA().fit(X, np.arange(40) % 3)
    with pytest.raises(ValueError, match="only one class"):
        BDLDA().fit(X, np.zeros(40))
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        BDLDA().fit(Xn, y)
    # 3 samples cannot estimate a 4-feature block
    with pytest.raises(ValueError, match="singular: LDA needs more samples"):
        BDLDA(blocks=[[0, 1, 2, 3]]).fit(X[:3], [0, 1, 1])
    with pytest.raises(NotFittedError):
        BDLDA().predict(X)
    m = BDLDA().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :4])
    with pytest.raises(ValueError, match=r"level must be an integer in \[0, p − 1\] = \[0, 5\]"):
        treelets(X, 6)
    with pytest.raises(ValueError, match="sum to 1"):
        estimated_error_rate(1.0, 0.5, 0.7)
    with pytest.raises(ValueError, match="finite and ≥ 0"):
        estimated_error_rate(-1.0)


def test_constant_features_give_the_prior_rule():
    X = np.ones((10, 3))
    y = np.array([0] * 7 + [1] * 3)
    m = BDLDA().fit(X, y)
    assert m.blocks_ == [] and np.all(m.coef_ == 0)
    assert m.estimated_error_ == pytest.approx(0.3)
    assert set(m.predict(X)) == {0}


# ------------------------------------------------------------------ the reproduction benchmark


def _benchmark():
    bench = Path(__file__).resolve().parents[1] / "benchmarks"
    if str(bench) not in sys.path:  # the script imports its harness as a sibling
        sys.path.insert(0, str(bench))
    spec = importlib.util.spec_from_file_location(
        "bench_sheng_bdlda", bench / "reproduce_sheng_bdlda.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_shrinkage_lda_is_sklearns_and_main_runs(capsys, monkeypatch):
    bench = _benchmark()
    X, y = bench.make_toeplitz(0, p=300)
    assert bench.check_against_sklearn(X, y) < 1e-10
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.setenv(var, os.environ.get(var, ""))  # main() pins BLAS: undone at teardown
    with threadpool_limits(limits=None):
        rows = bench.main(["--seeds", "1", "--datasets", "toeplitz"])
    assert {r["method"] for r in rows} >= {"BDLDA", "T-BDLDA", "RLS (linear, LOO λ)"}
    assert all(0 <= r["mean"] <= 100 for r in rows)
    assert "Bayes rule of the stated model" in capsys.readouterr().out
    assert bench.bayes_error("diagonal") == pytest.approx(100 * Phi(-2.5))
