"""benchmarks/label_issues.py: its label noise is what its docstring says, its figures are
those of the rankings (tiny sizes; times are not checked)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from support.benchmarks import load_benchmark

import rlscore

pytest.importorskip("cleanlab")


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("label_issues")


def test_uniform_flips_change_exactly_the_drawn_labels(bench):
    y = np.repeat([0, 1, 2], 40)
    noisy, flipped = bench.flip_uniform(y, 0.1, np.random.default_rng(0))
    assert flipped.size == 12
    np.testing.assert_array_equal(np.flatnonzero(noisy != y), flipped)


def test_class_conditional_flips_go_to_the_next_class_at_the_class_rate(bench):
    y = np.repeat([0, 1, 2], [40, 60, 80])
    noisy, flipped = bench.flip_class_conditional(y, 0.1, np.random.default_rng(1))
    np.testing.assert_array_equal(np.flatnonzero(noisy != y), flipped)
    for c, (n_c, r_c) in enumerate(zip([40, 60, 80], [0.05, 0.10, 0.15], strict=True)):
        moved = flipped[y[flipped] == c]
        assert moved.size == round(r_c * n_c)
        assert (noisy[moved] == (c + 1) % 3).all()


def test_figures_are_those_of_the_rankings(bench):
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 40)
    X = np.where(y[:, None] == 1, 3.0, -3.0) + rng.normal(size=(80, 2))
    noisy, flipped = bench.flip_uniform(y, 0.05, rng)
    result = bench.evaluate(X, noisy, flipped, 2.0, seed=0)
    assert set(result) == set(bench.METHODS)
    # the checker's own ranking, scored from scratch
    order = rlscore.label_issues(X, noisy, sigma=2.0)["index"].to_numpy()
    truth = np.isin(np.arange(80), flipped)
    assert result["rlscore"]["precision_at_k"] == truth[order[: flipped.size]].mean() == 1.0
    assert result["rlscore"]["auroc"] == roc_auc_score(truth, -np.argsort(order)) == 1.0


@pytest.mark.parametrize("n_classes", [2, 3])
def test_the_exact_search_floor_ranks_as_the_checker(bench, n_classes):
    """``--floor``'s ``exact-floor`` is a lower bound of the checker's work only if it does
    that work: the same order and label margins as ``rlscore.label_issues``."""
    rng = np.random.default_rng(3)
    codes = np.repeat(np.arange(n_classes), 30)
    X = 2.0 * codes[:, None] + rng.normal(size=(codes.size, 3))
    codes[[4, 40]] = (codes[[4, 40]] + 1) % n_classes
    floor = bench.exact_search_floor(X, codes, 1.5, n_classes)
    table = rlscore.label_issues(X, codes, sigma=1.5)
    np.testing.assert_array_equal(floor["index"], table["index"])
    np.testing.assert_allclose(floor["label_margin"], table["label_margin"], rtol=0, atol=1e-12)
