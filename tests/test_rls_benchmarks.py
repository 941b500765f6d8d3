"""Tiny runs of the RLS benchmark scripts: their baselines agree with the fast paths.

No time is asserted (the scripts print them). ``tests/test_benchmarks.py`` runs the quick
forms of ``loo.py``, ``rls_vs_svm.py`` and ``arls_speed.py``; this file covers what those do
not: the naive ARLS on a candidate subset (the path of the large pools) and on every
candidate's risk, that the agreement check would catch a wrong reference, the same folds and
grid sizes for RLS and SVC, the LOO script's own references, and the session-rebuild script.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
from support.benchmarks import load_benchmark as _load


def _arls_args(budget, candidates=30):
    return types.SimpleNamespace(
        repeats=1, naive_repeats=3, naive_budget=budget, naive_candidates=candidates
    )


@pytest.mark.parametrize(("n", "T", "l"), [(120, 2, 25), (100, 3, 15)])
def test_arls_speed_naive_scores_every_candidate_like_arls(n, T, l):
    bench = _load("arls_speed")
    row = bench.run_case(n, T, l, _arls_args(budget=10**6))
    assert not row["naive_extrapolated"] and row["naive_candidates"] == n - l
    assert row["max_risk_diff"] < 1e-9 and row["same"]


@pytest.mark.parametrize(("n", "T", "l"), [(150, 2, 30), (120, 3, 20)])
def test_arls_speed_subsampled_naive_agrees_on_its_subset(n, T, l):
    bench = _load("arls_speed")
    row = bench.run_case(n, T, l, _arls_args(budget=10, candidates=25))
    assert row["naive_extrapolated"] and row["naive_candidates"] == 25
    assert row["candidates"] == n - l
    assert row["max_risk_diff"] < 1e-9 and row["same"]
    assert row["naive_s"] > 0 and row["naive_mb"] > 0 and row["peak_mb"] > 0


def test_arls_speed_agreement_check_has_teeth():
    # the naive reference at another λ must disagree with ARLS: the check is not vacuous
    bench = _load("arls_speed")
    X, y, classes = bench.make_pool(120, 2)
    L = list(range(0, 120, 6))
    labels = y[L].tolist()
    q = bench.arls_with_labels(X, classes, L, labels)
    cands = np.setdiff1d(np.arange(120), L)
    codes = [classes.index(v) for v in labels]
    same = bench.naive_scores(X, L, codes, 2, cands)
    np.testing.assert_allclose(same, q.scores()[cands], rtol=0, atol=1e-9)
    bench.LAM = 5.0  # this module instance only
    other = bench.naive_scores(X, L, codes, 2, cands)
    assert np.max(np.abs(other - q.scores()[cands])) > 1e-3


def test_rls_vs_svm_tunes_both_on_the_same_folds_and_grid_size(monkeypatch):
    bench = _load("rls_vs_svm")
    calls = []
    real = bench.grid_search

    def recording(model, grid, folds, X, y):
        calls.append((type(model).__name__, grid, folds))
        return real(model, grid, folds, X, y)

    monkeypatch.setattr(bench, "grid_search", recording)
    name, X, y, scale = bench.datasets()[0]  # digits 4 vs rest
    keep = np.random.default_rng(0).choice(len(y), 200, replace=False)
    out = bench.run_split(X[keep], y[keep], scale, [0.7, 1.4], [1, 10], [0.1, 1.0], seed=0)
    (m1, g1, f1), (m2, g2, f2) = calls
    assert {m1, m2} == {"RLSClassifier", "SVC"}
    assert len(f1) == len(f2) == 5
    for (tr1, te1), (tr2, te2) in zip(f1, f2, strict=True):
        np.testing.assert_array_equal(tr1, tr2)
        np.testing.assert_array_equal(te1, te2)
    assert np.prod([len(v) for v in g1.values()]) == np.prod([len(v) for v in g2.values()])
    # the same σ values: SVC's gamma = 1/(2σ²)
    np.testing.assert_allclose(np.sqrt(1 / (2 * np.array(g2["gamma"]))), g1["sigma"])
    for key in ("rls_cv_acc", "svc_acc", "rls_loo_acc"):
        assert 0.8 < out[key] <= 1.0


def test_loo_script_references_agree_with_the_classifier():
    from sklearn.datasets import make_moons

    from rlscore.core.kernels.functions import rbf_kernel
    from rlscore.core.rls.classifier import RLSClassifier

    bench = _load("loo")
    X, yl = make_moons(40, noise=0.2, random_state=1)
    y = np.where(yl == 1, 1.0, -1.0)
    K = rbf_kernel(X, sigma=bench.SIGMA)
    for lam in (0.01, 1.0, 30.0):
        clf = RLSClassifier(sigma=bench.SIGMA, lam=lam).fit(X, yl)
        refit = bench.brute_loo(K, y, lam, np.arange(40))
        np.testing.assert_allclose(clf.loo_decision_, refit, atol=1e-9)
        np.testing.assert_allclose(
            clf.loo_decision_, bench.direct_loo_one_lambda(K, y, lam), atol=1e-9
        )


def test_loo_script_prints_fit_and_curve_side_by_side(capsys):
    bench = _load("loo")
    bench.main(["--quick", "--sizes", "40", "--repeats", "5"])
    out = capsys.readouterr().out
    assert "curve/fit" in out and "median of 5" in out and "load average" in out
    with pytest.raises(SystemExit):
        bench.main(["--sizes", "40", "--repeats", "1"])


def test_session_rebuild_restores_the_replayed_state():
    bench = _load("session_rebuild")
    row = bench.run(12, "two_moons", "arls", repeats=1)
    assert row["restored"] is True
    assert row["max|Δscore|"] < 1e-8
