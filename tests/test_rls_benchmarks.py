"""The RLS benchmark scripts run, and their baselines agree with the fast path (tiny sizes).

Times are not checked here (benchmarks/ prints them); only that the scripts work and that
the LOO values they compare agree with refits, GridSearchCV and the direct inverse.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_loo_benchmark_baselines_agree():
    loo = _load("loo")
    r = loo.run(60, quick=True)
    assert r["refit_diff"] < 1e-8
    assert r["grid_diff"] < 1e-8
    assert r["inv_diff"] < 1e-8
    assert r["refit_capped"] and r["grid_capped"]
    assert r["refit_full"] >= r["refit_measured"]


def test_rls_vs_svm_benchmark_runs_on_a_subset():
    bench = _load("rls_vs_svm")
    name, X, y, scale = bench.datasets()[2]  # breast cancer
    keep = np.random.default_rng(0).choice(len(y), 150, replace=False)
    out = bench.run_split(X[keep], y[keep], scale, [0.7, 1.4], [1, 10], seed=0)
    for key in ("rls0_acc", "rls1_acc", "svc_acc"):
        assert 0.8 < out[key] <= 1.0
