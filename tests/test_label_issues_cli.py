"""``python -m rlscore label-issues``: the CLI's table is ``rlscore.label_issues``' on the
project."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import rlscore
from rlscore.cli import main as cli_main
from rlscore.data.projects.project import Project
from rlscore.sessions import project_settings, save_project_settings
from rlscore.storage import Event, open_store

FLIPPED = (4, 11, 30)


@pytest.fixture
def db(tmp_path):
    """A 3-class project with 45 labels by two annotators, three of them flipped, one undone."""
    rng = np.random.default_rng(5)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    truth = rng.integers(0, 3, size=60)
    X = centres[truth] + rng.normal(size=(60, 2))
    classes = ["ant", "bee", "cat"]
    path = tmp_path / "labels.sqlite3"
    with open_store(path) as store:
        store.create_project(
            Project("bugs", X, ["x", "y"], [f"p{i}" for i in range(60)], None, classes)
        )
        for i in range(45):
            label = classes[(truth[i] + (1 if i in FLIPPED else 0)) % 3]
            store.append_event("bugs", Event("label", i, label, "ann" if i % 2 else "bob"))
        store.append_event("bugs", Event("label", 50, "ant", "bob"))
        store.append_event("bugs", Event("undo"))  # point 50 is unlabeled again
    return path, X, truth, classes


def _expected(path, X, truth, classes, **model) -> pd.DataFrame:
    """``rlscore.label_issues`` on the project's pool and final labels with its settings."""
    with open_store(path) as store:
        settings = project_settings(store, "bugs")
    y = np.full(60, None, dtype=object)
    for i in range(45):
        y[i] = classes[(truth[i] + (1 if i in FLIPPED else 0)) % 3]
    lam = "auto" if settings["lam_auto"] else settings["lam"]
    return rlscore.label_issues(X, y, sigma=settings["sigma"], lam=lam, **model)


def _run(args, capsys) -> pd.DataFrame:
    capsys.readouterr()
    assert cli_main(["label-issues", *args]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def test_cli_output_equals_the_function(db, capsys):
    path, X, truth, classes = db
    before = path.read_bytes()
    got = _run(["--db", str(path), "--project", "bugs"], capsys)
    # the default strategy, focused ARLS, fits an offset once every class has a label
    want = _expected(path, X, truth, classes, offset=True)
    assert got["index"].tolist() == want["index"].tolist()
    assert got["point_id"].tolist() == [f"p{i}" for i in want["index"]]
    assert got["label"].tolist() == want["label"].tolist()
    assert got["suggested"].tolist() == want["suggested"].tolist()
    np.testing.assert_allclose(got["score"], want["score"], rtol=1e-9)
    np.testing.assert_allclose(got["label_margin"], want["label_margin"], rtol=1e-9, atol=1e-12)
    assert got["annotator"].tolist() == ["ann" if i % 2 else "bob" for i in want["index"]]
    assert set(got["index"][:3]) == set(FLIPPED)
    assert path.read_bytes() == before  # read-only


def test_settings_top_and_out(db, capsys, tmp_path):
    path, X, truth, classes = db
    with open_store(path) as store:
        changes = {"strategy": "uncertainty", "lam_auto": True, "class_weight": "balanced"}
        save_project_settings(store, "bugs", changes, checked=False)
    out = tmp_path / "suspects.csv"
    args = ["--db", str(path), "--project", "bugs", "--top", "5", "--out", str(out)]
    assert cli_main(["label-issues", *args]) == 0
    assert capsys.readouterr().out == ""
    got = pd.read_csv(out)
    want = _expected(path, X, truth, classes, class_weight="balanced").head(5)
    assert got["index"].tolist() == want["index"].tolist()
    np.testing.assert_allclose(got["score"], want["score"], rtol=1e-9)
