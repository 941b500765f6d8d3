"""The Label page's callbacks (rlscore.ui.label.actions) called directly, as Streamlit calls them:
every notice says what the store holds (issue 27, item 3), and an action bound to a point
is applied only to that point's project, after the minimum dwell (items 1–2).

Streamlit's ``st.session_state`` works outside a script run (bare mode); a second browser tab
is a second ``session_state``, emulated by swapping its content.
"""

from __future__ import annotations

import time

import pytest
import streamlit as st
from support.sessions import moons_store, moons_subset, session

from rlscore.sessions.actions import dwell
from rlscore.ui.label import actions
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import SessionHandle


@pytest.fixture
def store(tmp_path):
    s = moons_store(tmp_path)
    yield s
    s.close()


@pytest.fixture
def tab():
    """This tab's session state, empty at the start and the end of the test."""
    st.session_state.clear()
    yield st.session_state
    st.session_state.clear()


def notice() -> tuple[str, str] | None:
    message = st.session_state.get("flash")
    return None if message is None else message[:2]


def labels(store) -> list[tuple]:
    return [(e.point, e.label, e.annotator) for e in store.events("moons") if e.kind == "label"]


def shown_now(s, point: int, ago: float = 1.0) -> actions.ShownPoint:
    return actions.ShownPoint(
        "moons", s.project.uid, point, s.last_event_id, time.monotonic() - ago
    )


def test_a_single_press_says_saved_and_a_second_one_says_it_changed_nothing(store, tab):
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    q = handle.session.query(annotator="ada")[0]
    shown = shown_now(handle.session, q)
    actions.label(handle, "ada", shown, 1)
    assert notice() == ("success", f"Saved: point #{q} labeled **1**.")
    assert labels(store) == [(q, 1, "ada")]
    actions.label(handle, "ada", shown, 1)  # the same press delivered a second time
    # the outcome, as for one press: one label saved (and no "ignored" for a single click
    # whose press reached the server twice)
    assert notice() == (
        "success",
        f"Saved: point #{q} labeled **1**. A second press of it changed nothing.",
    )
    assert labels(store) == [(q, 1, "ada")]
    assert actions.pending_conflict() is None


def test_another_tab_of_the_same_annotator_gets_no_false_ignored(store, tab):
    handle = SessionHandle(session(store))
    q = handle.session.query(annotator="ada")[0]
    shown = shown_now(handle.session, q)  # both tabs show q at the same version
    tab["project"] = "moons"
    actions.label(handle, "ada", shown, 1)  # tab A
    tab.clear()  # tab B: its own session state
    tab["project"] = "moons"
    actions.label(handle, "ada", shown, 1)  # the same label: nothing to change
    assert notice() == (
        "info",
        f"Point #{q} is already labeled **1** by you (in another tab); nothing changed.",
    )
    actions.label(handle, "ada", shown, -1)  # a different label: offered as a relabel
    conflict = actions.pending_conflict()
    assert conflict is not None and conflict["label"] == -1
    assert "you (in another tab) labeled it **1**" in conflict["text"]
    assert labels(store) == [(q, 1, "ada")]
    actions.relabel_anyway(handle, "ada")
    assert notice() == ("success", f"Saved: point #{q} labeled **{md_text('-1')}**.")
    assert labels(store) == [(q, 1, "ada"), (q, -1, "ada")]


def test_a_press_inside_the_dwell_is_refused_with_its_measured_time(store, tab, monkeypatch):
    monkeypatch.setenv(dwell.MIN_DWELL_ENV, "200")
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    q = handle.session.query(annotator="ada")[0]
    actions.label(handle, "ada", shown_now(handle.session, q, ago=0.06), 1)
    kind, text = notice()
    assert kind == "info" and text.startswith(f"Press ignored: point #{q} had been on screen")
    measured = int(text.split("for ")[1].split(" ms")[0])
    assert 60 <= measured < 200
    actions.skip(handle, "ada", shown_now(handle.session, q, ago=0.0))
    assert notice()[1].startswith("Press ignored")
    assert list(store.events("moons")) == []


def test_a_press_bound_to_another_or_a_deleted_project_writes_nothing(store, tab):
    handle = SessionHandle(session(store))
    q = handle.session.query(annotator="ada")[0]
    shown = shown_now(handle.session, q)
    tab["project"] = "two_moons"  # the tab switched project under the button
    actions.label(handle, "ada", shown, 1)
    kind, text = notice()
    assert kind == "warning" and "the button was for project moons" in text
    tab["project"] = "moons"
    store.delete_project("moons")
    store.create_project(moons_subset())  # same name, new uid
    actions.label(handle, "ada", shown, 1)
    kind, text = notice()
    assert kind == "warning" and "moons was deleted" in text
    actions.skip(handle, "ada", shown)
    assert "moons was deleted" in notice()[1]
    assert list(store.events("moons")) == []
