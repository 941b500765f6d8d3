"""The Label page's callbacks (rlscore.ui.label.actions) called directly, as Streamlit calls them:
every notice says what the store holds (issue 27, item 3), and an action bound to a point
is applied only to that point's project, after the minimum dwell (items 1–2).

Streamlit's ``st.session_state`` works outside a script run (bare mode); a second browser tab
is a second ``session_state``, emulated by swapping its content.
"""

from __future__ import annotations

import re
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
def tab(blank_tab):
    return blank_tab


def notice() -> tuple[str, str] | None:
    message = st.session_state.get("flash")
    return None if message is None else message[:2]


def labels(store) -> list[tuple]:
    return [(e.point, e.label, e.annotator) for e in store.events("moons") if e.kind == "label"]


def shown_now(s, point: int, ago: float = 1.0) -> actions.ShownPoint:
    return actions.ShownPoint(
        "moons", s.project.uid, point, s.last_event_id, time.monotonic() - ago
    )


def test_one_press_delivered_twice_says_saved_once_and_nothing_more(store, tab):
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    q = handle.session.query(annotator="ada")[0]
    shown = shown_now(handle.session, q)
    actions.label(handle, "ada", shown, 1)
    assert notice() == ("success", f"Saved: point #{q} labeled **1**.")
    assert labels(store) == [(q, 1, "ada")]
    actions.label(handle, "ada", shown, 1)  # the same press delivered a second time
    # the outcome, as for one press: one label saved. Streamlit may run one click's callback
    # twice, so neither "a second press" nor "ignored" is said (issue 34, item 3)
    assert notice() == ("success", f"Saved: point #{q} labeled **1**.")
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
    # what the store holds: ada's label, saved; no tab is named (the server cannot tell a
    # second tab from this tab whose session restarted)
    kind, text = notice()
    assert kind == "success" and text.startswith(f"Saved: point #{q} labeled **1** (by you, ")
    assert "another tab" not in text and labels(store) == [(q, 1, "ada")]
    actions.label(handle, "ada", shown, -1)  # a different label: offered as a relabel
    conflict = actions.pending_conflict()
    assert conflict is not None and conflict["label"] == -1
    assert re.search(r"you labeled it \*\*1\*\* \(\d+ s ago\) after", conflict["text"])
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


def test_a_repeat_after_a_teammate_relabeled_says_both_saved_events(store, tab):
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    q = handle.session.query(annotator="ada")[0]
    shown = shown_now(handle.session, q)
    actions.label(handle, "ada", shown, 1)
    handle.session.label(q, -1, annotator="bob")  # a teammate relabels it after ada's label
    actions.label(handle, "ada", shown, 1)  # ada's click delivered a second time
    kind, text = notice()
    assert kind == "success"
    assert text == f"Saved: point #{q} labeled **1**. Then bob labeled it **{md_text('-1')}**."
    assert labels(store) == [(q, 1, "ada"), (q, -1, "bob")]


def test_the_dwell_counts_from_the_render_and_from_a_reported_paint(store, tab, monkeypatch):
    monkeypatch.setenv(dwell.MIN_DWELL_ENV, "200")
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    s = handle.session
    q = s.query(annotator="ada")[0]
    shown = actions.mark_shown("moons", s.project.uid, q, s.last_event_id)
    # rendered just now, no paint reported: the render's count refuses it
    actions.label(handle, "ada", shown, 1)
    kind, text = notice()
    assert kind == "info" and text.startswith(f"Press ignored: point #{q} had been on screen")
    assert labels(store) == []
    # rendered 5 s ago and a paint reported just now: the report's count refuses it
    tab["shown"] = (tab["shown"][0], time.monotonic() - 5)
    shown = actions.mark_shown("moons", s.project.uid, q, s.last_event_id)
    actions.note_painted(shown)
    actions.label(handle, "ada", shown, 1)
    kind, text = notice()
    assert kind == "info" and text.startswith(f"Press ignored: point #{q} had been on screen")
    assert labels(store) == []
    # a report for another point neither replaces this point's nor counts for it
    other = actions.ShownPoint("moons", s.project.uid, q + 1, s.last_event_id, 0.0, True)
    actions.note_painted(other)
    assert tab["painted_point"][0] == ("moons", s.project.uid, q)
    # reported 0.3 s ago: saved
    tab["painted_point"] = (tab["painted_point"][0], time.monotonic() - 0.3)
    actions.label(handle, "ada", shown, 1)
    assert notice() == ("success", f"Saved: point #{q} labeled **1**.")
    assert labels(store) == [(q, 1, "ada")]


def test_without_a_paint_report_the_dwell_counts_from_the_render(store, tab, monkeypatch):
    # a page without the key script never reports a paint: it is held to the render's count
    # only, never refused for the missing report
    monkeypatch.setenv(dwell.MIN_DWELL_ENV, "200")
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    s = handle.session
    q = s.query(annotator="ada")[0]
    actions.mark_shown("moons", s.project.uid, q, s.last_event_id)
    tab["shown"] = (tab["shown"][0], time.monotonic() - 0.3)
    shown = actions.mark_shown("moons", s.project.uid, q, s.last_event_id)
    actions.label(handle, "ada", shown, 1)
    assert notice() == ("success", f"Saved: point #{q} labeled **1**.")
    assert labels(store) == [(q, 1, "ada")]


def test_a_press_delivered_again_after_the_next_point_was_drawn_says_saved(store, tab, monkeypatch):
    # a double click whose second press runs after the first one's run drew the next point
    # (whose paint is not reported yet): the press on the old point is told what the store
    # holds, not "ignored" for a missing paint report (issue 34, item 3)
    monkeypatch.setenv(dwell.MIN_DWELL_ENV, "200")
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    s = handle.session
    q = s.query(annotator="ada")[0]
    actions.mark_shown("moons", s.project.uid, q, s.last_event_id)
    tab["shown"] = (tab["shown"][0], time.monotonic() - 1)
    shown = actions.mark_shown("moons", s.project.uid, q, s.last_event_id)
    actions.note_painted(shown)
    tab["painted_point"] = (tab["painted_point"][0], time.monotonic() - 0.5)
    actions.label(handle, "ada", shown, 1)
    assert notice() == ("success", f"Saved: point #{q} labeled **1**.")
    q1 = s.query(annotator="ada")[0]
    assert q1 != q
    actions.mark_shown("moons", s.project.uid, q1, s.last_event_id)  # the next point drawn
    actions.label(handle, "ada", shown, 1)  # the second press, bound to q
    assert notice() == ("success", f"Saved: point #{q} labeled **1**.")
    assert labels(store) == [(q, 1, "ada")]


def test_every_label_or_skip_press_is_counted_as_taken_applied_or_refused(store, tab, monkeypatch):
    """The panel's marker carries this count; the page's script reads a press as answered
    only once it rises (rlscore.ui.label.keys), so a press the server never took is named
    at an outage, and a press it refused is not."""
    monkeypatch.setenv(dwell.MIN_DWELL_ENV, "200")
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    assert actions.presses_taken() == 0
    q = handle.session.query(annotator="ada")[0]
    actions.label(handle, "ada", shown_now(handle.session, q), 1)
    assert labels(store) == [(q, 1, "ada")] and actions.presses_taken() == 1
    nxt = handle.session.query(annotator="ada")[0]
    actions.skip(handle, "ada", shown_now(handle.session, nxt, ago=0.0))  # inside the dwell
    assert notice()[0] == "info" and actions.presses_taken() == 2  # refused, and taken
    tab["project"] = "another"
    actions.label(handle, "ada", shown_now(handle.session, nxt), 0)  # bound elsewhere
    assert labels(store) == [(q, 1, "ada")] and actions.presses_taken() == 3
    actions.undo(handle, "ada", handle.session.last_event_id)  # not a label or skip press
    assert actions.presses_taken() == 3


def test_one_undo_press_delivered_twice_says_undone_both_times(store, tab):
    # a tester's single Undo key press: the label was undone, and the page said "Not saved:
    # nothing undone … (Undo pressed twice?)" — the press's second callback run
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    q = handle.session.query(annotator="ada")[0]
    actions.label(handle, "ada", shown_now(handle.session, q), 1)
    eid = store.events("moons")[-1].id
    actions.undo(handle, "ada", eid)
    assert notice() == ("success", f"Undone: your label of point #{q}.")
    actions.undo(handle, "ada", eid)  # the same press delivered a second time
    assert notice() == ("success", f"Undone: your label of point #{q}.")
    assert [e.kind for e in store.events("moons")] == ["label", "undo"]
    # a stale press from another tab (it never undid that event) still hears the truth
    tab.clear()
    tab["project"] = "moons"
    actions.undo(handle, "ada", eid)
    kind, text = notice()
    assert kind == "warning" and "nothing" in text
    assert [e.kind for e in store.events("moons")] == ["label", "undo"]


def test_a_press_for_a_point_the_tab_no_longer_shows_is_not_applied(store, tab):
    # a tester's one key press labeled point 29 — replaced by point 9 on an Undo, its button
    # still in the page while the run drew point 9 — and point 9
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    s = handle.session
    old = actions.mark_shown("moons", s.project.uid, 29, s.last_event_id)
    new = actions.mark_shown("moons", s.project.uid, 9, s.last_event_id)  # now on screen
    actions.label(handle, "bob", old, 1)
    kind, text = notice()
    assert kind == "warning" and "point #29, which this tab no longer shows" in text
    assert labels(store) == []
    actions.skip(handle, "bob", old)
    assert notice()[0] == "warning" and [e.kind for e in store.events("moons")] == []
    actions.label(handle, "bob", new, 1)
    assert notice() == ("success", "Saved: point #9 labeled **1**.")
    # the same press run again after the tab moved on: still "saved", as before
    actions.mark_shown("moons", s.project.uid, 30, s.last_event_id)
    actions.label(handle, "bob", new, 1)
    assert notice() == ("success", "Saved: point #9 labeled **1**.")
    assert labels(store) == [(9, 1, "bob")]


def test_undo_of_a_review_decision_says_so(store, tab):
    # a reviewer's decision is their last action: Undo on the Label page reverts it, and
    # said "Undone: your skip" (an exploratory test)
    from rlscore.sessions.actions.review import review_point

    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    q = handle.session.query(annotator="rex")[0]
    review_point(store, "moons", q, 1, reviewer="rex")
    eid = store.events("moons")[-1].id
    actions.undo(handle, "rex", eid)
    assert notice() == ("success", f"Undone: your review decision of point #{q}.")
    assert [e.kind for e in store.events("moons")] == ["review", "undo"]
