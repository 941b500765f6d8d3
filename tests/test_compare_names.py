"""Compare shows strategies by their display names (issue 22, "Also found"): every trace of
its figures and every row of its summary table reads
rlscore.ui.shell.strategy_names.STRATEGY_LABELS,
never a registry id such as "arls-focused"."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from support.app import app_page

from rlscore.data.projects.project import Project
from rlscore.data.samples.bundled import load_sample
from rlscore.experiments.comparison.runs import final_summary
from rlscore.query import STRATEGIES
from rlscore.storage import open_store
from rlscore.ui.shell.strategy_names import STRATEGY_LABELS

CHOSEN = ["arls-focused", "aopt-klr", "random"]


@pytest.fixture
def compared(tmp_path, monkeypatch) -> AppTest:
    """The Compare page after a run of :data:`CHOSEN` with an evaluation model on 40 points."""
    db = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(db))
    ds = load_sample("two_moons")
    with open_store(db) as store:
        store.create_project(
            Project("moons", ds.X[:40], ["a", "b"], [str(i) for i in range(40)], ds.y[:40],
                    [-1, 1])
        )  # fmt: skip
    at = app_page("compare.py", timeout=180)
    at.query_params["project"] = "moons"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.multiselect[0].set_value(CHOSEN)
    at.number_input[0].set_value(2)  # queries
    at.number_input[1].set_value(1)  # seeds
    at.selectbox(key="compare_model").set_value("shrinkage-lda")
    at.button[0].click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def trace_names(at: AppTest) -> list[str]:
    names = []
    for chart in at.get("plotly_chart"):
        names += [t.get("name", "") for t in json.loads(chart.proto.spec)["data"]]
    return names


def test_every_trace_and_row_uses_the_display_names(compared):
    charts = compared.get("plotly_chart")
    assert len(charts) == 3  # validation error, risk, the model's error
    names = trace_names(compared)
    # the strategies' risks differ (expected errors vs predictive variance): the risk chart
    # adds the figure's name after the display name
    for strategy in CHOSEN:
        label = STRATEGY_LABELS[strategy]
        assert sum(n == label for n in names) == 2  # learning curve, the model's curve
        assert sum(n == f"{label} ± sd" for n in names) == 2  # their bands
        risk = [n for n in names if n.startswith(f"{label}: ")]
        assert len(risk) == 2 and risk[0] == f"{risk[1]} ± sd"  # the risk band and curve
    # no registry id anywhere (they are lower case; the display names are capitalised)
    assert not [(n, i) for n in names for i in STRATEGIES if i in n]
    summary = compared.dataframe[0].value
    assert list(summary.index) == [STRATEGY_LABELS[s] for s in CHOSEN]


def test_final_summary_renames_only_what_it_is_given():
    table = pd.DataFrame(
        {"strategy": ["arls-focused", "mine"], "step": [1, 1], "validation_error": [0.1, 0.2],
         "balanced_error": [0.1, 0.2], "estimated_risk": [3.0, 4.0], "seconds": [0.0, 0.0]}
    )  # fmt: skip
    summary = final_summary(table, names=STRATEGY_LABELS)
    assert list(summary.index) == ["Focused ARLS (recommended)", "mine"]
    assert summary.index.name == "strategy"
    assert list(final_summary(table).index) == ["arls-focused", "mine"]
