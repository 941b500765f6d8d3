"""Issue 22.4, last sentence: Graph-OCL's "start from positives" on a text project.

A fresh text project whose rare class (cats, 8 of 48 sentences) has a few positives labeled:
the proposal is the brute-force Graph-OCL rule (tests/reference/graph_ocl.py) on the
project's text features, every proposed sentence is of the other topic, and the Label page
shows the positives it starts from and the proposed points as their texts (plain text), then
labels the confirmed ones in the annotator's name.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from reference.graph_ocl import brute_knn, brute_negatives
from streamlit.testing.v1 import AppTest
from support.app import plain_markdown

from rlscore.cli import main as cli
from rlscore.data.projects.project import Project
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.samples.bundled import project_from_sample
from rlscore.sessions import LabelLog
from rlscore.sessions.actions.cold_start import propose_negatives
from rlscore.storage import Event, open_store

REPO = Path(__file__).resolve().parent.parent
NAME = "news"
CATS = ["the cat sat on the warm mat", "a small cat chased the mouse", "my cat sleeps all day",
        "the kitten and the cat play", "cats purr when they are happy"]  # fmt: skip
MONEY = ["the stock market fell sharply", "investors sold shares of the bank",
         "the market rallied after the report", "bond yields rose on inflation news",
         "the bank raised interest rates again", "bank shares fell on the report"]  # fmt: skip
RARE = 8
POSITIVES = [0, 2, 4, 6]
NEIGHBORS = 6


def news_project() -> Project:
    """48 sentences, the first :data:`RARE` about cats, the rest about money."""
    rng = np.random.default_rng(3)
    rows = []
    for i in range(48):
        cats = i < RARE
        base = (CATS if cats else MONEY)[int(rng.integers(5 if cats else 6))]
        rows.append({"text": f"{base} story {i}", "label": "cats" if cats else "money"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to fix in this table
        return project_from_table(
            pd.DataFrame(rows), NAME, truth_column="label", text_columns=["text"],
            text_settings={"n_components": 12},
        )  # fmt: skip


def test_the_proposal_on_text_features_is_the_brute_force_rule():
    project = news_project()
    assert project.feature_names[0] == "text_svd_1" and project.texts is not None
    proposal = propose_negatives(
        project, dict.fromkeys(POSITIVES, "cats"), n_neighbors=NEIGHBORS, seed=1
    )
    kept, n_below, _ = brute_negatives(
        brute_knn(project.X, NEIGHBORS), np.array(POSITIVES), np.array(proposal.spies),
        alpha=0.001,
    )  # fmt: skip
    assert proposal.points == tuple(kept.tolist()) and proposal.n_below_spies == n_below
    assert (proposal.positive, proposal.negative) == ("cats", "money")
    assert 0 < len(proposal.points) <= len(POSITIVES)
    assert all(project.truth[i] == "money" for i in proposal.points)


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    with open_store(path) as store:
        store.create_project(news_project())
        for i in POSITIVES:
            store.append_event(NAME, Event("label", i, "cats", "ada"))
    return path


def _button(at: AppTest, prefix: str):
    return next(b for b in at.button if b.key and b.key.startswith(prefix))


def _texts(at: AppTest) -> list[str]:
    return [t.value for t in at.text]


def test_the_label_page_shows_positives_and_proposals_as_texts(db):
    project = news_project()
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = NAME
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Only class “cats” labeled so far" in m.value for m in at.markdown)
    listing = next(t for t in _texts(at) if t.startswith("#0 · "))
    assert listing.splitlines() == [f"#{i} · {project.texts[i]}" for i in POSITIVES]
    _button(at, "propose_").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    boxes = [c for c in at.checkbox if c.key and c.key.startswith("negative_")]
    proposed = [int(c.key.rsplit("_", 1)[1]) for c in boxes]
    assert proposed and all(project.truth[i] == "money" for i in proposed)
    shown = _texts(at)
    assert all(project.texts[i] in shown for i in proposed)  # each proposed point's own text
    _button(at, "confirm_").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    with open_store(db) as store:
        log = LabelLog(store.events(NAME))
    assert {i for i, v in log.labels.items() if v == "money"} == set(proposed)
    assert all(log.label_events[i].annotator == "ada" for i in proposed)


def test_the_negatives_command_prints_each_proposed_text(db, capsys):
    project = news_project()
    assert cli(["negatives", "--db", str(db), "--project", NAME, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["proposed"]
    assert rows and all(r["item"] == project.texts[r["point"]] for r in rows)
    assert cli(["negatives", "--db", str(db), "--project", NAME]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split(maxsplit=3) for ln in lines[3:]] == [
        [str(r["rank"]), str(r["point"]), project.ids[r["point"]], project.texts[r["point"]]]
        for r in rows
    ]


def test_one_label_of_the_second_class_is_named_as_itself_and_the_page_says_what_is_missing(
    tmp_path, monkeypatch
):
    """Issue 34: after one label of -1 on two_moons the panel called it "the 1 positives"
    and then said "Mark a few positives first". The labeled class is named, the count is
    right, and the missing step is said once, consistently with the disabled button."""
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    with open_store(path) as store:
        project = project_from_sample("two_moons")
        store.create_project(project)
        negative_first = project.classes[0]  # -1: the class the project lists first
        point = next(i for i, c in enumerate(project.truth) if c == negative_first)
        store.append_event("two_moons", Event("label", point, negative_first, "ada"))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = "two_moons"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    words = plain_markdown(" ".join([m.value for m in at.markdown] + [c.value for c in at.caption]))
    assert "Only class “-1” labeled so far" in words
    assert "positives it starts from" not in words and "positives first" not in words
    assert "1 point labeled -1 so far" in words
    assert "needs at least 2 points labeled -1: label 1 more point" in words
    button = _button(at, "propose_")
    assert button.disabled and button.label == "Propose reliable 1 points"
