"""benchmarks/multilabel.py (tiny sizes): its one-vs-rest margin baseline asks for the point of
smallest per-label margin of independently fitted SVCs, and its split keeps test points out."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC
from support.benchmarks import load_benchmark


def test_ovr_margin_baseline_queries_the_smallest_per_label_margin():
    bench = load_benchmark("multilabel")
    X, Y = bench.synthetic_task(0)
    X, Y = X[:80], Y[:80]
    labeled = list(range(12))
    sigma = 3.0
    i = bench.OvRMargin(sigma, seed=0).next_query(X, Y, labeled)
    free = np.arange(12, 80)
    margins = []
    for k in range(Y.shape[1]):
        svc = SVC(kernel="rbf", gamma=1.0 / (2.0 * sigma**2), C=1.0 / (2.0 * bench.LAM))
        margins.append(np.abs(svc.fit(X[labeled], Y[labeled, k]).decision_function(X[free])))
    assert i == free[np.argmin(np.min(margins, axis=0))]


def test_split_and_a_quick_run():
    bench = load_benchmark("multilabel")
    pool, test, start = bench.split(100, seed=3, init=5)
    assert np.intersect1d(pool, test).size == 0
    assert np.union1d(pool, test).size == 100
    assert len(set(start.tolist())) == 5 and start.max() < pool.size
    assert bench.main(["--quick", "--tasks", "synthetic", "--strategies", "arls,random"]) == 0


def test_small_text_cvirs_entry_fits_per_label_svcs_and_takes_the_peers_best_point():
    """The peer entry: small-text's CVIRS scored on sigmoid margins of per-label RBF SVCs fitted
    here independently (no OneVsRestClassifier, no small-text classifier); the point it asks for
    is an unlabeled one of highest score."""
    pytest.importorskip("small_text")
    from scipy.sparse import csr_matrix
    from small_text import CategoryVectorInconsistencyAndRanking

    bench = load_benchmark("multilabel")
    X, Y = bench.synthetic_task(1)
    X, Y = X[:90], Y[:90]
    labeled = list(range(30))
    assert (Y[labeled].min(axis=0) == 0).all() and (Y[labeled].max(axis=0) == 1).all()
    sigma = 3.0
    i = bench.make_peer("small-text-cvirs-rbf", sigma, seed=0).next_query(X, Y, labeled)
    free = np.arange(30, 90)
    P = np.empty((free.size, Y.shape[1]))
    for k in range(Y.shape[1]):
        svc = SVC(kernel="rbf", gamma=1.0 / (2.0 * sigma**2), C=1.0 / (2.0 * bench.LAM))
        P[:, k] = 1.0 / (
            1.0 + np.exp(-svc.fit(X[labeled], Y[labeled, k]).decision_function(X[free]))
        )

    class FixedProba:  # the classifier small-text's public query asks for probabilities
        def predict_proba(self, rows):
            assert np.array_equal(rows, X[free])
            return P

    cvirs = CategoryVectorInconsistencyAndRanking(pbar=None)
    best = cvirs.query(FixedProba(), X, free, np.array(labeled), csr_matrix(Y[labeled]), n=1)
    assert i in free
    assert i == int(best[0])
