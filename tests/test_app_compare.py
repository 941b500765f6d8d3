"""rlscore.experiments.compare (the Compare page's engine) against separate simulate() runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rlscore.data.samples import load_sample
from rlscore.experiments.compare import COLUMNS, compare_strategies
from rlscore.experiments.simulate import simulate


@pytest.fixture(scope="module")
def moons():
    ds = load_sample("two_moons")
    return ds.X[:80], ds.y[:80]


def test_table_matches_independent_simulations(moons):
    X, y = moons
    params = {"sigma": 2.0, "lam": 0.1, "kernel": "rbf"}
    calls = []
    table = compare_strategies(
        X, y, ["arls", "random"], queries=4, seeds=2, init=2, params=params,
        progress=lambda done, total: calls.append((done, total)),
    )  # fmt: skip
    assert list(table.columns) == list(COLUMNS)
    assert len(table) == 2 * 2 * 5  # strategies × seeds × (queries + 1)
    for name in ("arls", "random"):
        ref = simulate(X, y, name, queries=4, seeds=2, init=2, params=params)
        part = table[table.strategy == name]
        for run in ref.runs:
            rows = part[part.seed == run.seed].sort_values("step")
            assert rows["index"].iloc[1:].astype(int).tolist() == [s.index for s in run.steps[1:]]
            np.testing.assert_allclose(
                rows["validation_error"], [s.validation_error for s in run.steps]
            )
            np.testing.assert_allclose(
                rows["estimated_risk"], [s.estimated_risk for s in run.steps]
            )
    # progress counts every query of every strategy, ending at the total
    assert calls[-1] == (16, 16)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


@pytest.mark.parametrize(
    ("strategies", "params"),
    [
        (["arls", "uncertainty"], {"kernel": "graph", "graph_k": 12, "lam": 0.1}),
        (["arls", "aopt-klr"], {"kernel": "graph", "graph_t": 3.0, "lam": 0.1}),
        (["arls", "random"], {"kernel": "polynomial", "degree": 3, "lam": 0.5}),
        (["arls", "entropy"], {"kernel": "rbf", "sigma": 1.0, "lam": 0.3}),
    ],
)
def test_every_parameter_reaches_the_shared_kernel(moons, strategies, params):
    """Each strategy's runs are exactly the runs simulate() makes with the same parameters
    (the shared pool kernel is built from all of them: graph_k, graph_t, degree …)."""
    X, y = moons
    table = compare_strategies(X, y, strategies, queries=5, seeds=1, init=2, params=params)
    for name in strategies:
        ref = simulate(X, y, name, queries=5, seeds=1, init=2, params=params)
        rows = table[table.strategy == name].sort_values("step")
        assert rows["index"].iloc[1:].astype(int).tolist() == [
            s.index for s in ref.runs[0].steps[1:]
        ]
        np.testing.assert_allclose(
            rows["estimated_risk"], [s.estimated_risk for s in ref.runs[0].steps]
        )


def test_errors_are_reported(moons):
    X, y = moons
    with pytest.raises(ValueError, match="at least one strategy"):
        compare_strategies(X, y, [], queries=2)
    with pytest.raises(ValueError, match="unknown strategy"):
        compare_strategies(X, y, ["nope"], queries=2, params={"sigma": 2.0})


def test_summary_feeds_the_learning_curves(moons):
    from rlscore.viz.figures import summarize_curves

    X, y = moons
    table = compare_strategies(X, y, ["uncertainty"], queries=3, seeds=3, init=2,
                               params={"sigma": 2.0, "lam": 0.1})  # fmt: skip
    summary = summarize_curves(table, "validation_error", x="n_labels")
    assert summary["runs"].tolist() == [3, 3, 3, 3]
    assert isinstance(table, pd.DataFrame)


def test_sample_projects_compare_on_their_held_out_split():
    from rlscore.data.samples import project_from_sample
    from rlscore.experiments.compare import held_out_validation

    project = project_from_sample("two_moons")
    validation, where = held_out_validation(project, ["arls", "random"], {"kernel": "rbf"})
    held = load_sample("two_moons", "validation")
    np.testing.assert_array_equal(validation[0], held.X)
    np.testing.assert_array_equal(validation[1], held.y)
    assert "held-out validation split (400 points)" in where
    # a graph kernel cannot predict outside the pool: the pool is used, and the page says so
    none, why = held_out_validation(project, ["arls"], {"kernel": "graph"})
    assert none is None and "graph kernel" in why
    project.meta.pop("sample")
    assert held_out_validation(project, ["arls"], {})[0] is None
