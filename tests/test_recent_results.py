"""The memory of recent feature results: least recently used forgotten first, copies out."""

from __future__ import annotations

import numpy as np

from rlscore.data.features.recent_results import RecentResults, input_digest


def test_inputs_cut_differently_have_different_digests():
    assert input_digest(["ab", "c"]) != input_digest(["a", "bc"])
    assert input_digest(["ab", "c"]) == input_digest(iter(["ab", "c"]))
    assert input_digest([""]) != input_digest([])


def test_the_least_recently_used_result_is_forgotten():
    kept = RecentResults(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # "a" is now the most recently used
    kept.put("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == (1, None, 3)
    assert len(kept) == 2
    none = RecentResults(0)
    none.put("a", 1)
    assert none.get("a") is None


def test_results_go_in_and_out_as_copies():
    kept = RecentResults(1)
    x = np.arange(3.0)
    kept.put("x", x)
    x[:] = -1
    out = kept.get("x")
    np.testing.assert_array_equal(out, [0.0, 1.0, 2.0])
    out[:] = 9
    np.testing.assert_array_equal(kept.get("x"), [0.0, 1.0, 2.0])
