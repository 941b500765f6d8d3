"""benchmarks/stopping_rules.py on a tiny run: the suite's halves are fixed and disjoint, and
each rule's outcome is read off the run's own curves."""

from __future__ import annotations

import numpy as np
from support.benchmarks import load_benchmark

from rlscore.core.stopping import confidence_drop


def test_the_halves_split_the_suite_by_name():
    bench = load_benchmark("stopping_rules")  # the names it imports from strategy_suite
    dev, conf = set(bench.DEVELOPMENT_TASKS), set(bench.CONFIRMATION_TASKS)
    assert not dev & conf and dev | conf == set(bench.DATASETS)


def test_outcomes_follow_the_recorded_curves():
    bench = load_benchmark("stopping_rules")
    run = bench.run_one("iris", 0, "uncertainty", 60)
    assert run["labels"][0] == 6 and run["labels"][-1] == 60
    fixed = bench.outcome(run, "fixed-50")
    assert fixed["labels"] == 50 and fixed["saved"] == 10
    assert fixed["drop"] == run["accuracy"][-1] - run["accuracy"][run["labels"].index(50)]
    for rule in bench.RULES:
        o = bench.outcome(run, rule)
        step = run["stops"][rule]["step"]
        t = len(run["labels"]) - 1 if step is None else step
        assert o["labels"] == run["labels"][t] and o["fired"] == (step is not None)
        assert o["within"] == (run["accuracy"][t] >= run["accuracy"][-1] - 0.01 - 1e-12)
    summary = bench.summary([run, run], "fixed-50")
    assert summary["labels"] == 50 and summary["fired"] == 1.0
    assert np.isnan(summary["coverage"])  # a baseline has no interval
    assert confidence_drop([1.0, 0.9], lag=1, patience=1) == 1  # the rules the script reads
