"""A teammate's label of the point on your screen is said beside your next point, and only then
(explore-perm finding 8).

ann's Label page showed point #71; rev labeled #71 from Python; the teammates' poll redrew
ann's page with #94 and no notice, and a press 0.3 s later was saved on #94. The decision "was
the point taken by a teammate" is read from the log between the two views
(:mod:`rlscore.sessions.views.taken_point`, tested on event logs first); the Label page asks it
before its query panel draws (:func:`rlscore.ui.label.teammates.note_taken_point`, called here
as the panel calls it, on the app's shared session, with the teammate's events written by a
session of their own on the same store).
"""

from __future__ import annotations

import re
import time

import pytest
import streamlit as st
from support.sessions import moons_subset, session

from rlscore.sessions.views.label_page import QueryPanelState
from rlscore.sessions.views.taken_point import taken_by, taken_text
from rlscore.storage import Event
from rlscore.ui.label import actions, teammates
from rlscore.ui.shell.flash import flash
from rlscore.ui.shell.store import SessionHandle

ANN, REV = "ann", "rev"


def ev(kind: str, point: int | None, who: str, eid: int, target: int | None = None) -> Event:
    label = 1 if kind in ("label", "review") else None
    return Event(kind, point, label, who, timestamp=1000.0, id=eid, target=target)


# -- the decision, on event logs ---------------------------------------------------------------
@pytest.mark.parametrize("kind", ["label", "skip", "review"])
def test_a_teammate_label_skip_or_review_of_the_point_took_it(kind):
    log = [ev("label", 3, REV, 10), ev(kind, 71, REV, 11), ev("label", 71, "cy", 12)]
    assert taken_by(71, ANN, log) == log[1]  # the first that took it


@pytest.mark.parametrize(
    "log",
    [
        [ev("label", 71, ANN, 11)],  # the viewer's own label (this tab's press)
        [ev("skip", 71, ANN, 11)],
        [ev("label", 71, REV, 11), ev("label", 5, ANN, 12)],  # and one of theirs elsewhere
        [ev("undo", None, ANN, 12, target=9)],  # the viewer's undo brings a point back
        [ev("label", 71, REV, 11), ev("label", 71, " ann ", 12)],  # the same user, spelled apart
        [ev("label", 5, REV, 11), ev("skip", 6, "cy", 12)],  # teammates elsewhere only
        [ev("label", 71, REV, 11), ev("undo", None, REV, 12, target=11)],  # undone since
        [],  # nothing in the log: settings, the budget or the stop rule changed the point
    ],
)
def test_the_point_was_not_taken_by_a_teammate(log):
    assert taken_by(71, ANN, log) is None


def test_the_words_name_no_one_and_give_no_label():
    text = taken_text(ev("label", 71, "rev@example.org", 11), 71, True, now=1003.0)
    assert text == (
        "A teammate labeled point #71 (3 s ago) after it was shown here; here is your next point."
    )
    text = taken_text(ev("skip", 71, REV, 11), 71, False, now=1000.0)
    assert text == "A teammate skipped point #71 (0 s ago) after it was shown here."
    text = taken_text(ev("review", 71, REV, 11), 71, True, now=1000.0)
    assert text.startswith("A teammate decided the final label of point #71 (")
    unknown = Event("label", 71, 1, REV, id=11)  # no commit time: no age said
    assert taken_text(unknown, 71, True) == (
        "A teammate labeled point #71 after it was shown here; here is your next point."
    )


# -- the Label page's query panel, run after run --------------------------------------------------


def app_handle(moons_sqlite, overlap: int = 1, project: str = "moons") -> SessionHandle:
    """The app's session: opened unchecked, each action names its user."""
    return SessionHandle(
        session(moons_sqlite, project=project, checked=False, snapshots=False, overlap=overlap)
    )


def draw(handle: SessionHandle, selected: int | None = None, budget: int = 0):
    """One run of ann's query panel (as ``query_panel.shown_state`` runs it); returns the
    panel's state and the notice queued for it (None: none), shown and forgotten as the
    panel shows it with its point."""
    with handle.lock:
        handle.session.sync()
        state = QueryPanelState.for_annotator(handle.session, ANN, budget, selected)
        teammates.note_taken_point(handle.session, ANN, state)
    message = st.session_state.pop("flash", None)
    return state, None if message is None else message[:2]


def teammate(moons_sqlite, project: str = "moons"):
    return session(moons_sqlite, project=project, annotator=REV, snapshots=False)


TAKEN = (
    r"A teammate labeled point #{} \(\d+ s ago\) after it was shown here; here is your next point\."
)


def test_a_teammate_label_of_the_point_on_screen_is_said_beside_the_next_point(
    moons_sqlite, moons_tab
):
    handle = app_handle(moons_sqlite)
    first, notice = draw(handle)
    assert notice is None
    teammate(moons_sqlite).label(first.target, 1)  # rev labels ann's point, from Python
    state, notice = draw(handle)  # the run the teammates' poll asks for
    assert state.target not in (None, first.target)
    kind, text = notice
    assert kind == "info" and re.fullmatch(TAKEN.format(first.target), text), text
    assert REV not in text and "**" not in text  # neither who nor the label
    assert draw(handle) == (state, None)  # said once: a redraw of the same point adds none


def test_no_notice_after_the_annotators_own_label_skip_or_undo(moons_sqlite, moons_tab):
    handle = app_handle(moons_sqlite)
    s = handle.session
    state, _ = draw(handle)
    s.label(state.target, 1, annotator=ANN, seen=state.seen)
    state, notice = draw(handle)
    assert notice is None
    s.skip(state.target, ANN, seen=state.seen)
    state, notice = draw(handle)
    assert notice is None
    teammate(moons_sqlite).label(state.target, -1)  # a teammate's label among the events, but…
    s.undo(ANN)  # …ann's undo changes the point: her point comes back
    back, notice = draw(handle)
    assert back.target != state.target and notice is None


def test_a_press_refused_because_the_teammate_was_first_keeps_its_own_notice(
    moons_sqlite, moons_tab
):
    handle = app_handle(moons_sqlite)
    state, _ = draw(handle)
    shown = actions.ShownPoint(
        "moons", state.project_uid, state.target, state.seen, time.monotonic() - 1
    )
    teammate(moons_sqlite).label(state.target, 1)
    actions.label(handle, ANN, shown, -1)  # the press reached the server before the redraw
    said = actions.pending_conflict()["text"]
    assert said.startswith("Not saved: ") and said.endswith(f"#{state.target} was shown here.")
    after, notice = draw(handle)
    assert after.target != state.target and notice is None


def test_a_notice_of_the_tabs_own_action_is_not_replaced(moons_sqlite, moons_tab):
    handle = app_handle(moons_sqlite)
    state, _ = draw(handle)
    teammate(moons_sqlite).label(state.target, 1)
    flash("info", "Press ignored: …")  # this run's press, answered first
    after, notice = draw(handle)
    assert after.target != state.target and notice == ("info", "Press ignored: …")


def test_no_notice_when_the_point_changed_for_another_reason(moons_sqlite, moons_tab):
    moons_sqlite.create_project(moons_subset("moons2"))
    handle = app_handle(moons_sqlite)
    state, _ = draw(handle)
    teammate(moons_sqlite).label(state.target, 1)
    picked = (state.target + 1) % state.n
    after, notice = draw(handle, selected=picked)  # ann picked a point in the plot
    assert after.target == picked and notice is None
    back, notice = draw(handle)  # and went back to the query
    assert back.target != picked and notice is None
    for project in ("moons", "moons2"):  # the point's number taken in both projects…
        teammate(moons_sqlite, project).label(back.target, -1)
    other = app_handle(moons_sqlite, project="moons2").session  # …and ann switched project
    state = QueryPanelState.for_annotator(other, ANN)
    teammates.note_taken_point(other, ANN, state)
    assert state.target != back.target and st.session_state.get("flash") is None
    state, _ = draw(handle)
    teammate(moons_sqlite).label((state.target + 1) % state.n, 1)  # a teammate's label elsewhere…
    done, notice = draw(handle, budget=len(handle.session.labels))  # …reaches ann's budget
    assert done.target is None and notice is None


def test_a_point_waiting_for_the_annotators_blind_label_stays_without_a_notice(
    moons_sqlite, moons_tab
):
    handle = app_handle(moons_sqlite, overlap=2)
    state, _ = draw(handle)
    teammate(moons_sqlite).label(state.target, 1)
    after, notice = draw(handle)  # two labels per point: the point waits for ann's own
    assert after.target == state.target and after.waiting and notice is None
