"""``python -m rlscore label-issues``: the CLI's table is ``rlscore.label_issues``' on the
project."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import rlscore
from rlscore.cli import main as cli_main
from rlscore.core.evaluation.annotator_consensus import crowd_consensus
from rlscore.data.projects.project import Project
from rlscore.sessions import LabelLog, project_settings, save_project_settings
from rlscore.sessions.team.crowd_labels import model_probabilities, with_consensus
from rlscore.sessions.views.label_issues import probably_wrong_queue, project_label_issues
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


@pytest.fixture
def team_db(tmp_path):
    """A 3-class project of 60 points: ada (5 % slips) then bob (25 %) label every point, cy
    half of them (30 % flipped); the project asks for 3 annotators per point, so the final
    label is the majority, bob's where only ada and bob disagree (the latest wins a tie)."""
    rng = np.random.default_rng(8)
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    truth = rng.integers(0, 3, size=60)
    X = centres[truth] + rng.normal(size=(60, 2))
    classes = ["ant", "bee", "cat"]
    given: dict[int, dict[str, int]] = {}
    path = tmp_path / "team.sqlite3"
    with open_store(path) as store:
        store.create_project(
            Project("team", X, ["x", "y"], [f"p{i}" for i in range(60)], None, classes)
        )
        save_project_settings(store, "team", {"overlap": 3}, checked=False)
        for who, share, flip in (("ada", 1.0, 0.05), ("bob", 1.0, 0.25), ("cy", 0.5, 0.3)):
            for i in range(60):
                if rng.random() < share:
                    code = (truth[i] + (rng.random() < flip)) % 3
                    given.setdefault(i, {})[who] = int(code)
                    store.append_event("team", Event("label", i, classes[code], who))
    return path, classes, given


def test_several_annotators_per_point_the_cli_prints_the_review_pages_consensus(team_db, capsys):
    path, classes, given = team_db
    got = _run(["--db", str(path), "--project", "team"], capsys)
    with open_store(path) as store:
        project, events = store.load_project("team"), store.events("team")
        settings = project_settings(store, "team")
        queue = probably_wrong_queue(project, events, settings, rule="majority")
    plain = project_label_issues(project, events, settings, rule="majority")
    want = with_consensus(plain, LabelLog(events, rule="majority"), classes).table
    for column in ("index", "point_id", "label", "suggested", "annotator"):
        assert got[column].tolist() == want[column].tolist()
    np.testing.assert_allclose(got["score"], want["score"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got["label_margin"], want["label_margin"], rtol=1e-9, atol=1e-12)
    # the consensus, not the model alone, judged the points of several annotators: its
    # posterior from the ratings as appended (not as the log folds them)
    points = got["index"].tolist()
    names = ["ada", "bob", "cy"]
    ratings = np.array([[given[p].get(a, -1) for a in names] for p in points])
    in_order = plain.set_index("index").loc[points].reset_index()  # the CLI's ranking
    ref = crowd_consensus(ratings, model_probabilities(in_order, classes))
    label = np.array([classes.index(c) for c in got["label"]])
    np.testing.assert_allclose(
        got["score"], 1.0 - ref.posterior[np.arange(len(points)), label], rtol=1e-9, atol=1e-12
    )
    assert not np.allclose(got["score"], in_order["score"])
    # and the Review page's queue is the CLI's rows it keeps (score ≥ ½, another class)
    keep = (got["score"] >= 0.5) & (got["suggested"] != got["label"])
    assert got["index"][keep].tolist() == queue.suspects["index"].tolist()
    assert not queue.suspects.empty


@pytest.mark.parametrize("n_labels", [1, 2])
def test_too_few_labels_are_counted_in_words(tmp_path, capsys, n_labels):
    """One label of one class is '1 label of 1 class', not '1 labels of 1 classes'."""
    path = tmp_path / "few.sqlite3"
    X = np.arange(20.0).reshape(10, 2)
    with open_store(path) as store:
        store.create_project(Project("few", X, ["x", "y"], list(range(10)), None, ["a", "b"]))
        for i in range(n_labels):
            store.append_event("few", Event("label", i, "a", "ada"))
    capsys.readouterr()
    assert cli_main(["label-issues", "--db", str(path), "--project", "few"]) == 2
    err = capsys.readouterr().err
    labels = "1 label " if n_labels == 1 else f"{n_labels} labels "
    assert f"has {labels}of 1 class:" in err, err


def test_a_project_that_names_its_classes_prints_the_names_too(tmp_path, capsys):
    """A bundled sample's labels are −1 and 1 under the names "benign" and "malignant" the
    annotators clicked; the table printed only the values (an exploratory test)."""
    rng = np.random.default_rng(2)
    truth = np.repeat([-1, 1], 15)
    X = truth[:, None] * 2.0 + rng.normal(size=(30, 2))
    meta = {"class_names": {"-1": "benign", "1": "malignant"}}
    path = tmp_path / "labels.sqlite3"
    with open_store(path) as store:
        store.create_project(
            Project("bc", X, ["x", "y"], [f"p{i}" for i in range(30)], None, [-1, 1], meta=meta)
        )
        for i in range(20):
            store.append_event("bc", Event("label", i, int(-truth[i] if i == 3 else truth[i]), "a"))
    got = _run(["--db", str(path), "--project", "bc"], capsys)
    names = {-1: "benign", 1: "malignant"}
    assert list(got.columns[:6]) == ["index", "point_id", "label", "label_name", "suggested",
                                     "suggested_name"]  # fmt: skip
    assert got["label_name"].tolist() == [names[c] for c in got["label"]]
    assert got["suggested_name"].tolist() == [names[c] for c in got["suggested"]]
    assert got["index"].iloc[0] == 3
