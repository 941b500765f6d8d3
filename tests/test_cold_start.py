"""A positives-only start (rlscore.sessions.actions.cold_start, the Label page's panel and
``python -m rlscore negatives``): Graph-OCL's proposal against the brute-force rule of
test_graph_ocl, confirmation as label events bound to the version shown, and the page."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from reference.graph_ocl import brute_knn, brute_negatives
from streamlit.testing.v1 import AppTest

from rlscore.cli import main as cli
from rlscore.data.projects.project import Project
from rlscore.sessions import LabelingSession, LabelLog
from rlscore.sessions.actions.cold_start import (
    cold_start_class,
    confirm_negatives,
    project_proposal,
    propose_negatives,
)
from rlscore.storage import Event, open_store

REPO = Path(__file__).resolve().parent.parent
NAME = "blobs"


def blobs_project(n: int = 40, gap: float = 3.0) -> Project:
    """Two Gaussian blobs of n points each: class "pos" around 0, "neg" around gap."""
    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(size=(n, 2)), rng.normal(size=(n, 2)) + gap])
    truth = ["pos"] * n + ["neg"] * n
    ids = [f"p{i}" for i in range(2 * n)]
    return Project(NAME, X, ["u", "v"], ids, truth, ["neg", "pos"])


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    with open_store(path) as store:
        store.create_project(blobs_project())
    return path


def label(db: Path, points, value="pos", who="ada") -> None:
    with open_store(db) as store:
        for i in points:
            store.append_event(NAME, Event("label", int(i), value, who))


POSITIVES = [0, 3, 5, 8, 11, 14, 17, 20, 23, 26]


def test_cold_start_only_for_two_classes_labeled_with_one():
    two = blobs_project()
    assert cold_start_class(two, {}) is None
    assert cold_start_class(two, {1: "pos", 2: "pos"}) == "pos"
    assert cold_start_class(two, {1: "pos", 60: "neg"}) is None
    three = Project("t", two.X, ["u", "v"], two.ids, None, ["a", "b", "c"])
    assert cold_start_class(three, {1: "a"}) is None


def test_the_proposal_is_the_brute_force_rule():
    project = blobs_project()
    labels = dict.fromkeys(POSITIVES, "pos")
    proposal = propose_negatives(project, labels, n_neighbors=6, seed=3)
    positives = np.array(POSITIVES)
    kept, n_below, _ = brute_negatives(
        brute_knn(project.X, 6), positives, np.array(proposal.spies), alpha=0.001
    )
    assert proposal.points == tuple(kept.tolist())
    assert proposal.n_below_spies == n_below
    assert (proposal.positive, proposal.negative) == ("pos", "neg")
    assert set(proposal.spies) <= set(POSITIVES) and proposal.n_positives == len(POSITIVES)
    # well separated blobs: every proposed point is a true negative
    assert 0 < len(proposal.points) <= len(POSITIVES)
    assert all(project.truth[i] == "neg" for i in proposal.points)


def test_the_proposal_explains_what_is_wrong():
    project = blobs_project()
    with pytest.raises(ValueError, match="labels are all of one class"):
        propose_negatives(project, {0: "pos", 50: "neg"})
    with pytest.raises(ValueError, match="at least 2 labeled positives"):
        propose_negatives(project, {0: "pos"})
    # a path 0 – 1 – 2 – 3 with positives at both ends ranks no point below the spy; the
    # advice names what the app and the command line offer, not the estimator's parameters
    line = Project("line", np.array([[0.0], [1.0], [2.1], [3.3]]), ["u"], list("abcd"),
                   ["pos", "neg", "neg", "pos"], ["neg", "pos"])  # fmt: skip
    with pytest.raises(
        ValueError, match=r"no reliable negative.*number of neighbours \(k = 1\)"
    ) as err:
        propose_negatives(line, {0: "pos", 3: "pos"}, n_neighbors=1, seed=0)
    assert "spy_fraction" not in str(err.value) and "n_neighbors" not in str(err.value)


def test_confirmed_points_become_the_annotators_labels_and_stale_ones_are_refused(db):
    label(db, POSITIVES)
    with open_store(db) as store:
        project, proposal = project_proposal(store, NAME)
        seen = max(e.id for e in store.events(NAME))
        session = LabelingSession(store, NAME, strategy="random")
        taken = proposal.points[0]
        # a teammate labels one proposed point after the proposal was shown
        store.append_event(NAME, Event("label", taken, "pos", "bo"))
        written, refused = confirm_negatives(
            session, proposal.points, proposal.negative, "ada", seen=seen
        )
        log = LabelLog(store.events(NAME))
    assert refused == [taken] and written == list(proposal.points[1:])
    assert log.labels[taken] == "pos"  # the teammate's label is not overwritten
    for i in written:
        assert log.labels[i] == "neg" and log.label_events[i].annotator == "ada"


def test_command_line_prints_the_proposal(db, capsys):
    label(db, POSITIVES)
    assert cli(["negatives", "--db", str(db), "--project", NAME, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    with open_store(db) as store:
        _, proposal = project_proposal(store, NAME)
    assert [r["point"] for r in out["proposed"]] == list(proposal.points)
    assert [r["id"] for r in out["proposed"]] == [f"p{i}" for i in proposal.points]
    assert out["negative"] == "neg" and out["spies"] == list(proposal.spies)
    label(db, [60], "neg")
    assert cli(["negatives", "--db", str(db), "--project", NAME]) == 2
    assert "all of one class" in capsys.readouterr().err
    assert cli(["negatives", "--db", str(db), "--project", "nope"]) == 2


def _page(annotator: str = "ada") -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    at.query_params["annotator"] = annotator
    at.query_params["project"] = NAME
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _button(at: AppTest, prefix: str):
    return next(b for b in at.button if b.key and b.key.startswith(prefix))


def test_the_label_page_proposes_shows_and_confirms(db):
    label(db, POSITIVES[:1])
    at = _page()
    assert any("Only class “pos” labeled so far" in m.value for m in at.markdown)
    assert _button(at, "propose_").disabled  # one positive: two are needed
    label(db, POSITIVES[1:])
    at.run()
    _button(at, "propose_").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    with open_store(db) as store:
        _, proposal = project_proposal(store, NAME)
    boxes = [c for c in at.checkbox if c.key and c.key.startswith("negative_")]
    assert [int(c.key.rsplit("_", 1)[1]) for c in boxes] == list(proposal.points)
    assert all(c.value for c in boxes)
    dropped = proposal.points[-1]
    boxes[-1].uncheck()
    _button(at, "confirm_").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    with open_store(db) as store:
        log = LabelLog(store.events(NAME))
    kept = proposal.points[:-1]
    assert {i for i, v in log.labels.items() if v == "neg"} == set(kept)
    assert dropped not in log.labels
    assert all(log.label_events[i].annotator == "ada" for i in kept)
    # both classes are labeled now: the panel is gone and the active loop goes on
    assert not any("labeled so far" in m.value for m in at.markdown)
    assert any(h.value.startswith("Next query: point #") for h in at.subheader)


def test_one_confirmed_point_is_counted_in_the_singular(db):
    """The flash said "Labeled 1 points **neg**."."""
    label(db, POSITIVES)
    at = _page()
    _button(at, "propose_").click()
    at.run()
    boxes = [c for c in at.checkbox if c.key and c.key.startswith("negative_")]
    for box in boxes[1:]:
        box.uncheck()
    _button(at, "confirm_").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [m.value for m in at.success] == ["Labeled 1 point **neg**."]


@pytest.mark.parametrize("n", [1, 2])
def test_the_proposals_sentence_counts_in_words(n):
    """'1 reliable negative … the 1 hidden spy', never '1 reliable negatives' or '1 hidden
    spies'."""
    from rlscore.sessions.actions.cold_start import NegativeProposal

    proposal = NegativeProposal("pos", "neg", tuple(range(n)), tuple(range(n)), n, 4)
    text = proposal.describe()
    if n == 1:
        assert text.startswith("1 reliable negative:") and "the 1 hidden spy of" in text
    else:
        assert text.startswith("2 reliable negatives:") and "all 2 hidden spies of" in text
    assert "1 reliable negatives" not in text and "1 hidden spies" not in text


def test_a_multi_label_project_is_named_as_such_not_listed_as_classes():
    two = blobs_project()
    sets = Project("tags", two.X, ["u", "v"], two.ids, None, ["a", "b"], multi_label=True)
    with pytest.raises(ValueError, match="is multi-label") as info:
        propose_negatives(sets, {0: ("a",), 1: ("a", "b")})
    assert "('a'" not in str(info.value)


@pytest.mark.parametrize(
    ("classes", "class_names", "shown"),
    [
        ([-1, 1], None, "classes ['-1', '1'] and labels of ['-1', '1']"),
        ([-1, 1], {"-1": "other", "1": "bird"}, "classes ['other', 'bird'] and labels of "
                                                "['other', 'bird']"),
    ],
)  # fmt: skip
def test_the_refusal_names_the_classes_and_the_labels_alike(classes, class_names, shown):
    """Both classes labeled: the refusal lists the project's classes and the labeled ones the
    same way, as the project names them (it printed ``[-1, 1]`` beside ``['-1', '1']``)."""
    X = np.arange(8.0).reshape(4, 2)
    meta = {"class_names": class_names} if class_names else {}
    project = Project("ints", X, ["u", "v"], list("abcd"), None, classes, meta)
    with pytest.raises(ValueError) as err:
        propose_negatives(project, {0: 1, 1: -1, 2: 1})
    assert shown in str(err.value)
