"""The benchmark scripts run, and their baselines agree with the engine (tiny sizes).

Times are not checked here (benchmarks/ prints them); only that the scripts work and that
the LOO values they compare agree with refits, GridSearchCV and the direct inverse.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.model_selection import grid_search_accuracy, percent_frobenius_error, rbf_gram
from scipy.spatial.distance import pdist
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from support.benchmarks import load_benchmark

from rlscore.core.kernels.lowrank import LowRankKernel
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.core.rls.reduced import ReducedRLSClassifier


def test_loo_benchmark_baselines_agree():
    loo = load_benchmark("loo")
    r = loo.run(60, quick=True)
    assert r["refit_diff"] < 1e-8
    assert r["grid_diff"] < 1e-8
    assert r["inv_diff"] < 1e-8
    assert r["refit_capped"] and r["grid_capped"]
    assert r["refit_full"] >= r["refit_measured"]


@pytest.mark.parametrize(("name", "T"), [("two moons", 2), ("blobs", 3)])
def test_fold_weights_benchmark_refits_agree_with_the_engine(name, T):
    bench = load_benchmark("fold_weights")
    r = bench.measure(name, 60, T, repeats=5, refit_points=10)
    assert r["max_diff"] < 1e-8  # the naive refits with the weights recounted
    assert r["balanced"] > 0 and r["fixed"] > 0 and r["refits"] > 0


def test_primal_loo_benchmark_agrees_with_ridgecv_and_the_dense_path():
    bench = load_benchmark("primal_loo")
    r = bench.run(300, dense_max=300, repeats=1)
    assert r["vs_ridgecv"] < 1e-10  # scikit-learn's own exact LOO (_RidgeGCV)
    assert r["vs_dense"] < 1e-10


def test_rls_vs_svm_benchmark_runs_on_a_subset():
    """The benchmark's accuracies are those of a grid search written out as loops
    (tests/reference/model_selection.py) on the same split, scaling and folds; the LOO-tuned
    RLS is the one of lowest leave-one-out error over the σ values."""
    bench = load_benchmark("rls_vs_svm")
    name, X, y, scale = bench.datasets()[2]  # breast cancer
    keep = np.random.default_rng(0).choice(len(y), 150, replace=False)
    factors, Cs, lams = [0.25, 0.7, 1.4], [1, 10], [0.1, 1.0]  # LOO errors 8.6 %, 5.7 %, 5.7 %
    out = bench.run_split(X[keep], y[keep], scale, factors, Cs, lams, seed=0)
    # the protocol of the benchmark's docstring, from scikit-learn's splitters
    Xtr, Xte, ytr, yte = train_test_split(
        X[keep], y[keep], test_size=0.3, stratify=y[keep], random_state=0
    )
    scaler = StandardScaler().fit(Xtr)
    Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    med = np.median(pdist(Xtr))
    sigmas = med * np.asarray(factors)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(Xtr, ytr))
    rls_acc, _ = grid_search_accuracy(
        RLSClassifier(), {"sigma": list(sigmas), "lam": lams}, folds, Xtr, ytr, Xte, yte
    )
    svc_acc, _ = grid_search_accuracy(
        SVC(kernel="rbf"), {"C": Cs, "gamma": list(1 / (2 * sigmas**2))}, folds, Xtr, ytr, Xte, yte
    )
    assert (out["rls_cv_acc"], out["svc_acc"]) == (rls_acc, svc_acc)
    loo = [RLSClassifier(sigma=s, lam="auto").fit(Xtr, ytr) for s in sigmas]
    best = min(loo, key=lambda clf: clf.loo_classification_error_)
    assert out["rls_loo_acc"] == np.mean(best.predict(Xte) == yte)
    assert out["rls_loo_params"] == f"σ={best.sigma / med:.2g}·med λ={best.lam_:.2g}"


def test_arls_speed_naive_reference_picks_what_arls_picks():
    # the naive ARLS shares no code with the engine: agreement checks both
    rows = load_benchmark("arls_speed").main(["--quick"])
    assert len(rows) == 3 and {r["T"] for r in rows} == {2, 3}
    assert all(r["same"] for r in rows), rows


@pytest.mark.parametrize("T", [2, 3])
def test_aopt_speed_dense_reference_equals_the_exact_mode(T):
    # the dense A-optimal reference (numpy only, SMW) and the engine's exact refits
    from rlscore.core.kernels.functions import graph_kernel

    bench = load_benchmark("aopt_speed")
    X, y = bench.make_pool(120, T)
    K = graph_kernel(X).K
    exact = bench.start(X, y, K, "exact", 8)
    cands = np.setdiff1d(np.arange(120), exact.labeled_)
    dense = bench.dense_scores(K, exact.labeled_, [int(v) for v in exact.labels_], T, cands)
    np.testing.assert_allclose(dense, exact.scores()[cands], rtol=1e-8)
    assert cands[np.argmin(dense)] == exact.next_query()[0]


def test_aopt_speed_lowrank_table_agrees_on_both_posteriors(capsys):
    # Woodbury on the m features and on the labeled points pick the same point
    bench = load_benchmark("aopt_speed")
    X, y = bench.make_pool(400, 3)
    bench.lowrank_table(X, y, 400, label_counts=(15, 40), ms=(12,), risk_points=150)
    rows = [r.split() for r in capsys.readouterr().out.splitlines() if r.startswith("    400")]
    assert len(rows) == 2 and all(r[6] == "yes" and float(r[7]) < 1e-8 for r in rows), rows


def test_lowrank_reproduction_runs_on_small_sets():
    from sklearn.datasets import load_digits

    bench = load_benchmark("reproduce_lowrank")
    X = load_digits().data[:400]
    sigma = bench.median_distance(X)
    K = rbf_gram(X, sigma)
    for rule in bench.RULES:  # "standard" is Sheng's name for uniform landmarks
        features = LowRankKernel(
            sigma=sigma, n_landmarks=12, n_subsets=3, random_state=0,
            landmarks="uniform" if rule == "standard" else rule,
        ).fit(X).features_  # fmt: skip
        expected = percent_frobenius_error(K, features)
        assert bench.sheng_error(X, sigma, rule, 12, 3, 0) == pytest.approx(expected, rel=1e-9)
    rows = bench.rifkin_table("digits", bench.digits_split, sigma / 2, 0.2, (16,), 1)
    assert set(rows[0]["acc"]) == set(bench.METHODS)
    Xtr, Xte, ytr, yte = bench.digits_split(0)
    for method in bench.METHODS:  # Rifkin's λ held fixed: the subset's is scaled by m/ℓ
        lam = 0.2 * 16 / ytr.size if method == "subset" else 0.2
        clf = ReducedRLSClassifier(
            method=method, sigma=sigma / 2, lam=lam, n_landmarks=16, random_state=0
        ).fit(Xtr, ytr)
        accuracy = np.mean(np.where(clf.decision_function(Xte) > 0, 1, -1) == yte)
        assert rows[0]["acc"][method] == [accuracy], method


def test_large_pools_naive_reference_picks_what_the_low_rank_engine_picks():
    # the naive low-rank ARLS shares no code with the engine: agreement checks both
    out = load_benchmark("large_pools").main(["--quick"])
    settings = out["100k"]["settings"] + out["1M"]["settings"]
    assert len(settings) == 3
    # relative: a sampled query's covariance rows are single precision (SAMPLED_ROWS_DTYPE),
    # its scores within a few 1e-9 of their value
    assert all(o["same"] and o["max_diff"] < 1e-8 * abs(o["score"]) for o in settings), settings
    assert settings[0]["se"] == 0.0 and settings[1]["se"] > 0.0
    assert 0 <= out["exact"]["same"] <= out["exact"]["steps"] == 10


def test_upload_nested_benchmark_builds_the_matrix_pyarrow_and_numpy_build():
    """The nested-upload benchmark's two paths give the file's vectors exactly."""
    bench = load_benchmark("upload_nested")
    data, X = bench.parquet_file(60, 5)
    np.testing.assert_array_equal(bench.rlscore_matrix(data), X)
    np.testing.assert_array_equal(bench.baseline_matrix(data), X)
    out = bench.main(["--quick"])
    assert (out["n"], out["d"]) == (200, 8)
