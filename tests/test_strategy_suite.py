"""The strategy benchmark's data sets against their definitions, its AULC, and one tiny run.

The generators are checked by sample moments and by independent label rules; the runner's
recorded accuracies are recomputed from its recorded labels with scikit-learn's KernelRidge
(the same RLS written independently).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.kernel_ridge import KernelRidge

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str):
    """Import ``benchmarks/<name>.py`` by its own name: the runner imports the suite as a
    sibling, and both must share one module (their dataclasses)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


suite = load_benchmark("strategy_suite")


def class_moments(X, y, c):
    Xc = X[y == c]
    return Xc.mean(axis=0), np.cov(Xc, rowvar=False)


def test_twonorm_means_are_plus_minus_a_with_unit_covariance():
    X, y = suite.twonorm(n=40_000, seed=1)
    a = 2 / np.sqrt(20)
    assert X.shape == (40_000, 20) and np.bincount(y).tolist() == [20_000, 20_000]
    for c, sign in ((0, 1.0), (1, -1.0)):
        mean, cov = class_moments(X, y, c)
        assert np.abs(mean - sign * a).max() < 0.04  # standard error 1/√20000 ≈ 0.007
        assert np.abs(cov - np.eye(20)).max() < 0.05


def test_ringnorm_covariances_are_4i_and_i():
    X, y = suite.ringnorm(n=40_000, seed=1)
    a = 1 / np.sqrt(20)
    mean0, cov0 = class_moments(X, y, 0)
    mean1, cov1 = class_moments(X, y, 1)
    assert np.abs(mean0).max() < 0.08 and np.abs(cov0 - 4 * np.eye(20)).max() < 0.2
    assert np.abs(mean1 - a).max() < 0.04 and np.abs(cov1 - np.eye(20)).max() < 0.05


def test_checkerboard_labels_are_the_tile_parity():
    X, y = suite.checkerboard(n=4000, seed=2)
    assert X.min() >= 0 and X.max() < 4
    # parity of the tile sum = XOR of the tiles' column and row parities, by integer division
    col, row = (X // 1.0).astype(int).T
    assert np.array_equal(y, np.logical_xor(col % 2 == 1, row % 2 == 1).astype(int))
    tiles = np.unique(col * 4 + row)
    assert tiles.size == 16 and abs(y.mean() - 0.5) < 0.03


def test_moons_are_imbalanced_eight_to_one_and_blobs_sit_on_their_grid():
    _, y = suite.imbalanced_moons()
    assert np.bincount(y).tolist() == [360, 45]
    X, y = suite.blobs9()
    assert X.shape == (600, 2) and np.unique(y).size == 9
    grid = np.array([(4.0 * i, 4.0 * j) for i in range(3) for j in range(3)])
    for c in range(9):
        assert np.linalg.norm(X[y == c].mean(axis=0) - grid[c]) < 0.6  # 66 points, std 1.5


def test_every_dataset_is_standardised_with_a_pool_of_at_most_2000_points():
    expected = {
        "wine": (178, 13, 3), "iris": (150, 4, 3), "breast_cancer": (569, 30, 2),
        "digits": (600, 64, 10), "digits_358": (539, 64, 3), "blobs9": (600, 2, 9),
        "moons_imbalanced": (405, 2, 2), "classification": (2000, 20, 2),
        "twonorm": (1000, 20, 2), "ringnorm": (1000, 20, 2), "checkerboard": (1000, 2, 2),
    }  # fmt: skip
    assert set(suite.DATASETS) == set(expected)
    protocol = suite.Protocol()
    for name, (n, d, T) in expected.items():
        X, y = suite.DATASETS[name]()
        assert X.shape == (n, d) and np.array_equal(np.unique(y), np.arange(T)), name
        assert np.allclose(X.mean(axis=0), 0, atol=1e-9), name
        sd = X.std(axis=0)
        assert np.allclose(sd[sd > 0], 1), name  # constant pixels of digits stay 0
        assert round((1 - protocol.test_fraction) * n) <= 2000


def test_split_is_stratified_with_initial_labels_per_class_and_the_median_sigma():
    X, y = suite.DATASETS["moons_imbalanced"]()
    protocol = suite.Protocol(init_per_class=2)
    s = suite.make_split(X, y, protocol, seed=3)
    assert len(s.y_test) == round(0.3 * len(y))
    assert abs(np.mean(s.y_test == 1) - 45 / 405) < 0.01  # the 8 : 1 ratio kept
    assert np.bincount(s.y_pool[s.init]).tolist() == [2, 2] and len(set(s.init)) == 4
    # the median heuristic, by brute force over the pairs i < j
    D = cdist(s.X_pool, s.X_pool)
    assert s.sigma == pytest.approx(np.median(D[np.triu_indices_from(D, k=1)]))
    again = suite.make_split(X, y, protocol, seed=3)
    assert np.array_equal(again.init, s.init) and np.array_equal(again.y_test, s.y_test)


def test_aulc_is_the_mean_over_steps_zero_to_q():
    assert suite.aulc([0.5, 0.7, 0.9]) == pytest.approx(0.7)
    assert suite.aulc([0.2, 0.4, 0.4, 1.0]) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        suite.aulc([])


def rls_reference_accuracy(run, X_pool, y_pool, X_test, y_test, labeled, lam):
    """Test accuracy of one-vs-all RLS ``(K + λI)c = y`` by scikit-learn's KernelRidge."""
    T = run["n_classes"]
    Y = np.where(y_pool[labeled][:, None] == np.arange(T), 1.0, -1.0)
    model = KernelRidge(alpha=lam, kernel="rbf", gamma=1 / (2 * run["sigma"] ** 2))
    F = model.fit(X_pool[labeled], Y).predict(X_test)
    return np.mean(np.argmax(F, axis=1) == y_test)


def test_quick_run_records_curves_that_an_independent_rls_reproduces(tmp_path, capsys):
    bench = load_benchmark("strategies")
    out = tmp_path / "runs.json"
    args = ["--datasets", "wine", "--seeds", "1", "--queries", "3", "--out", str(out)]
    runs = bench.main([*args, "--strategies", "random,uncertainty"])
    first = capsys.readouterr().out
    assert len(runs) == 2 and all(r["error"] is None for r in runs)
    saved = json.loads(out.read_text())
    assert saved["meta"]["protocol"]["queries"] == 3 and len(saved["runs"]) == 2

    X, y = suite.DATASETS["wine"]()
    protocol = suite.Protocol(queries=3, seeds=(0,))
    split = suite.make_split(X, y, protocol, seed=0)
    for run in runs:
        assert len(run["accuracy"]) == 4 and len(run["seconds"]) == 3
        assert len(set(run["queried"]) | set(run["init"])) == 6 + 3
        for t in range(4):
            labeled = run["init"] + run["queried"][:t]
            ref = rls_reference_accuracy(
                run, split.X_pool, split.y_pool, split.X_test, split.y_test, labeled, protocol.lam
            )
            assert run["accuracy"][t] == pytest.approx(ref)
    summary = bench.summarise(runs)
    for run in runs:
        row = summary[run["strategy"], "wine"]
        assert row["accuracy"] == pytest.approx(np.mean(run["accuracy"]))

    # the tables again from the saved curves, without running anything
    bench.main(["--from", str(out)])
    again = capsys.readouterr().out
    table = first[first.index("| strategy") : first.rindex("|") + 1]
    assert "| uncertainty |" in table and table in again


@pytest.mark.filterwarnings("ignore:.*probability.*:FutureWarning")
def test_modal_runs_through_the_compatibility_shim_and_fits_the_shared_svc():
    """modAL is a test dependency (pyproject's ``test`` extras): this runs in CI, never skips."""
    bench = load_benchmark("strategies")
    X, y = suite.DATASETS["iris"]()
    protocol = suite.Protocol(queries=2, seeds=(0,))
    run = bench.run_one("modal-uncertainty", "iris", 0, protocol)
    assert run["error"] is None and len(run["queried"]) == 2
    split = suite.make_split(X, y, protocol, seed=0)
    labeled = run["init"] + run["queried"]
    svc = bench.peer_svc(split.sigma, protocol.lam, seed=0).fit(
        split.X_pool[labeled], split.y_pool[labeled]
    )
    assert run["accuracy"][-1] == pytest.approx(np.mean(svc.predict(split.X_test) == split.y_test))
