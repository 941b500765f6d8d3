"""The Label page's actions — label, skip, undo, relabel — bound to what was on screen.

Each button is created with the point it shows and ``seen``, the newest event id of the log
when the page was drawn, both in its arguments *and in its widget key*. Streamlit runs a
button's callback with the arguments registered under the clicked widget's key; a stable key
(``label_0``) would therefore apply a click made on the old page to the point of the newer
page. With the point and version in the key, a click from the old page runs with the old
point and version (Streamlit still runs the callback of a button a newer run has removed:
seen in a browser test holding the click's message through a teammate's redraw), which the
session refuses if that point changed since (:class:`~rlscore.storage.StaleActionError`). So
one press is one action, on the point that was shown.

Each label and skip also carries the project it was shown from (name and
:attr:`~rlscore.data.projects.project.Project.uid`) and the moment its point was first drawn in the
tab (:class:`ShownPoint`): an action whose project was deleted, re-created or is no longer the
tab's project is refused, and so is one that arrives less than the minimum dwell after its
point appeared (:mod:`rlscore.sessions.actions.dwell`). For the query panel's point the dwell
counts from the later of the server's render and the page's acknowledgement that the point is
painted (:func:`note_painted`, pressed by the page's script, :mod:`rlscore.ui.label.keys`),
both on this server's clock; without an acknowledgement it counts from the render. Nothing is
ever written to another project.

Every outcome says what the store holds: a saved label or skip is reported as saved. A press
refused as stale whose decision is already in the store by the same annotator (one click whose
callback Streamlit ran twice, a double click, or the same decision from another view) is
reported as that saved decision — never as a second press nor as another tab, which the server
cannot tell apart. An annotator's different decision since, or another annotator's, is shown
with how long ago it was made and a choice, "relabel anyway" (a new label whose ``seen`` is
the conflicting event) or "keep"; a refusal always says why. A teammate's decision is named
and its label said only as far as the annotator may be told
(:mod:`rlscore.sessions.views.conflict_notice`): to an annotator it is "a teammate", and on a
point waiting for their own blind label no one is told who labeled it or how. An action that
meets an unreachable label database is refused with that message, and what became of it (not
saved, or looked up once the database is back) is what the outage message says
(:mod:`rlscore.ui.shell.database_status`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from rlscore.core.conventions.counted_words import counted
from rlscore.sessions.actions.dwell import TooSoonError
from rlscore.sessions.actions.undo import REVERTED_ACTION, undo_last
from rlscore.sessions.stopping.stopping_view import stop_rule_fired
from rlscore.sessions.views.conflict_notice import ago, told_event
from rlscore.storage import (
    DatabaseUnavailableError,
    Event,
    StaleActionError,
    UnknownProjectError,
)
from rlscore.ui.label.refresh import request_page_run
from rlscore.ui.label.stopping_panel import STOP_REACHED
from rlscore.ui.shell.database_status import note_saved, note_unavailable, refusal_text
from rlscore.ui.shell.errors import user_message
from rlscore.ui.shell.flash import flash
from rlscore.ui.shell.params import set_project
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import SessionHandle, get_store
from rlscore.viz.figures.pool_points import clicked_index

_CONFLICT = "conflict"
_SHOWN = "shown"
#: (project uid, point, seen) -> (event id, kind, label) of the actions this tab applied
_APPLIED = "applied_actions"
_APPLIED_KEPT = 50
#: (project, uid) this tab's Label page last showed
_SHOWN_PROJECT = "shown_project"
#: ((project, uid, point), time.monotonic()) of the paint acknowledgement of the point shown
_PAINTED = "painted_point"
#: how many label and skip presses this tab's server has taken (their callbacks ran)
_TAKEN = "presses_taken"
#: event id -> what this tab said when it undid it (a second run of one press says it again)
_UNDONE = "undone_events"


@dataclass(frozen=True)
class ShownPoint:
    """A point as one tab showed it: what a label or skip button is bound to.

    Attributes
    ----------
    project, uid
        The project's name and uid when the point was drawn.
    point
        Pool index.
    seen
        Newest event id of the log the view was built from.
    shown_at
        :func:`time.monotonic` when the point was first drawn in this tab (None: no dwell,
        a deliberate change of a label already seen).
    paint_ack
        Whether the page's script acknowledges the point's paint (the query panel's point,
        :func:`note_painted`): then the dwell counts from the later of the render and that
        acknowledgement, once one has arrived.
    """

    project: str
    uid: int | None
    point: int
    seen: int
    shown_at: float | None
    paint_ack: bool = False


def widget_key(kind: str, point: int | None, seen: int, extra: Any = "") -> str:
    """The key of a button acting on ``point`` as shown at log version ``seen``."""
    return f"{kind}_{extra}_{point}_{seen}"


def mark_shown(project: str, uid: int | None, point: int, seen: int) -> ShownPoint:
    """Remember when ``point`` was first put on screen in this tab (the minimum dwell and
    the seconds spent count from then); returns what its buttons are bound to."""
    shown = st.session_state.get(_SHOWN)
    if not shown or shown[0] != (project, uid, point):
        shown = ((project, uid, point), time.monotonic())
        st.session_state[_SHOWN] = shown
        st.session_state.pop(_PAINTED, None)  # the paint of another point says nothing of it
    return ShownPoint(project, uid, int(point), int(seen), shown[1], paint_ack=True)


def paint_key(shown: ShownPoint) -> str:
    """The key of the hidden button the page's script presses once ``shown`` is painted."""
    return f"paint_{shown.uid}_{shown.point}"


def note_painted(shown: ShownPoint) -> None:
    """Callback of the paint acknowledgement: the page's script says the point ``shown`` is
    on screen (:mod:`rlscore.ui.label.keys`). Recorded on this server's clock when it
    arrives, and only for the point this tab shows now (a late acknowledgement of the
    previous point is not one of this point)."""
    current = st.session_state.get(_SHOWN)
    painted = st.session_state.get(_PAINTED)
    what = (shown.project, shown.uid, shown.point)
    if current and current[0] == what and (painted is None or painted[0] != what):
        st.session_state[_PAINTED] = (what, time.monotonic())


def presses_taken() -> int:
    """How many label and skip presses this tab's server has taken, applied or refused: the
    query panel writes it in its marker, so the page's script knows its last press was
    answered (:mod:`rlscore.ui.label.keys`) — or, at an outage, that it never was."""
    return int(st.session_state.get(_TAKEN, 0))


def _take_press() -> None:
    st.session_state[_TAKEN] = presses_taken() + 1


def _dwell_start(shown: ShownPoint) -> float | None:
    """When the minimum dwell of an action on ``shown`` starts, on this server's clock: the
    later of the server's render and the page's paint acknowledgement of the point, if one
    arrived (:func:`note_painted`); the render otherwise. Never earlier than the render, so a
    page that sends no acknowledgement (no script, or a client that withholds it) is held to
    the render's count, and one that reports a paint is held to that report too."""
    painted = st.session_state.get(_PAINTED)
    if shown.shown_at is None or not shown.paint_ack or painted is None:
        return shown.shown_at
    if painted[0] != (shown.project, shown.uid, shown.point):  # another point's paint
        return shown.shown_at
    return max(shown.shown_at, painted[1])


def mark_shown_project(project: str, uid: int | None) -> None:
    """Record that this tab's Label page shows ``project`` (uid ``uid``)."""
    st.session_state[_SHOWN_PROJECT] = (project, uid)


def project_gone_under_tab(uid_of: Callable[[str], int | None]) -> str | None:
    """The project this tab's Label page showed, if it was deleted (or deleted and created
    again) since and the annotator has not chosen a project since (:func:`continue_with`);
    else None. ``uid_of(name)``: a project's uid in the store now (None: no such project).

    The notice holds until that choice: a later run (a teammate's poll, a key press) must not
    turn the fallback project into the one the tab labels.
    """
    shown = st.session_state.get(_SHOWN_PROJECT)
    if shown is None or uid_of(shown[0]) == shown[1]:
        return None
    return shown[0]


def continue_with(project: str) -> None:
    """Callback: the annotator chose ``project`` (in the sidebar, or on the notice that their
    project was deleted): the tab labels it now."""
    st.session_state.pop(_SHOWN_PROJECT, None)
    st.session_state.pop(_SHOWN, None)
    set_project(project)


def _seconds_on(shown: ShownPoint) -> float | None:
    if shown.shown_at is None:
        return None
    return round(time.monotonic() - shown.shown_at, 3)


def _class_text(handle: SessionHandle, label) -> str:
    # a class, or a multi-label project's set as "a | b"
    return md_text(handle.session.project.label_text(label))


def _applied(shown: ShownPoint) -> tuple | None:
    return st.session_state.get(_APPLIED, {}).get((shown.uid, shown.point, shown.seen))


def _record(shown: ShownPoint, event_id: int, kind: str, label=None) -> None:
    applied = st.session_state.setdefault(_APPLIED, {})
    applied[(shown.uid, shown.point, shown.seen)] = (int(event_id), kind, label)
    while len(applied) > _APPLIED_KEPT:
        applied.pop(next(iter(applied)))


def _told_text(handle: SessionHandle, annotator: str, point: int, event: Event) -> str:
    """``event`` on ``point`` in words for ``annotator``, as much as they may be told
    (:func:`~rlscore.sessions.views.conflict_notice.told_event`): "you labeled it **1**",
    "alice@example.org labeled it **1**", or "a teammate labeled it"."""
    told = told_event(handle.session, annotator, point, event)
    who = "you" if told.mine else "a teammate" if told.who is None else md_text(told.who)
    label = f" **{_class_text(handle, told.label)}**" if told.label_told else ""
    if told.kind == "label":
        did = f"labeled it{label}"
    elif told.kind == "review":
        did = f"decided its final label{label}"
    else:
        did = "skipped it" if told.kind == "skip" else "undid a label on it"
    return f"{who or 'someone'} {did}"


def _saved_text(handle: SessionHandle, kind: str, label, point: int) -> str | None:
    """The notice of a saved label or skip of ``point`` (None for another kind)."""
    if kind == "label":
        return f"Saved: point #{point} labeled **{_class_text(handle, label)}**."
    return f"Saved: point #{point} skipped." if kind == "skip" else None


def _stands(exc: StaleActionError, annotator: str, kind: str, label):
    """The annotator's own event among ``exc.events`` that already did what the refused
    action asks (the same label, or a skip), and is not undone; else None."""
    undone = {e.target for e in exc.events if e.kind == "undo"}
    own = [
        e
        for e in exc.events
        if e.annotator == annotator
        and e.kind == kind
        and (kind != "label" or e.label == label)
        and e.id not in undone
    ]
    return own[-1] if own else None


def _refused(
    handle: SessionHandle,
    exc: StaleActionError,
    annotator: str,
    shown: ShownPoint | None,
    label,
    kind: str,
) -> None:
    """Report a stale action by what the store holds: the annotator's own decision already
    saved (the same press delivered twice, a double click, or the same decision from another
    view), or a different decision since, with a choice."""
    newest = exc.events[-1]
    point = f"#{exc.point}"
    # who acted, and how, only as far as the annotator may be told (a teammate's name and
    # label are a reviewer's read, and never said on a point they are to label blind)
    newest_text = _told_text(handle, annotator, exc.point, newest)
    if shown is None:  # not a label or skip of a point shown: nothing to offer
        flash("warning", f"Not saved: {newest_text} after point {point} was shown here.")
        return
    mine = _applied(shown)
    if (own := _stands(exc, annotator, kind, label)) is not None:
        # what the press asks is in the store: that is its outcome. Streamlit can run one
        # click's callback twice (the click's run coincides with another run of the tab),
        # so the press is not called a second one, nor said to come from elsewhere.
        text = _saved_text(handle, own.kind, own.label, exc.point)
        if mine is None or mine[0] != own.id:  # not this tab's own record: say when
            text = text[:-1] + f" (by you, {ago(own.timestamp)})."
        if newest.id != own.id:  # someone acted on the point after it
            text += f" Then {newest_text}."
        flash("success", text)
        return
    this_tab = mine is not None and mine[0] == newest.id
    when = "a moment ago in this tab" if this_tab else ago(newest.timestamp)
    st.session_state[_CONFLICT] = {
        "project": shown.project,
        "uid": shown.uid,
        "point": exc.point,
        "label": label,
        "text": f"Not saved: {newest_text}{f' ({when})' if when else ''} after point "
        f"{point} was shown here.",
        "newest": exc.newest_id,
    }


def _refusal_text(exc: Exception, shown: ShownPoint | None) -> str:
    """Why an action was not applied, in words for the annotator."""
    if isinstance(exc, TooSoonError):
        return (
            f"Press ignored: point #{exc.point} had been on screen for "
            f"{exc.dwell * 1000:.0f} ms as far as the server can tell (from its render or the "
            f"page's paint acknowledgement, less than {exc.min_dwell * 1000:.0f} ms); nothing "
            "was saved."
        )
    if isinstance(exc, UnknownProjectError) and shown is not None:
        return (
            f"Not saved: project {md_text(shown.project)} was deleted after point "
            f"#{shown.point} was shown; nothing was written to any project."
        )
    return f"Not saved: {user_message(exc)}"


def _run(
    handle: SessionHandle,
    annotator: str,
    action,
    label=None,
    shown: ShownPoint | None = None,
    kind: str = "change",
):
    st.session_state.pop(_CONFLICT, None)
    result = None
    with handle.lock:
        try:
            result = action()
        except StaleActionError as exc:
            _refused(handle, exc, annotator, shown, label, kind)
        except DatabaseUnavailableError as exc:  # the outage message says what became of it
            note_unavailable(exc, kind, None if shown is None else shown.point)
            flash("warning", refusal_text())
        except Exception as exc:  # shown, never raised into the page
            kind = "info" if isinstance(exc, TooSoonError) else "warning"
            flash(kind, _refusal_text(exc, shown))
    st.session_state.pop("selected", None)
    return result


def _bound_elsewhere(handle: SessionHandle, shown: ShownPoint) -> str | None:
    """Why an action bound to ``shown`` cannot apply in this tab now (None: it can)."""
    tab_project = st.session_state.get("project")
    if handle.session.project_name != shown.project or (
        tab_project is not None and tab_project != shown.project
    ):
        return (
            f"Not saved: the button was for project {md_text(shown.project)}, and this tab "
            f"now shows {md_text(tab_project or handle.session.project_name)}."
        )
    return None


def _replaced(shown: ShownPoint) -> str | None:
    """Why a press on the query panel's buttons of a point this tab no longer shows is not
    applied (None: the tab shows it, or the press is not the panel's).

    While a run draws the next point, Streamlit keeps the previous run's elements until the
    run ends: one key press then reached both the new point's button and the old one's (a
    tester's Undo brought point 9 back over point 29, and one press labeled both). The old
    press is for a point the tab has replaced; a press already applied (the same press run
    again) goes on to say it was saved."""
    current = st.session_state.get(_SHOWN)
    if not shown.paint_ack or not current or _applied(shown) is not None:
        return None
    if current[0] == (shown.project, shown.uid, shown.point):
        return None
    return (
        f"Not saved: that press was for point #{shown.point}, which this tab no longer shows "
        f"(it shows point #{current[0][2]}); nothing was written."
    )


def label(handle: SessionHandle, annotator: str, shown: ShownPoint, value) -> None:
    """Callback: label the point ``shown`` as ``value``."""
    _take_press()
    if (why := _bound_elsewhere(handle, shown) or _replaced(shown)) is not None:
        flash("warning", why)
        return
    s = handle.session
    eid = _run(
        handle,
        annotator,
        lambda: s.label(
            shown.point,
            value,
            seconds=_seconds_on(shown),
            annotator=annotator,
            seen=shown.seen,
            shown_at=_dwell_start(shown),
            project_uid=shown.uid,
        ),
        value,
        shown,
        "label",
    )
    if eid is not None:
        _record(shown, eid, "label", value)
        note_saved("label", shown.point)
        flash("success", _saved_text(handle, "label", value, shown.point))


def refuse_press(text: str) -> None:
    """Callback outcome of a press the page refuses before it reaches the session (a
    multi-label Save with no class chosen): it counts as answered (:func:`presses_taken`) and
    ``text`` says why, bound to the point as every label's message is."""
    _take_press()
    flash("info", text)


def skip(handle: SessionHandle, annotator: str, shown: ShownPoint) -> None:
    """Callback: skip the point ``shown``."""
    _take_press()
    if (why := _bound_elsewhere(handle, shown) or _replaced(shown)) is not None:
        flash("warning", why)
        return
    eid = _run(
        handle,
        annotator,
        lambda: handle.session.skip(
            shown.point,
            annotator,
            seen=shown.seen,
            shown_at=_dwell_start(shown),
            project_uid=shown.uid,
        ),
        shown=shown,
        kind="skip",
    )
    if eid is not None:
        _record(shown, eid, "skip")
        note_saved("skip", shown.point)
        flash("success", _saved_text(handle, "skip", None, shown.point))


def undo(handle: SessionHandle, annotator: str, expected: int) -> None:
    """Callback: revert the annotator's own last action, if it is still event ``expected``.

    A second run of the same press (a key's and a button's callback of one press) finds
    ``expected`` undone already — by this tab, which says so as it did the first time, not
    "nothing undone"."""
    done = st.session_state.setdefault(_UNDONE, {})
    if expected in done:
        flash("success", done[expected])
        return

    def run():
        reverted = handle.session.undo(annotator, expected=expected)
        if reverted is not None:
            note_saved("undo", reverted.point)
            what = REVERTED_ACTION[reverted.kind]
            done[expected] = f"Undone: your {what} of point #{reverted.point}."
            flash("success", done[expected])
            while len(done) > _APPLIED_KEPT:
                done.pop(next(iter(done)))

    _run(handle, annotator, run, kind="undo")


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
    project = handle.session.project
    # a deliberate change of a label already seen: no dwell (the list is not a new point)
    label(handle, annotator, ShownPoint(project.name, project.uid, point, seen, None), value)
    request_page_run()


def auto_label(handle: SessionHandle, n: int, budget: int, until_stop: bool = False) -> None:
    """Callback: label the next ``n`` queries with the ground truth (a demo oracle), none once
    the stop rule fired when ``until_stop`` (the project's budget, and this tab has not chosen
    to go on)."""

    def run():
        done = handle.session.auto_label(n, budget=budget, until_stop=until_stop)
        text = f"Auto-labeled {counted(done, 'point')} with the truth."
        if until_stop and done < n and stop_rule_fired(handle.session):
            text += f" Stopped there: {STOP_REACHED}."
        flash("success", text)

    _run(handle, "oracle", run)
    request_page_run()


def select_point(chart_key: str) -> None:
    """Callback of a pool plot drawn by ``st.plotly_chart``: show the clicked point instead of
    the query."""
    state = st.session_state.get(chart_key)
    points = state["selection"]["points"] if state else []
    if points:
        pick_point(points[0], drop_selection=True)


def pick_point(point: Mapping, drop_selection: bool) -> None:
    """Show the clicked ``point`` (a plotly point with its ``customdata``) instead of the query.

    ``drop_selection``: the plot is ``st.plotly_chart``, whose own selection of the point would
    dim the other points until its key changes (``plot_gen``); the live plot
    (:mod:`rlscore.ui.figures.live_plot`) keeps its key, so that it updates in place.
    """
    i = clicked_index(point)
    if i is not None:
        if drop_selection:
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
        if isinstance(exc, DatabaseUnavailableError):
            note_unavailable(exc, "undo", None)
        flash("warning", f"Nothing undone: {user_message(exc)}")
        return
    if reverted is not None:
        note_saved("undo", reverted.point)
        flash("success", f"Undone: your last action, on point #{reverted.point}.")


def pending_conflict() -> dict | None:
    """The refused action waiting for the annotator's decision, if any."""
    return st.session_state.get(_CONFLICT)


def relabel_anyway(handle: SessionHandle, annotator: str) -> None:
    """Callback: the annotator confirms their label over the other annotator's."""
    c = st.session_state.pop(_CONFLICT, None)
    if c is not None:
        shown = ShownPoint(c["project"], c["uid"], c["point"], c["newest"], None)
        label(handle, annotator, shown, c["label"])


def keep_theirs() -> None:
    """Callback: the annotator keeps the other annotator's label."""
    st.session_state.pop(_CONFLICT, None)


__all__ = [
    "ShownPoint",
    "auto_label",
    "continue_with",
    "deselect",
    "keep_theirs",
    "label",
    "mark_shown",
    "mark_shown_project",
    "note_painted",
    "paint_key",
    "pending_conflict",
    "project_gone_under_tab",
    "relabel_anyway",
    "recent_key",
    "refuse_press",
    "relabel_recent",
    "pick_point",
    "select_point",
    "skip",
    "undo",
    "undo_without_session",
    "widget_key",
]
