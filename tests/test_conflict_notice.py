"""The notice of a press refused because a teammate acted first names the teammate and their
label only to whom may read who labeled what, and never on a point shown blind.

A tester (four times): bob, an annotator, pressed a class on a point alice had labeled since
it was drawn and read "Not saved: alice@example.org labeled it **1** (0 s ago) after point #40
was shown here." — a teammate's name, which an annotator never sees, and with two annotators
per point the label bob was to give blind. Each test goes through the real refusal: the Label
page's callback (:mod:`rlscore.ui.label.actions`, called as Streamlit calls it) on the app's
shared session, the teammate's label written by a session of their own on the same store, so
the store refuses the stale press.
"""

from __future__ import annotations

import time

import pytest
import streamlit as st
from support.sessions import session

from rlscore.sessions.team.permissions import add_member
from rlscore.sessions.views.conflict_notice import blind_to, told_event
from rlscore.ui.label import actions
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import SessionHandle

ALICE, RITA, BOB = "alice@example.org", "rita@example.org", "bob@example.org"


def team(moons_sqlite) -> None:
    """alice owns the project, rita reviews, bob annotates (as signed-in users)."""
    add_member(moons_sqlite, "moons", ALICE, "owner", None)
    add_member(moons_sqlite, "moons", RITA, "reviewer", ALICE)
    add_member(moons_sqlite, "moons", BOB, "annotator", ALICE)


def app_handle(moons_sqlite, overlap: int = 1) -> SessionHandle:
    """The app's session: opened unchecked, each action names its user."""
    return SessionHandle(session(moons_sqlite, checked=False, snapshots=False, overlap=overlap))


def shown(s, point: int) -> actions.ShownPoint:
    return actions.ShownPoint("moons", s.project.uid, point, s.last_event_id, time.monotonic() - 1)


def refusal(handle: SessionHandle, viewer: str, point_shown: actions.ShownPoint, value) -> str:
    """The text the viewer's tab shows for a press the store refuses as stale."""
    before = len(list(handle.session.store.events("moons")))
    actions.label(handle, viewer, point_shown, value)
    assert len(list(handle.session.store.events("moons"))) == before  # nothing written
    conflict = actions.pending_conflict()
    assert conflict is not None
    return conflict["text"]


def test_an_annotator_is_told_a_teammate_acted_never_who_nor_the_label(moons_sqlite, moons_tab):
    team(moons_sqlite)
    handle = app_handle(moons_sqlite)
    q = handle.session.query(annotator=BOB)[0]
    on_screen = shown(handle.session, q)  # bob's query, drawn
    session(moons_sqlite, annotator=ALICE, snapshots=False).label(q, 1, annotator=ALICE)
    text = refusal(handle, BOB, on_screen, -1)
    assert text.startswith("Not saved: a teammate labeled it (")
    assert text.endswith(f"after point #{q} was shown here.")
    assert "alice" not in text and "**" not in text  # no name, no label
    # bob's own label delivered again after alice relabeled: saved, then "a teammate"
    moons_tab.clear()
    moons_tab["project"] = "moons"
    r = handle.session.query(annotator=BOB)[0]
    again = shown(handle.session, r)
    actions.label(handle, BOB, again, 1)
    session(moons_sqlite, annotator=ALICE, snapshots=False).label(r, -1, annotator=ALICE)
    actions.label(handle, BOB, again, 1)
    kind, text = st.session_state["flash"][:2]
    assert kind == "success"
    assert text == f"Saved: point #{r} labeled **1**. Then a teammate labeled it."


def test_a_reviewer_is_told_who_and_the_label(moons_sqlite, moons_tab):
    team(moons_sqlite)
    handle = app_handle(moons_sqlite)
    q = handle.session.query(annotator=RITA)[0]
    on_screen = shown(handle.session, q)
    session(moons_sqlite, annotator=ALICE, snapshots=False).label(q, 1, annotator=ALICE)
    text = refusal(handle, RITA, on_screen, -1)
    assert text.startswith(f"Not saved: {md_text(ALICE)} labeled it **1** (")


@pytest.mark.parametrize("viewer", [RITA, BOB])
def test_a_point_to_label_blind_names_no_one_and_says_no_label(moons_sqlite, moons_tab, viewer):
    # two annotators per point: alice labeled the point first, so it waits for the viewer's
    # blind label; alice relabels it while the viewer looks at it
    team(moons_sqlite)
    handle = app_handle(moons_sqlite, overlap=2)
    alice = session(moons_sqlite, annotator=ALICE, snapshots=False, overlap=2)
    p = alice.query(annotator=ALICE)[0]
    alice.label(p, 1, annotator=ALICE)
    handle.session.sync()  # as the viewer's next page run does
    assert handle.session.query(annotator=viewer)[0] == p  # handed to the viewer, blind
    on_screen = shown(handle.session, p)
    alice.label(p, -1, annotator=ALICE)
    text = refusal(handle, viewer, on_screen, 1)
    assert text.startswith("Not saved: a teammate labeled it (")
    assert "alice" not in text and "**" not in text


def test_a_point_that_became_blind_with_the_refusal_says_no_label_in_an_open_project(
    moons_sqlite, moons_tab
):
    # the local mode (no members): names and labels are everyone's read, but not on a point
    # the viewer is to label blind — here it became one with the teammate's label, which the
    # app's session has not read yet when the store refuses the press
    handle = app_handle(moons_sqlite, overlap=2)
    q = handle.session.query(annotator="ada")[0]
    on_screen = shown(handle.session, q)
    session(moons_sqlite, annotator="bob", snapshots=False, overlap=2).label(q, 1, annotator="bob")
    text = refusal(handle, "ada", on_screen, -1)
    assert text.startswith("Not saved: a teammate labeled it (")
    assert "bob" not in text and "**" not in text
    assert blind_to(handle.session, "ada", q)


def test_an_open_project_without_overlap_names_the_teammate_and_the_label(moons_sqlite, moons_tab):
    handle = app_handle(moons_sqlite)
    q = handle.session.query(annotator="ada")[0]
    on_screen = shown(handle.session, q)
    session(moons_sqlite, annotator="bob", snapshots=False).label(q, 1, annotator="bob")
    text = refusal(handle, "ada", on_screen, -1)
    assert text.startswith("Not saved: bob labeled it **1** (")


def test_ones_own_event_is_told_in_full_and_a_review_is_called_a_decision(moons_sqlite):
    team(moons_sqlite)
    s = session(moons_sqlite, checked=False, snapshots=False)
    eid = s.label(3, 1, annotator=BOB.upper())  # the same user, written in another case
    own = told_event(s, BOB, 3, next(e for e in moons_sqlite.events("moons") if e.id == eid))
    assert own.mine and own.label_told and own.label == 1
    rid = s.review(3, -1, reviewer=RITA)
    review = next(e for e in moons_sqlite.events("moons") if e.id == rid)
    assert told_event(s, ALICE, 3, review).who == RITA
    hidden = told_event(s, BOB, 3, review)
    assert (hidden.kind, hidden.who, hidden.label_told) == ("review", None, False)
    assert hidden.label is None
