"""benchmarks/multilabel_trust.py (tiny sizes): a short run's headline against brute-force
refits of scikit-learn's kernel ridge (each check predicted by a model fitted without it), its
truth against the same on the test set, the random checks' schedule, and the coverage count."""

from __future__ import annotations

import json

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import f1_score
from support.benchmarks import load_benchmark


def ridge_sets(X_train, Y_train, X_new, sigma, lam):
    """The sets predicted by one kernel ridge per class (targets ±1, no offset)."""
    model = KernelRidge(alpha=lam, kernel="rbf", gamma=1.0 / (2.0 * sigma**2))
    return model.fit(X_train, 2.0 * Y_train - 1.0).predict(X_new) > 0


def test_a_short_run_against_brute_force_refits(tmp_path, capsys):
    bench = load_benchmark("multilabel_trust")
    out = tmp_path / "runs.json"
    argv = ["--tasks", "synthetic-c", "--seeds", "1", "--audit-every", "5",
            "--checkpoints", "20,30", "--out", str(out)]  # fmt: skip
    assert bench.main(argv) == 0
    early, late = json.loads(out.read_text())
    # labels 10, 15, 20 (then 25, 30) are checks: the 5 initial labels are not
    assert (early["n_checks"], late["n_checks"]) == (3, 5)
    assert early["headline"] is None  # fewer than 5 checks: no headline
    X_all, Y_all = bench.load("synthetic-c", 0, {})
    pool, test, _ = bench.split(X_all.shape[0], 0, 5)
    X, Y = X_all[pool], Y_all[pool]
    sigma, lam = float(np.median(pdist(X))), bench.LAM
    labeled, checks = late["labeled"], late["checks"]
    assert len(labeled) == 30 and checks == [labeled[k - 1] for k in (10, 15, 20, 25, 30)]
    held = np.vstack([
        ridge_sets(X[rest], Y[rest], X[[c]], sigma, lam)
        for c in checks
        for rest in [[i for i in labeled if i != c]]
    ])  # fmt: skip
    estimate, low, high = late["headline"]
    assert abs(estimate - f1_score(Y[checks], held, average="micro")) < 1e-9
    assert 0.0 <= low <= estimate <= high <= 1.0
    test_sets = ridge_sets(X[labeled], Y[labeled], X_all[test], sigma, lam)
    assert abs(late["truth"] - f1_score(Y_all[test], test_sets, average="micro")) < 1e-9
    assert "| synthetic-c (confirmation) | 5 |" in capsys.readouterr().out


def test_coverage_counts_the_pairs_whose_interval_holds_the_truth():
    bench = load_benchmark("multilabel_trust")
    base = {"true_sets": [[1]], "held_sets": [[1]], "pool_truth": 0.5}
    records = [
        {**base, "headline": [0.5, 0.4, 0.6], "truth": 0.55},  # inside
        {**base, "headline": [0.5, 0.4, 0.6], "truth": 0.7},  # above
        {**base, "headline": [0.3, 0.2, 0.5], "truth": 0.2},  # on the bound: inside
        {**base, "headline": None, "truth": 0.5, "true_sets": None},  # no headline
    ]
    s = bench.summarise(records, bench.DEFAULT_METHOD)  # the shown interval: the headline
    assert s["pairs"] == 4 and s["shown"] == 0.75
    assert s["coverage"] == 2 / 3
    assert abs(s["width"] - (0.2 + 0.2 + 0.3) / 3) < 1e-12
    assert abs(s["bias"] - ((0.5 - 0.55) + (0.5 - 0.7) + (0.3 - 0.2)) / 3) < 1e-12


def test_the_cost_pairs_each_session_with_its_run_without_checks():
    bench = load_benchmark("multilabel_trust")

    def rec(task, seed, k, labels, truth):
        return {"task": task, "seed": seed, "audit_every": k, "labels": labels, "truth": truth}

    records = [
        rec("a", 0, 0, 100, 0.50), rec("a", 0, 10, 100, 0.48),  # −2 points
        rec("a", 1, 0, 100, 0.60), rec("a", 1, 10, 100, 0.61),  # +1
        rec("a", 0, 0, 60, 0.40), rec("a", 0, 10, 60, 0.10),  # 60 labels: not a cost checkpoint
        rec("a", 2, 10, 100, 0.90),  # no run without checks: unpaired, left out
        rec("b", 0, 0, 300, 0.30), rec("b", 0, 10, 300, 0.33),  # +3
    ]  # fmt: skip
    table = bench.cost_table(records)
    assert "| a | 10 | 2 | -0.50 |" in table
    assert "| b | 10 | 1 | +3.00 |" in table
