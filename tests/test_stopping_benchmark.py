"""benchmarks/stopping_rules.py on a tiny run: the suite's halves are fixed and disjoint, and
each rule's outcome is read off the run's own curves."""

from __future__ import annotations

import numpy as np
import pytest
from support.benchmarks import load_benchmark

from rlscore.core.evaluation.stopping_rules import confidence_drop


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


def _run(task: str, strategy: str, accuracy: list[float], stops: dict[str, int | None]) -> dict:
    labels = list(range(10, 10 + len(accuracy)))
    return {
        "task": task,
        "seed": 0,
        "strategy": strategy,
        "accuracy": accuracy,
        "labels": labels,
        "stops": {r: {"step": s, "loo_interval": None} for r, s in stops.items()},
    }


def test_the_text_comparison_ranks_by_its_pre_registered_criterion():
    bench = load_benchmark("stopping_rules_text")
    acc = [0.5, 0.7, 0.8, 0.9, 0.958, 0.96]
    base = {"fixed-50": None, "fixed-100": None}
    # a: stops early but 15 points short on one cell; b: late and never short; c: as b, with
    # more labels saved
    runs = [
        _run("t1", "s", acc, {"a": 2, "b": 5, "c": 4, **base}),
        _run("t2", "s", acc, {"a": 5, "b": 5, "c": 4, **base}),
    ]
    cells = bench.shortfall_cells(runs, "a")
    assert cells[("t1", "s")] == 0.96 - 0.8 and cells[("t2", "s")] == 0.0
    assert bench.key(runs, "a")[0] == 16.0  # worst-case shortfall first, in whole points
    assert bench.key(runs, "c") == pytest.approx((0.0, -1.0, -1 / 15))  # within, then saved
    assert bench.pick(runs, ("a", "b", "c")) == "c"
    assert bench.pick(runs, ("a", "b")) == "b"
