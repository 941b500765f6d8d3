"""The Review page's "Probably wrong" queue, below the UI (issue 37)."""

from __future__ import annotations

import numpy as np

from rlscore.data.projects.project import Project
from rlscore.sessions import project_settings
from rlscore.sessions.views.label_issues import (
    probably_wrong_queue,
    project_label_issues,
    queue_summary,
)
from rlscore.storage import Event, open_store


def _store(tmp_path, n_labels: int = 40):
    rng = np.random.default_rng(3)
    truth = np.repeat([0, 1], 30)
    X = np.where(truth[:, None] == 1, 2.5, -2.5) + rng.normal(size=(60, 2))
    store = open_store(tmp_path / "labels.sqlite3")
    store.create_project(Project("p", X, ["a", "b"], [f"i{k}" for k in range(60)], None, [0, 1]))
    for i in range(n_labels):
        label = 1 - truth[i] if i in (2, 35) else truth[i]
        store.append_event("p", Event("label", i, int(label), "ada"))
    return store


def test_the_queue_is_the_undecided_suspects_of_the_full_table(tmp_path):
    with _store(tmp_path) as store:
        project, settings = store.load_project("p"), project_settings(store, "p")
        events = store.events("p")
        table = project_label_issues(project, events, settings)
        queue = probably_wrong_queue(project, events, settings)
        expected = table[(table["score"] >= 0.5) & (table["suggested"] != table["label"])]
        assert queue.reason is None
        assert queue.suspects["index"].tolist() == expected["index"].tolist()
        assert {2, 35} <= set(queue.suspects["index"])
        assert probably_wrong_queue(project, events, settings) is queue  # remembered
        store.append_event("p", Event("review", 2, 0, "rev"))  # a decision leaves the queue
        after = probably_wrong_queue(project, store.events("p"), settings)
        assert 2 not in set(after.suspects["index"]) and 35 in set(after.suspects["index"])


def test_too_few_labels_give_the_reason(tmp_path):
    with _store(tmp_path, n_labels=2) as store:
        project, settings = store.load_project("p"), project_settings(store, "p")
        queue = probably_wrong_queue(project, store.events("p"), settings)
        assert queue.suspects is None and "at least 3 labels" in queue.reason
        assert "has 2 labels of 1 class:" in queue.reason
    with _store(tmp_path / "none", n_labels=0) as store:
        project, settings = store.load_project("p"), project_settings(store, "p")
        queue = probably_wrong_queue(project, store.events("p"), settings)
        assert "project 'p' has no label yet: checking" in queue.reason  # not "0 of 0 classes"


def test_the_summary_counts_the_suspects_and_those_a_reviewer_kept(tmp_path):
    """The Review page said "1 labels the model … disagrees with", and after a Keep on the
    only suspect "No label looks wrong to the leave-one-out model." while the model still
    disagreed with the kept label."""
    with _store(tmp_path) as store:
        project, settings = store.load_project("p"), project_settings(store, "p")
        queue = probably_wrong_queue(project, store.events("p"), settings)
        suspects = queue.suspects["index"].tolist()
        assert len(suspects) >= 2 and queue.kept == 0
        assert queue_summary(queue) == (
            f"{len(suspects)} labels the model trained on all the others disagrees with, "
            "most likely wrong first."
        )
        labels = dict(zip(queue.suspects["index"], queue.suspects["label"], strict=True))
        for i in suspects[1:]:  # a reviewer keeps every suspect but the first
            store.append_event("p", Event("review", int(i), int(labels[i]), "rev"))
        queue = probably_wrong_queue(project, store.events("p"), settings)
        assert queue.suspects["index"].tolist() == suspects[:1]
        kept = len(suspects) - 1
        assert queue.kept == kept
        assert queue_summary(queue) == (
            "1 label the model trained on all the others disagrees with "
            f"(and {kept} kept by a reviewer)."
        )
        first = suspects[0]
        store.append_event("p", Event("review", int(first), int(labels[first]), "rev"))
        queue = probably_wrong_queue(project, store.events("p"), settings)
        assert queue.suspects.empty and queue.kept == len(suspects)
        assert queue_summary(queue) == (
            f"No suspect left to review ({len(suspects)} kept by a reviewer)."
        )


def test_the_summary_says_nothing_looks_wrong_only_when_the_model_agrees(tmp_path):
    with _store(tmp_path) as store:
        for i in (2, 35):  # the two flipped labels corrected by their annotator
            store.append_event("p", Event("label", i, int(i >= 30), "ada"))
        project, settings = store.load_project("p"), project_settings(store, "p")
        queue = probably_wrong_queue(project, store.events("p"), settings)
        table = project_label_issues(project, store.events("p"), settings)
        doubted = (table["score"] >= 0.5) & (table["suggested"] != table["label"])
        assert not doubted.any() and queue.suspects.empty and queue.kept == 0
        assert (table["suggested"] == table["label"]).all()
        assert queue_summary(queue) == "No label looks wrong to the leave-one-out model."


def test_the_summary_says_the_model_disagrees_where_it_cannot_tell(tmp_path):
    """With labels the model cannot learn (here: random), its LOO predictions are wrong as
    often as right and no disagreement reaches a 50 % chance; the page said "No label looks
    wrong to the leave-one-out model" while it disagreed with most of them (an exploratory
    test: 10 of 15 on a sample)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))
    with open_store(tmp_path / "labels.sqlite3") as store:
        store.create_project(
            Project("p", X, ["a", "b"], [f"i{k}" for k in range(40)], None, [0, 1])
        )
        for i, label in enumerate(rng.integers(0, 2, size=16)):
            store.append_event("p", Event("label", i, int(label), "ada"))
        project, settings = store.load_project("p"), project_settings(store, "p")
        table = project_label_issues(project, store.events("p"), settings)
        queue = probably_wrong_queue(project, store.events("p"), settings)
        disagree = int((table["suggested"] != table["label"]).sum())
        assert queue.suspects.empty and disagree > 0 and queue.unsure == disagree
        summary = queue_summary(queue)
        assert summary.startswith(
            f"The model trained on all the other labels disagrees with {disagree} label"
        )
        assert "No label looks wrong" not in summary


def test_the_summary_of_labels_that_cannot_be_checked_is_the_reason(tmp_path):
    with _store(tmp_path, n_labels=2) as store:
        project, settings = store.load_project("p"), project_settings(store, "p")
        queue = probably_wrong_queue(project, store.events("p"), settings)
        assert queue_summary(queue) == queue.reason
