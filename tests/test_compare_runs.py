"""rlscore.experiments.comparison.runs: a comparison's settings, the form's defaults, and the
summary after the last query (checked against values written out here)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rlscore.experiments.comparison.runs import (
    final_summary,
    run_defaults,
    simulation_settings,
    summary_cells,
)
from rlscore.sessions.state.settings import LOW_RANK_MIN_POOL


def test_simulation_settings_take_the_learner_and_the_low_rank_settings():
    saved = {
        "project": "p",
        "strategy": "arls",
        "kernel": "rbf",
        "sigma": 1.5,
        "lam": 0.25,
        "lam_auto": True,  # a simulation keeps λ fixed
        "class_weight": "balanced",
        "budget": 10,
        "n_landmarks": 300,
        "landmarks": "kmeans",
        "candidates": 0,  # 0 means "all": no parameter
        "risk_sample": 2000,
        "refine": 0,
    }
    assert simulation_settings(saved) == {
        "kernel": "rbf",
        "sigma": 1.5,
        "lam": 0.25,
        "class_weight": "balanced",
        "n_landmarks": 300,
        "landmarks": "kmeans",
        "candidates": None,
        "risk_sample": 2000,
        "risk_points": 2000,
        "refine": None,
        "graph_t": None,
    }


@pytest.mark.parametrize(
    ("n", "arls", "queries", "init"),
    [
        (2, "arls-focused", 1, 0),
        (3, "arls-focused", 2, 1),
        (21, "arls-focused", 20, 2),
        (500, "arls-focused", 20, 2),
        (LOW_RANK_MIN_POOL, "arls-focused", 20, 2),
        (LOW_RANK_MIN_POOL + 1, "arls-lowrank", 20, 2),
    ],
)
def test_run_defaults_fit_the_pool(n, arls, queries, init):
    d = run_defaults(n)
    assert d.strategies == (arls, "uncertainty", "random")
    assert (d.queries, d.max_queries, d.init, d.max_init) == (queries, n - 1, init, n - 2)
    assert 1 <= d.queries <= d.max_queries and 0 <= d.init <= d.max_init


def test_run_defaults_need_two_points():
    with pytest.raises(ValueError, match="at least 2 points"):
        run_defaults(1)


def table(with_model: bool) -> pd.DataFrame:
    """Two strategies × two seeds × steps 0…2; the value of a figure encodes its row."""
    rows = []
    for s, strategy in enumerate(("arls", "random")):
        for seed in (0, 1):
            for step in range(3):
                v = 100 * s + 10 * seed + step
                row = {"strategy": strategy, "seed": seed, "step": step, "n_labels": step + 2}
                row.update(
                    validation_error=v, balanced_error=v + 1, estimated_risk=v + 2, seconds=v + 3
                )
                if with_model:
                    row.update(model_error=v + 4, model_balanced_error=v + 5)
                rows.append(row)
    return pd.DataFrame(rows)


@pytest.mark.parametrize("with_model", [False, True])
def test_final_summary_is_the_last_step_per_strategy(with_model):
    summary = final_summary(table(with_model), with_model=with_model)
    assert list(summary.index) == ["arls", "random"]
    figures = ["validation_error", "balanced_error", "estimated_risk", "seconds"]
    if with_model:
        figures[2:2] = ["model_error", "model_balanced_error"]
    assert list(summary.columns) == [(f, stat) for f in figures for stat in ("mean", "std")]
    offsets = {"validation_error": 0, "balanced_error": 1, "estimated_risk": 2, "seconds": 3,
               "model_error": 4, "model_balanced_error": 5}  # fmt: skip
    sd = round(math.sqrt(50.0), 4)  # seeds 0 and 1 differ by 10 at the last step (2)
    for s, strategy in enumerate(("arls", "random")):
        for f in figures:
            mean = np.mean([100 * s + 10 * seed + 2 + offsets[f] for seed in (0, 1)])
            assert summary.loc[strategy, (f, "mean")] == mean
            assert summary.loc[strategy, (f, "std")] == sd


def test_summary_cells_show_a_dash_where_a_figure_is_undefined():
    runs = table(with_model=True)
    runs = runs[runs.seed == 0].copy()  # one seed: no standard deviation
    runs.loc[runs.strategy == "random", ["model_error", "model_balanced_error"]] = np.nan
    cells = summary_cells(final_summary(runs, with_model=True))
    # arls at the last step: validation error 2, the model's error 6; random's model: no value
    assert cells.loc["arls", ("validation_error", "mean")] == "2.0000"
    assert cells.loc["arls", ("model_error", "mean")] == "6.0000"
    assert cells.loc["random", ("model_error", "mean")] == "—"
    assert set(cells.xs("std", axis=1, level=1).to_numpy().ravel()) == {"—"}
    # two seeds: the standard deviation is a number (√50, the seeds 10 apart)
    both = summary_cells(final_summary(table(with_model=False)))
    assert both.loc["arls", ("seconds", "std")] == f"{math.sqrt(50.0):.4f}"
