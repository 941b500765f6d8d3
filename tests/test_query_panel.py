"""The Label page's state below the UI (rlscore.sessions.views.label_page) and the session's
refusals of a press no person could have meant (rlscore.sessions.actions.dwell, project binding).

The panel state is checked against quantities computed here from the session's public API
and the project's truth (validation error recounted point by point); the refusals by calling
the session directly, below any UI, and reading the store back.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from support.sessions import moons_store, moons_subset, session

from rlscore.sessions.actions import dwell
from rlscore.sessions.actions.dwell import TooSoonError, check_dwell, min_dwell_seconds
from rlscore.sessions.views.label_page import LearnerFigures, PoolPlotState, QueryPanelState
from rlscore.storage import Event, UnknownProjectError


@pytest.fixture
def store(tmp_path):
    s = moons_store(tmp_path)
    yield s
    s.close()


# -- the minimum dwell ----------------------------------------------------------------------
def test_min_dwell_setting(monkeypatch):
    monkeypatch.delenv(dwell.MIN_DWELL_ENV, raising=False)
    assert min_dwell_seconds() == dwell.DEFAULT_MIN_DWELL_MS / 1000
    assert 0.15 <= min_dwell_seconds() <= 0.25  # the reaction-time range the docstring cites
    monkeypatch.setenv(dwell.MIN_DWELL_ENV, "350")
    assert min_dwell_seconds() == pytest.approx(0.35)
    monkeypatch.setenv(dwell.MIN_DWELL_ENV, "0")
    assert min_dwell_seconds() == 0.0
    for bad in ("fast", "-5", "nan"):
        monkeypatch.setenv(dwell.MIN_DWELL_ENV, bad)
        assert min_dwell_seconds() == dwell.DEFAULT_MIN_DWELL_MS / 1000


def test_check_dwell_boundary():
    check_dwell(3, None, 0.2, now=5.0)  # unknown draw time: no rule
    # exactly the minimum: allowed (binary fractions: 5.0 − 4.75 is 0.25 to the bit, where
    # 5.0 − 4.8 is 0.20000000000000018, above 0.2, and would not test the boundary)
    check_dwell(3, 4.75, 0.25, now=5.0)
    with pytest.raises(TooSoonError) as err:
        check_dwell(3, 4.94, 0.2, now=5.0)
    assert err.value.point == 3
    assert err.value.dwell == pytest.approx(0.06)
    assert "60 ms" in str(err.value) and "200 ms" in str(err.value)


@pytest.mark.parametrize("kind", ["label", "skip"])
def test_session_refuses_an_action_too_soon_after_the_point_was_shown(store, monkeypatch, kind):
    monkeypatch.setenv(dwell.MIN_DWELL_ENV, "200")
    s = session(store, annotator="ada")
    q = s.query()[0]
    shown_at = time.monotonic()  # drawn just now: any call made here is under 200 ms later

    def act(at):
        if kind == "label":
            return s.label(q, 1, seen=s.last_event_id, shown_at=at)
        return s.skip(q, seen=s.last_event_id, shown_at=at)

    with pytest.raises(TooSoonError) as err:
        act(shown_at)
    assert err.value.point == q and err.value.dwell < 0.2
    assert list(store.events("moons")) == []  # nothing written
    assert s.labels == {} and s.skipped == set()
    act(shown_at - 0.25)  # on screen for 250 ms (plus the time since): accepted
    (event,) = store.events("moons")
    assert (event.kind, event.point) == (kind, q)


def test_session_refuses_an_action_bound_to_a_deleted_or_recreated_project(store):
    s = session(store, annotator="ada")
    uid = s.project.uid
    q = s.query()[0]
    with pytest.raises(UnknownProjectError):
        s.label(q, 1, project_uid=uid + 1000)  # a button of another project
    assert list(store.events("moons")) == []
    store.delete_project("moons")
    store.create_project(moons_subset())  # same name, new uid
    assert store.project_uid("moons") != uid
    with pytest.raises(UnknownProjectError):
        s.label(q, 1, project_uid=uid)
    with pytest.raises(UnknownProjectError):
        s.skip(q, project_uid=uid)
    assert list(store.events("moons")) == []  # nothing landed in the new project


# -- the panel state ------------------------------------------------------------------------
def test_panel_state_of_the_query(store):
    s = session(store, annotator="ada")
    for i, y in [(0, -1), (5, 1), (9, -1)]:
        s.label(i, y, annotator="bob")
    state = QueryPanelState.for_annotator(s, "ada", budget=0)
    q, score = s.query(annotator="ada")  # the same claim: ada's own query again
    assert state.target == q and not state.picked and not state.waiting
    assert state.score == pytest.approx(score)
    assert state.predicted == s.engine.predict()[q]
    assert type(state.predicted) in (int, float, str)  # a plain scalar
    assert state.confidence == pytest.approx(float(np.max(s.engine.predict_proba()[q])))
    assert state.label_shown is None and state.can_skip
    assert state.classes == [-1, 1] and state.class_texts == ["-1", "1"]
    assert (state.n_labeled, state.goal, state.own_labels) == (3, s.project.n, 0)
    assert state.progress == {"bob": 3}
    assert state.undo_target is None  # bob's labels are not ada's to undo
    assert (state.project, state.project_uid, state.seen) == ("moons", s.project.uid, 3)
    bob = QueryPanelState.for_annotator(s, "bob", budget=0)
    assert bob.target != q  # ada holds q
    assert bob.undo_target == s.last_action("bob").id


def test_panel_state_of_a_point_picked_in_the_plot(store):
    s = session(store, annotator="ada")
    s.label(4, 1)
    picked = QueryPanelState.for_annotator(s, "ada", selected=4)
    assert picked.target == 4 and picked.picked
    assert picked.label_shown == 1 and picked.score is None and not picked.can_skip
    assert picked.class_disabled(1) and not picked.class_disabled(-1)
    open_point = QueryPanelState.for_annotator(s, "ada", selected=7)
    assert open_point.score == pytest.approx(float(s.engine.scores()[7]))
    outside = QueryPanelState.for_annotator(s, "ada", selected=s.project.n)
    assert not outside.picked  # a stale pick outside the pool falls back to the query


def test_panel_state_when_the_budget_is_reached(store):
    s = session(store, annotator="ada")
    s.label(0, -1)
    s.label(1, 1)
    state = QueryPanelState.for_annotator(s, "ada", budget=2)
    assert state.target is None and state.budget_reached and state.goal == 2
    assert not state.can_skip


def test_a_point_waiting_for_my_own_label_is_shown_blind_in_panel_and_plot(store):
    s = session(store, annotator="ada", overlap=2)
    q = s.query(annotator="bob")[0]
    s.label(q, 1, annotator="bob")
    assert q in s.overlap_queue("ada")
    state = QueryPanelState.for_annotator(s, "ada")
    assert state.target == q and state.waiting and state.blind
    assert state.predicted is None and state.confidence is None and state.label_shown is None
    assert state.can_skip and not state.class_disabled(1)
    plot = PoolPlotState.for_annotator(s, "ada")
    assert plot.query == q and q not in plot.labels and np.isnan(plot.confidence[q])
    other = np.delete(np.arange(s.project.n), q)
    np.testing.assert_allclose(
        plot.confidence[other], np.max(s.engine.predict_proba(), axis=1)[other]
    )


def test_learner_figures_validation_error_recounted_and_none_before_a_label(store):
    s = session(store, annotator="ada")
    empty = LearnerFigures.of(s)
    assert empty.validation is None and empty.balanced_validation is None  # no label yet
    assert empty.has_truth and empty.n_labeled == 0
    truth = s.project.truth
    for i in (0, 3, 50, 80):
        s.label(i, int(truth[i]))
    s.skip(11)
    fig = LearnerFigures.of(s)
    unlabeled = np.setdiff1d(np.arange(s.project.n), [0, 3, 50, 80])
    predicted = np.asarray(s.engine.predict())
    assert fig.validation == pytest.approx(np.mean(predicted[unlabeled] != truth[unlabeled]))
    per_class = [
        np.mean(predicted[unlabeled][truth[unlabeled] == c] != c) for c in np.unique(truth)
    ]
    assert fig.balanced_validation == pytest.approx(np.mean(per_class))
    assert (fig.n_labeled, fig.n_skipped, fig.n) == (4, 1, s.project.n)
    assert fig.risk_history == s.risk_history and len(fig.risk_history) == 5


def test_panel_state_follows_events_written_by_another_process(store):
    s = session(store, annotator="ada")
    q = QueryPanelState.for_annotator(s, "ada").target
    store.append_event("moons", Event("label", point=q, label=1, annotator="bob"))
    s.sync()
    state = QueryPanelState.for_annotator(s, "ada")
    assert state.target != q and state.seen == s.last_event_id and state.n_labeled == 1
