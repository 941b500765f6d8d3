"""A pool above the low-rank threshold in the app (AppTest): the project switches to the
low-rank form of ARLS by itself, says so, labels, and takes the user's m and landmark rule."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from support.app import REPO, TIMEOUT, button, ok, plain_markdown, query_point, stored_log

from rlscore.data.projects.project import Project
from rlscore.sessions.state.settings import low_rank_settings, project_settings
from rlscore.storage import open_store

#: the threshold lowered for the test (the app's is 50 000: a pool that size is slow here)
THRESHOLD = 10_000
N = THRESHOLD + 2000


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setattr("rlscore.sessions.state.settings.LOW_RANK_MIN_POOL", THRESHOLD)
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, 3))
    with open_store(path) as store:
        store.create_project(
            Project(
                name="big",
                X=X,
                feature_names=["a", "b", "c"],
                ids=[str(i) for i in range(N)],
                truth=np.where(X[:, 0] + 0.3 * X[:, 1] > 0, "yes", "no"),
                classes=["no", "yes"],
                meta={"sigma": 1.5, "lam": 0.3},
            )
        )
    return path


def _captions(at: AppTest) -> str:
    return " ".join(plain_markdown(c.value) for c in at.caption)


def test_a_large_pool_runs_the_low_rank_form_says_so_and_takes_the_users_m(db):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = "big"
    ok(at.run())
    p = at.session_state["params"]
    assert p["project"] == "big" and p["strategy"] == "arls-lowrank"
    assert f"Pool of {N:,} points: low-rank kernel of 500 uniform landmarks" in _captions(at)
    assert "500 candidates scored per query" in _captions(at)
    assert "the 10 best re-scored on the exact kernel" in _captions(at)
    assert at.number_input(key="w_refine").value == 10

    q = query_point(at)
    button(at, "label", 1).click()
    ok(at.run())
    assert stored_log(db, "big").labels == {q: "yes"}
    assert query_point(at) != q

    at.number_input(key="w_n_landmarks").set_value(60)
    ok(at.run())
    with open_store(db) as store:
        assert project_settings(store, "big")["n_landmarks"] == 60
    assert "low-rank kernel of 60 uniform landmarks" in _captions(at)
    assert at.session_state["params"]["n_landmarks"] == 60
    assert stored_log(db, "big").labels == {q: "yes"}  # the rebuild kept the label


def test_a_large_pool_runs_a_optimal_klr_on_a_risk_sample(db):
    """A-optimal KLR's low-rank form takes the sidebar's risk sample (its ``risk_points``)."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = "big"
    ok(at.run())
    at.selectbox(key="w_strategy").set_value("aopt-klr-lowrank")
    ok(at.run())
    at.number_input(key="w_candidates").set_value(50)
    ok(at.run())
    at.number_input(key="w_risk_sample").set_value(1500)
    ok(at.run())
    p = at.session_state["params"]
    assert p["strategy"] == "aopt-klr-lowrank"
    assert low_rank_settings(p) == {
        "n_landmarks": 500, "landmarks": "uniform", "candidates": 50, "risk_points": 1500
    }  # fmt: skip
    assert "risk estimated on 1,500 points" in _captions(at)
    q = query_point(at)
    button(at, "label", 1).click()
    ok(at.run())
    assert stored_log(db, "big").labels == {q: "yes"}
    assert query_point(at) != q
