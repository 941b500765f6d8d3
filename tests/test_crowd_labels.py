"""The "Probably wrong" queue with several annotators per point (issue 37, item 2): their
labels folded from the log and combined with the leave-one-out model."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlscore.core.evaluation.annotator_consensus import crowd_consensus
from rlscore.data.projects.project import Project
from rlscore.sessions import LabelLog, project_settings
from rlscore.sessions.team.crowd_labels import model_probabilities, with_consensus
from rlscore.sessions.views.label_issues import (
    probably_wrong_queue,
    project_label_issues,
    team_label_issues,
)
from rlscore.storage import Event, open_store

N = 90


def _team_store(tmp_path):
    """Two clusters of 90 points; ada and bob label every point (3 % slips), cy labels
    two thirds of them last and flips 30 % of hers (her label is the final one: rule
    "latest")."""
    rng = np.random.default_rng(5)
    truth = np.repeat([0, 1], N // 2)
    X = np.where(truth[:, None] == 1, 1.2, -1.2) + rng.normal(size=(N, 2))
    store = open_store(tmp_path / "labels.sqlite3")
    store.create_project(Project("p", X, ["a", "b"], [f"i{k}" for k in range(N)], None, [0, 1]))
    given: dict[int, dict[str, int]] = {}
    for who, share, flip in (("ada", 1.0, 0.03), ("bob", 1.0, 0.03), ("cy", 0.67, 0.30)):
        for i in range(N):
            if rng.random() < share:
                label = int(truth[i] ^ (rng.random() < flip))
                given.setdefault(i, {})[who] = label
                store.append_event("p", Event("label", i, label, who))
    return store, truth, given


def test_the_consensus_rows_and_the_annotators_rates_follow_the_log(tmp_path):
    store, truth, given = _team_store(tmp_path)
    with store:
        project, events = store.load_project("p"), store.events("p")
        settings = project_settings(store, "p")
        table = project_label_issues(project, events, settings)
        queue = probably_wrong_queue(project, events, settings)
    # the reference: the ratings written out from what was appended, not from the log
    names = ["ada", "bob", "cy"]
    points = [int(p) for p in table["index"]]
    ratings = np.array([[given[p].get(a, -1) for a in names] for p in points])
    ref = crowd_consensus(ratings, model_probabilities(table, [0, 1]))
    rates = queue.annotators.set_index("annotator")
    assert rates.index[0] == "cy"  # the worst first
    for m, a in enumerate(names):
        assert rates.loc[a, "shared points"] == sum(a in given[p] for p in points)
        assert rates.loc[a, "estimated error rate"] == ref.annotator_error[m]
    on, true = ratings[:, 2] >= 0, truth[points]
    assert abs(rates.loc["cy", "estimated error rate"] - np.mean(ratings[on, 2] != true[on])) < 0.05
    # cy's wrong final labels where ada and bob agree with the truth lead to the queue
    final = LabelLog(events).labels
    caught = [p for p in points if given[p].get("cy", truth[p]) != truth[p]
              and given[p]["ada"] == given[p]["bob"] == truth[p]]  # fmt: skip
    assert caught and all(final[p] != truth[p] for p in caught)
    suspects = queue.suspects.set_index("index")
    assert set(caught) <= set(suspects.index)
    assert all(suspects.loc[p, "suggested"] == truth[p] for p in caught)
    k = points.index(caught[0])
    assert suspects.loc[caught[0], "score"] == 1 - ref.posterior[k, final[caught[0]]]


def test_one_annotator_per_point_leaves_the_table_as_it_is():
    log = LabelLog([Event("label", i, i % 2, "ada", id=i + 1) for i in range(4)])
    table = pd.DataFrame(
        {"index": [0, 1, 2, 3], "label": [0, 1, 0, 1], "suggested": [1, 1, 0, 1],
         "score": [0.8, 0.1, 0.3, 0.2]}
    )  # fmt: skip
    check = with_consensus(table, log, [0, 1])
    assert check.annotators is None and check.table is table


def test_the_models_probabilities_are_the_checkers_chances():
    table = pd.DataFrame(
        {"label": ["x", "y", "z"], "suggested": ["y", "y", "x"], "score": [0.8, 0.2, 0.6]}
    )
    probs = model_probabilities(table, ["x", "y", "z"])
    np.testing.assert_allclose(probs, [[0.2, 0.8, 0.0], [0.1, 0.8, 0.1], [0.6, 0.0, 0.4]])


def test_the_review_page_shows_each_annotators_rate_and_the_weighed_labels(tmp_path, monkeypatch):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    store, _, given = _team_store(tmp_path)
    store.close()
    monkeypatch.setenv("RLSCORE_DB", str(tmp_path / "labels.sqlite3"))
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=120)
    at.query_params["project"] = "p"
    at.query_params["annotator"] = "rev"
    at.run()
    at.switch_page("pages/review.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    frames = [d.value for d in at.dataframe]
    rates = next(f for f in frames if "estimated error rate" in f.columns)
    assert rates["annotator"].tolist()[0] == "cy"
    shared = dict(
        zip(rates["annotator"], rates["points shared with another annotator"], strict=True)
    )
    assert shared == {a: sum(a in g for g in given.values()) for a in ("ada", "bob", "cy")}
    # a suspect's card lists the annotators' labels the consensus weighed
    assert any(set(f.columns) >= {"annotator", "label", "when (UTC)"} for f in frames)


def test_with_several_annotators_the_table_is_still_most_likely_wrong_first(tmp_path):
    # the consensus replaces the scores of the shared points: the rows are ranked by them,
    # doubted labels (another class suggested) first, as --top K and the queue read them
    store, _, _ = _team_store(tmp_path)
    with store:
        project, events = store.load_project("p"), store.events("p")
        table = team_label_issues(project, events, project_settings(store, "p")).table
    doubted = (table["suggested"] != table["label"]).tolist()
    keys = list(zip(doubted, table["score"], strict=True))
    assert keys == sorted(keys, reverse=True)
    assert sum(doubted) and not all(doubted)
