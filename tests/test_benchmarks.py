"""The benchmark scripts run, and their baselines agree with the engine (tiny sizes).

Times are not checked here (benchmarks/ prints them); only that the scripts work and that
the LOO values they compare agree with refits, GridSearchCV and the direct inverse.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str):
    """Import ``benchmarks/<name>.py`` as a module (the scripts are not a package)."""
    if str(BENCH) not in sys.path:  # the scripts import their shared harness as a sibling
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_loo_benchmark_baselines_agree():
    loo = load_benchmark("loo")
    r = loo.run(60, quick=True)
    assert r["refit_diff"] < 1e-8
    assert r["grid_diff"] < 1e-8
    assert r["inv_diff"] < 1e-8
    assert r["refit_capped"] and r["grid_capped"]
    assert r["refit_full"] >= r["refit_measured"]


def test_primal_loo_benchmark_agrees_with_ridgecv_and_the_dense_path():
    bench = load_benchmark("primal_loo")
    r = bench.run(300, dense_max=300, repeats=1)
    assert r["vs_ridgecv"] < 1e-10  # scikit-learn's own exact LOO (_RidgeGCV)
    assert r["vs_dense"] < 1e-10


def test_rls_vs_svm_benchmark_runs_on_a_subset():
    bench = load_benchmark("rls_vs_svm")
    name, X, y, scale = bench.datasets()[2]  # breast cancer
    keep = np.random.default_rng(0).choice(len(y), 150, replace=False)
    out = bench.run_split(X[keep], y[keep], scale, [0.7, 1.4], [1, 10], [0.1, 1.0], seed=0)
    for key in ("rls_cv_acc", "rls_loo_acc", "svc_acc"):
        assert 0.8 < out[key] <= 1.0


def test_arls_speed_naive_reference_picks_what_arls_picks():
    # the naive ARLS shares no code with the engine: agreement checks both
    rows = load_benchmark("arls_speed").main(["--quick"])
    assert len(rows) == 3 and {r["T"] for r in rows} == {2, 3}
    assert all(r["same"] for r in rows), rows


@pytest.mark.parametrize("T", [2, 3])
def test_aopt_speed_dense_reference_equals_the_exact_mode(T):
    # the dense A-optimal reference (numpy only, SMW) and the engine's exact refits
    from rlscore.core.kernels import graph_kernel

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
    errs = {r: bench.sheng_error(X, sigma, r, 12, 3, 0) for r in bench.RULES}
    assert all(0 < e < 100 for e in errs.values()), errs
    rows = bench.rifkin_table("digits", bench.digits_split, sigma / 2, 0.2, (16,), 1)
    assert set(rows[0]["acc"]) == set(bench.METHODS)
    assert rows[0]["acc"]["rectangle"][0] > 0.9


def test_large_pools_naive_reference_picks_what_the_low_rank_engine_picks():
    # the naive low-rank ARLS shares no code with the engine: agreement checks both
    out = load_benchmark("large_pools").main(["--quick"])
    settings = out["100k"]["settings"] + out["1M"]["settings"]
    assert len(settings) == 3
    assert all(o["same"] and o["max_diff"] < 1e-8 for o in settings), settings
    assert settings[0]["se"] == 0.0 and settings[1]["se"] > 0.0
    assert 0 <= out["exact"]["same"] <= out["exact"]["steps"] == 10
