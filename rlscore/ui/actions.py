"""The Label page's actions — label, skip, undo, relabel — bound to what was on screen.

Each button is created with the point it shows and ``seen``, the newest event id of the log
when the page was drawn, both in its arguments *and in its widget key*. Streamlit runs a
button's callback with the arguments registered under the clicked widget's key; a stable key
(``label_0``) would therefore apply a click made on the old page to the point of the newer
page. With the point and version in the key, a click from the old page either finds no
callback (the old button is gone: dropped) or runs with the old point and version, which the
session refuses if that point changed since (:class:`~rlscore.storage.StaleActionError`). So
one press is one action, on the point that was shown.

A refused action is never silent: a repeated press of the same annotator is reported as
ignored; another annotator's newer label is shown with a choice, "relabel anyway" (a new label
whose ``seen`` is that annotator's event) or "keep theirs".
"""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from rlscore.sessions.undo import undo_last
from rlscore.storage import StaleActionError
from rlscore.ui.errors import user_message
from rlscore.ui.flash import flash
from rlscore.ui.refresh import request_page_run
from rlscore.ui.store import SessionHandle, get_store
from rlscore.ui.text import md_text
from rlscore.viz.figures import clicked_index

_CONFLICT = "conflict"
_SHOWN = "shown"


def widget_key(kind: str, point: int | None, seen: int, extra: Any = "") -> str:
    """The key of a button acting on ``point`` as shown at log version ``seen``."""
    return f"{kind}_{extra}_{point}_{seen}"


def mark_shown(project: str, point: int) -> None:
    """Remember when ``point`` was first put on screen in this tab (for seconds spent)."""
    shown = st.session_state.get(_SHOWN)
    if not shown or shown[0] != (project, point):
        st.session_state[_SHOWN] = ((project, point), time.monotonic())


def _seconds_on(project: str, point: int) -> float | None:
    shown = st.session_state.get(_SHOWN)
    if shown and shown[0] == (project, point):
        return round(time.monotonic() - shown[1], 3)
    return None


def _class_text(handle: SessionHandle, label) -> str:
    names = (handle.session.project.meta or {}).get("class_names") or {}
    return names.get(str(label)) or str(label)


def _refused(handle: SessionHandle, exc: StaleActionError, annotator: str, label) -> None:
    """Report a stale action: a repeated press of one's own, or another annotator's change."""
    newest = exc.events[-1]
    point = f"#{exc.point}"
    if newest.annotator == annotator:
        flash(
            "info",
            f"Ignored a repeated action on point {point}: you "
            f"{'labeled' if newest.kind == 'label' else 'changed'} it a moment ago.",
        )
        return
    who = md_text(newest.annotator or "another annotator")
    if newest.kind == "label":
        done = f"labeled it **{md_text(_class_text(handle, newest.label))}**"
    elif newest.kind == "skip":
        done = "skipped it"
    else:
        done = "undid a label on it"
    st.session_state[_CONFLICT] = {
        "point": exc.point,
        "label": label,
        "text": f"Not saved: {who} {done} after point {point} was shown to you.",
        "newest": exc.newest_id,
    }


def _run(handle: SessionHandle, annotator: str, action, label=None) -> None:
    st.session_state.pop(_CONFLICT, None)
    with handle.lock:
        try:
            action()
        except StaleActionError as exc:
            _refused(handle, exc, annotator, label)
        except Exception as exc:  # shown, never raised into the page
            flash("warning", f"Not saved: {user_message(exc)}")
    st.session_state.pop("selected", None)


def label(handle: SessionHandle, annotator: str, point: int, value, seen: int) -> None:
    """Callback: label ``point`` as ``value``, as shown at version ``seen``."""
    s = handle.session
    seconds = _seconds_on(s.project_name, point)
    _run(
        handle,
        annotator,
        lambda: s.label(point, value, seconds=seconds, annotator=annotator, seen=seen),
        value,
    )


def skip(handle: SessionHandle, annotator: str, point: int, seen: int) -> None:
    """Callback: skip ``point``, as shown at version ``seen``."""
    _run(handle, annotator, lambda: handle.session.skip(point, annotator, seen=seen))


def undo(handle: SessionHandle, annotator: str, expected: int) -> None:
    """Callback: revert the annotator's own last action, if it is still event ``expected``."""

    def run():
        reverted = handle.session.undo(annotator, expected=expected)
        if reverted is not None:
            what = "label" if reverted.kind == "label" else "skip"
            flash("success", f"Undone: your {what} of point #{reverted.point}.")

    _run(handle, annotator, run)


def recent_key(event_id: int) -> str:
    """Key of the "recent labels" row of label event ``event_id`` (a relabel makes a new row)."""
    return f"recent_{event_id}"


def relabel_recent(
    handle: SessionHandle, annotator: str, event_id: int, point: int, shown, seen: int
) -> None:
    """Callback of the "recent labels" list: relabel ``point`` (shown labeled ``shown``) with
    the value chosen there."""
    value = st.session_state.get(recent_key(event_id))
    if value is None or value == shown:  # cleared, or the label it has: nothing to change
        return
    label(handle, annotator, point, value, seen)
    request_page_run()


def auto_label(handle: SessionHandle, n: int, budget: int) -> None:
    """Callback: label the next ``n`` queries with the ground truth (a demo oracle)."""

    def run():
        done = handle.session.auto_label(n, budget=budget)
        flash("success", f"Auto-labeled {done} points with the truth.")

    _run(handle, "oracle", run)
    request_page_run()


def select_point(chart_key: str) -> None:
    """Callback of the pool plot: show the clicked point instead of the query."""
    state = st.session_state.get(chart_key)
    points = state["selection"]["points"] if state else []
    i = clicked_index(points[0]) if points else None
    if i is not None:
        # A new chart key drops plotly's own selection, which would dim the other points.
        # Only here: an unchanged key lets the browser update the chart in place (fast).
        st.session_state["plot_gen"] = st.session_state.get("plot_gen", 0) + 1
        st.session_state["selected"] = i
        request_page_run()


def deselect() -> None:
    """Callback: back from a point picked in the plot to the query."""
    st.session_state.pop("selected", None)


def undo_without_session(project: str, annotator: str) -> None:
    """Callback: revert the annotator's last action straight in the store (when no session
    can be built, e.g. the learner fails on the current labels)."""
    try:
        reverted = undo_last(get_store(), project, annotator=annotator)
    except Exception as exc:
        flash("warning", f"Nothing undone: {user_message(exc)}")
        return
    if reverted is not None:
        flash("success", f"Undone: your last action, on point #{reverted.point}.")


def pending_conflict() -> dict | None:
    """The refused action waiting for the annotator's decision, if any."""
    return st.session_state.get(_CONFLICT)


def relabel_anyway(handle: SessionHandle, annotator: str) -> None:
    """Callback: the annotator confirms their label over the other annotator's."""
    c = st.session_state.pop(_CONFLICT, None)
    if c is not None:
        label(handle, annotator, c["point"], c["label"], c["newest"])


def keep_theirs() -> None:
    """Callback: the annotator keeps the other annotator's label."""
    st.session_state.pop(_CONFLICT, None)


__all__ = [
    "auto_label",
    "deselect",
    "keep_theirs",
    "label",
    "mark_shown",
    "pending_conflict",
    "relabel_anyway",
    "recent_key",
    "relabel_recent",
    "select_point",
    "skip",
    "undo",
    "undo_without_session",
    "widget_key",
]
