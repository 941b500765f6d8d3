"""The random order drawn on demand (rlscore.query.protocol.random_order): equal to a full-array
Fisher–Yates shuffle driven by the same ``rng.integers`` calls (tests/reference/fisher_yates.py),
whatever
the prefixes asked, uniform, and in O(k) memory for k elements of any n."""

from __future__ import annotations

import math
import tracemalloc
from collections import Counter

import numpy as np
import pytest
from reference.fisher_yates import first_unlabeled, fisher_yates

from rlscore.query.baselines.uncertainty_scores import random_rank
from rlscore.query.protocol.random_order import BATCH, SparseShuffle, first_outside, shuffled


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 1000, BATCH + 3])
@pytest.mark.parametrize("seed", [0, 1, 26, 2**40 + 3])
def test_the_whole_order_is_fisher_yates_and_the_generator_agrees_after(n, seed):
    rng, ref = np.random.default_rng(seed), np.random.default_rng(seed)
    order = shuffled(rng, n)
    assert order.dtype == np.int32
    np.testing.assert_array_equal(order, fisher_yates(ref, n))
    assert rng.integers(1 << 62) == ref.integers(1 << 62)  # as many draws, no more


@pytest.mark.parametrize("steps", [[1, 2, 3], [5, 5, 40], [0, BATCH + 1, BATCH + 2], [2000]])
def test_prefixes_are_the_orders_first_elements_and_draw_no_further(steps):
    n, seed = BATCH + 50, 7
    full = fisher_yates(np.random.default_rng(seed), n)
    rng = np.random.default_rng(seed)
    order = SparseShuffle(rng, n)
    for k in steps:
        np.testing.assert_array_equal(order.take(k), full[:k])
        assert len(order) == max(steps[: steps.index(k) + 1])
    # the generator has made exactly len(order) draws (one per element but the last)
    ref = np.random.default_rng(seed)
    for i in range(len(order)):
        ref.integers(i, n)
    assert rng.integers(1 << 62) == ref.integers(1 << 62)


def test_a_short_prefix_asked_twice_is_not_drawn_again():
    order = SparseShuffle(np.random.default_rng(3), 10)
    a = order.take(4).copy()
    np.testing.assert_array_equal(order.take(2), a[:2])
    np.testing.assert_array_equal(order.take(20), fisher_yates(np.random.default_rng(3), 10))


def test_every_permutation_of_four_is_equally_likely():
    """24 orders, 24 000 seeds: a chi-square test at a fixed seed range (deterministic)."""
    counts = Counter(tuple(shuffled(np.random.default_rng(s), 4).tolist()) for s in range(24_000))
    assert len(counts) == math.factorial(4)
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < 49.7  # the 0.999 quantile of chi-square with 23 degrees of freedom


def test_the_first_elements_of_a_huge_order_are_distinct_and_uniform():
    n = 10**12
    firsts = []
    for s in range(2000):
        prefix = SparseShuffle(np.random.default_rng(s), n).take(50)
        assert np.unique(prefix).size == 50 and prefix.min() >= 0 and prefix.max() < n
        firsts.append(prefix[0])
    # the first element's deciles: 200 each expected
    deciles = np.bincount(np.asarray(firsts) * 10 // n, minlength=10)
    assert ((deciles - 200) ** 2 / 200).sum() < 27.9  # chi-square, 9 dof, 0.999


def test_memory_is_that_of_the_prefix_not_of_n():
    tracemalloc.start()
    try:
        order = SparseShuffle(np.random.default_rng(0), 10**9)
        order.take(1000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000  # a 10⁹ int32 array would be 4 GB


@pytest.mark.parametrize("case", ["none", "one", "evens", "order's first 600", "all but one"])
def test_first_outside_is_the_first_unlabeled_of_the_order(case):
    n = 1000
    full = fisher_yates(np.random.default_rng(11), n)
    taken = {
        "none": [],
        "one": [3],
        "evens": list(range(0, n, 2)),
        "order's first 600": full[:600].tolist(),  # the random strategy's own picks
        "all but one": full[np.arange(n) != 700].tolist(),
    }[case]
    out = np.unique(np.asarray(taken, dtype=np.int64))
    got = first_outside(SparseShuffle(np.random.default_rng(11), n), out)
    assert got == first_unlabeled(full, out)


def test_first_outside_refuses_a_full_set():
    with pytest.raises(ValueError, match="every element"):
        first_outside(SparseShuffle(np.random.default_rng(0), 3), np.arange(3))


def test_random_rank_is_the_position_in_the_order():
    order = fisher_yates(np.random.default_rng(9), 500)
    rank = random_rank(500, 9)
    np.testing.assert_array_equal(rank[order], np.arange(500))
