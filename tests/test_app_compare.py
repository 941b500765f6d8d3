"""rlscore.experiments.comparison.compare (the Compare page's engine) against separate simulate()
runs,
and the Compare page in Streamlit's AppTest: names shown as text, failures as messages."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from reference.simulation import oracle_run
from streamlit.testing.v1 import AppTest
from support.app import app_page
from support.markdown import BOLD_NAME, IMAGE_NAME, assert_shown_as_text, plain

from rlscore.data.projects.project import Project
from rlscore.data.samples.bundled import ensure_sample_projects, load_sample
from rlscore.experiments.comparison.compare import COLUMNS, compare_strategies
from rlscore.experiments.simulation.simulate import simulate
from rlscore.sessions import PoolTooLargeError
from rlscore.storage import open_store


@pytest.fixture(scope="module")
def moons():
    ds = load_sample("two_moons")
    return ds.X[:80], ds.y[:80]


def test_table_matches_independent_simulations(moons):
    """Every row is what a plain oracle loop (tests/reference/simulation.py, which shares no
    code with simulate(), the function compare_strategies runs) records for that strategy,
    seed and step."""
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
        for seed in (0, 1):
            ref = oracle_run(X, y, name, params, seed=seed, queries=4, init=2)
            rows = table[(table.strategy == name) & (table.seed == seed)].sort_values("step")
            assert rows["step"].tolist() == list(range(5))
            for column in ("index", "score"):  # no query before step 1
                np.testing.assert_allclose(rows[column].iloc[1:], [r[column] for r in ref[1:]])
            for column in ("n_labels", "estimated_risk", "validation_error", "balanced_error"):
                np.testing.assert_allclose(rows[column], [r[column] for r in ref], err_msg=column)
    # progress counts every query of every strategy, ending at the total
    assert calls[-1] == (16, 16)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_the_csv_writes_points_and_integer_labels_as_integers(moons):
    # a tester's download said "102.0" and "-1.0": step 0 (no query yet) made the columns float
    X, y = moons
    table = compare_strategies(X, y, ["random"], queries=3, seeds=1, init=2,
                               params={"sigma": 2.0, "lam": 0.1})  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(table.to_csv(index=False))))
    assert [r["index"] for r in rows][0] == "" and [r["label"] for r in rows][0] == ""
    for r, (i, label) in zip(rows[1:], table[["index", "label"]].iloc[1:].to_numpy(), strict=True):
        assert r["index"] == str(int(i)) and r["label"] == str(int(label))
        assert int(r["label"]) == y[int(r["index"])]  # the oracle's answer for that point
    # class names as text stay text
    names = np.where(y == 1, "pos", "neg")
    text = compare_strategies(X, names, ["random"], queries=2, seeds=1, init=2,
                              params={"sigma": 2.0, "lam": 0.1})  # fmt: skip
    assert set(text["label"].dropna()) <= {"pos", "neg"}


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
    from rlscore.viz.plane.geometry import summarize_curves

    X, y = moons
    table = compare_strategies(X, y, ["uncertainty"], queries=3, seeds=3, init=2,
                               params={"sigma": 2.0, "lam": 0.1})  # fmt: skip
    summary = summarize_curves(table, "validation_error", x="n_labels")
    assert summary["runs"].tolist() == [3, 3, 3, 3]
    assert isinstance(table, pd.DataFrame)


def test_sample_projects_compare_on_their_held_out_split():
    from rlscore.data.samples.bundled import project_from_sample
    from rlscore.experiments.comparison.compare import held_out_validation

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


# -- the page ---------------------------------------------------------------------------------
@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    with open_store(path) as store:
        ensure_sample_projects(store)
    return path


def add_moons(db: Path, name: str, n: int, *, truth: bool = True) -> None:
    """A project of the first ``n`` two-moons points, classes ``**bold**`` and ``plain``."""
    ds = load_sample("two_moons")
    names = {-1: BOLD_NAME, 1: "plain"}
    labels = [names[int(v)] for v in ds.y[:n]] if truth else None
    with open_store(db) as store:
        store.create_project(
            Project(name, ds.X[:n], ["a", "b"], [str(i) for i in range(n)], labels,
                    list(names.values()))
        )  # fmt: skip


def open_page(project: str) -> AppTest:
    at = app_page("compare.py", timeout=120)
    at.query_params["project"] = project
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def run(at: AppTest, strategies: list[str], queries: int | None = None) -> AppTest:
    """Press Run with these strategies (and number of queries)."""
    at.multiselect[0].set_value(strategies)
    if queries is not None:
        at.number_input[0].set_value(queries)
    at.button[0].click()  # the form's Run button
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_page_shows_names_as_text(db):
    add_moons(db, IMAGE_NAME, 60)
    at = open_page(IMAGE_NAME)
    assert plain(at.title[0].value) == f"Compare strategies · {IMAGE_NAME}"
    assert_shown_as_text(at, IMAGE_NAME)
    at = run(at, ["arls", "random"], queries=3)
    assert not at.error
    assert len(at.session_state["compare_results"][1]) == 2 * 3 * 4  # strategies × seeds × steps
    assert_shown_as_text(at, IMAGE_NAME)


def test_project_without_truth_is_a_warning(db):
    add_moons(db, IMAGE_NAME, 20, truth=False)
    at = open_page(IMAGE_NAME)
    assert f"Project **{IMAGE_NAME}** has no ground truth" in plain(at.warning[0].value)
    assert_shown_as_text(at, IMAGE_NAME)


def test_a_project_of_six_points_can_be_compared(db):
    add_moons(db, "six", 6)
    at = open_page("six")
    queries, _, init = at.number_input
    assert (queries.value, queries.max) == (5, 5) and init.value <= init.max == 4
    at = run(at, ["arls", "random"])
    assert not at.error
    table = at.session_state["compare_results"][1]
    assert set(table["strategy"]) == {"arls", "random"}
    assert table["n_labels"].max() <= 6


def test_too_little_memory_is_a_message(db, monkeypatch):
    at = open_page("two_moons")
    monkeypatch.setattr(
        "rlscore.core.conventions.memory_budget.available_memory_bytes", lambda: 1000
    )
    at = run(at, ["arls"])
    message = plain(at.error[0].value)
    assert message.startswith("Running the comparison failed: Not enough memory")
    assert "ARLS on a pool of" in message
    assert not at.get("plotly_chart") and "compare_results" not in at.session_state


def test_a_pool_too_large_for_a_strategy_is_a_message(db, monkeypatch):
    def too_large(*args, **kwargs):
        raise PoolTooLargeError(
            f"pool too large for 'arls' on {IMAGE_NAME}; strategies that fit this pool with "
            "kernel 'rbf': 'random', 'uncertainty'"
        )

    at = open_page("two_moons")
    monkeypatch.setattr("rlscore.experiments.comparison.compare.compare_strategies", too_large)
    at = run(at, ["arls"])
    message = plain(at.error[0].value)
    assert message.startswith("Running the comparison failed: pool too large for 'arls'")
    assert "'random', 'uncertainty'" in message
    assert_shown_as_text(at, IMAGE_NAME)


def test_no_strategy_chosen_is_a_message(db):
    at = run(open_page("two_moons"), [])
    assert "choose at least one strategy" in plain(at.error[0].value)


def test_one_seed_shows_no_standard_deviation(db):
    # a tester saw the literal "None" in every std cell of a one-seed run
    at = open_page("two_moons")
    at.number_input[1].set_value(1)  # Seeds K
    at = run(at, ["arls", "random"], queries=3)
    runs = at.session_state["compare_results"][1]
    last = runs[runs.step == runs.step.max()].set_index("strategy")
    cells = at.dataframe[0].value
    for figure in ("validation_error", "balanced_error", "estimated_risk"):
        # one run per strategy: its own value is the mean, and there is no deviation
        assert cells[(figure, "std")].tolist() == ["—", "—"]
        expected = [f"{last.loc[s, figure]:.4f}" for s in ("arls", "random")]
        assert cells[(figure, "mean")].tolist() == expected
