"""How the app shows a cluster-backed project (issue 26) from its meta alone: the sidebar's
project list names it with its pool's size, and the Data page's table and caption give the
pool's size and feature columns. The Parquet files are deleted before the app runs, so
nothing shown can come from reading the pool, and no cluster is needed.

The expected texts are built here from the numbers the test wrote (rows and columns of the
Parquet files).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from support.app import ok, plain_markdown
from support.stores import small_project

from rlscore.data.cluster.parquet_pool import SCHEDULER_ENV, write_pool
from rlscore.data.samples.bundled import list_samples
from rlscore.sessions.cluster.projects import create_cluster_project
from rlscore.sessions.views.project_overview import (
    ProjectOverview,
    cluster_pool_text,
    feature_count,
    project_label,
)
from rlscore.storage import open_store

REPO = Path(__file__).resolve().parent.parent
N, D = 1234, 3
COLUMNS = ["x0", "x1", "x2"]


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    """A database with a cluster-backed project ``big`` (its files then deleted) and an
    uploaded project ``small``; no scheduler."""
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    folder = tmp_path / "pool"
    write_pool(np.random.default_rng(0).normal(size=(N, D)), folder, rows_per_file=500)
    with open_store(path) as store:
        create_cluster_project(store, "big", str(folder), ["a", "b"], n_landmarks=20)
        store.create_project(small_project("small", n=8))
    shutil.rmtree(folder)  # the app must show the project without its pool
    return path


def test_labels_and_texts_come_from_the_meta(db):
    with open_store(db) as store:
        summaries = {s["name"]: s for s in store.project_summaries()}
        rows = {r["project"]: r for r in ProjectOverview(store).rows()}
    big, small = summaries["big"], summaries["small"]
    samples = set(list_samples())
    assert project_label("big", big["n"], big["meta"], samples) == "big (cluster, 1,234 points)"
    assert project_label("small", small["n"], small["meta"], samples) == "small (uploaded)"
    sample = sorted(samples)[0]
    assert project_label(sample, 10, {}, samples) == sample
    assert feature_count(big["d"], big["meta"]) == D and big["d"] == 0  # X is a placeholder
    assert feature_count(small["d"], small["meta"]) == 3
    assert (rows["big"]["points"], rows["big"]["features"]) == (N, D)
    assert rows["small"]["features"] == 3
    text = cluster_pool_text(big["n"], big["meta"])
    assert "1,234 points × 3 feature columns (x0, x1, x2)" in text
    assert "20 landmark kernel features" in text
    assert cluster_pool_text(small["n"], small["meta"]) is None


def _app_on_big() -> AppTest:
    """The app's Label page on ``big`` (it cannot label without a scheduler, cheaply)."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = "big"
    return ok(at.run())


def test_the_sidebar_names_a_cluster_project_with_its_size(db):
    at = _app_on_big()
    choice = at.selectbox(key="w_project")
    assert choice.value == "big"
    shown = list(choice.options)
    assert "big (cluster, 1,234 points)" in shown
    assert "small (uploaded)" in shown
    # the page says why it cannot label (no scheduler), not a traceback
    assert any(SCHEDULER_ENV in plain_markdown(e.value) for e in at.error)


def test_the_data_page_shows_the_pool_size_and_columns(db):
    at = _app_on_big()
    at.switch_page("pages/data.py")
    ok(at.run())
    table = at.dataframe[-1].value
    row = table[table["project"] == "big"].iloc[0]
    assert (row["points"], row["features"]) == (N, D)
    at.selectbox(key="chosen").set_value("big")
    ok(at.run())
    captions = [plain_markdown(c.value) for c in at.caption]
    assert any("1,234 points × 3 feature columns (x0, x1, x2)" in c for c in captions), captions
