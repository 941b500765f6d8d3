"""The bookkeeping of a session's actions on a point: the checks before, the event written after.

An action (label, skip) is checked before anything is written: it names a point of the pool
(:func:`check_point`), arrived at least the minimum dwell after the point was shown
(:mod:`~rlscore.sessions.actions.dwell`) and is for the project the point was shown from
(:mod:`~rlscore.sessions.actions.project_identity`) — :func:`check_action`. Its event is then
written with the settings in effect (:func:`event_params`, which a review records too) by
:func:`commit_action`: the store refuses it if the point changed after the version the annotator
saw, and the permissions if the annotator lacks the role; the session then applies it.
:class:`~rlscore.sessions.actions.session.LabelingSession` calls these under its lock.
"""

from __future__ import annotations

import numpy as np

from rlscore.data.projects.project import Project
from rlscore.sessions.actions.dwell import check_dwell
from rlscore.sessions.actions.project_identity import check_same_project
from rlscore.sessions.team.permissions import require
from rlscore.sessions.views.session_view import SessionView
from rlscore.storage import Event, LabelStore


def check_point(project: Project, i) -> int:
    """Point ``i`` of ``project``'s pool as an index.

    Raises
    ------
    ValueError
        ``i`` is not a whole number (a bool is not), or outside the pool.
    """
    if isinstance(i, bool) or not isinstance(i, int | np.integer):
        raise ValueError(f"point index must be an integer, got {i!r}")
    if not 0 <= int(i) < project.n:
        raise ValueError(f"point index {i} is outside the pool (0 … {project.n - 1})")
    return int(i)


def check_action(
    store: LabelStore, project: Project, i, shown_at: float | None, project_uid: int | None
) -> int:
    """Point ``i`` as an index, once an action on it passed the minimum dwell
    (:func:`~rlscore.sessions.actions.dwell.check_dwell`) and is for ``project`` as the session
    holds it (:func:`~rlscore.sessions.actions.project_identity.check_same_project`).

    Raises
    ------
    ValueError
        ``i`` is not a point of the pool (:func:`check_point`).
    TooSoonError
        The action came less than the minimum dwell after ``shown_at``.
    UnknownProjectError
        The project of uid ``project_uid`` was deleted after the point was shown.
    """
    i = check_point(project, i)
    check_dwell(i, shown_at)
    check_same_project(store, project, project_uid)
    return i


def event_params(session: SessionView) -> dict:
    """The settings in effect, written with a label or skip event (and in the export)."""
    p = {
        "strategy": session.strategy_name,
        "kernel": session.params["kernel"],
        "sigma": session.params["sigma"],
        "lam": session.lam_,
    }
    if session.params["lam"] == "auto":
        p["lam_mode"] = "auto"
    if session.params["class_weight"] is not None:
        p["class_weight"] = session.params["class_weight"]
    return p


def commit_action(
    store: LabelStore,
    session: SessionView,
    kind: str,
    i: int,
    who: str,
    seen: int | None,
    audit: bool = False,
    **fields,
) -> int:
    """Write a ``kind`` event on point ``i`` with the settings in effect, then apply it.

    Parameters
    ----------
    store
        The label store holding ``session``'s project.
    session
        The session whose project the event is for, synced once it is written.
    kind
        ``"label"`` (a ``"relabel"`` for the permissions where ``i`` is labeled) or ``"skip"``.
    i, who
        The point, and the annotator written with the event.
    seen
        The newest event id when ``who`` was shown the point: refused if the point changed
        since (None: no check).
    audit
        Mark the event ``params["audit"]`` (a random check's label).
    **fields
        Further fields of the event (``label``, ``seconds``).

    Returns
    -------
    int
        The event id.

    Raises
    ------
    StaleActionError
        The point changed after ``seen``: nothing is written.
    PermissionDeniedError
        ``who`` lacks the role a project with members requires for the action
        (:mod:`rlscore.sessions.team.permissions`): nothing is written.
    """
    action = "relabel" if kind == "label" and i in session._state.log.labels else kind
    require(store, session.project_name, who, action)
    params = {**event_params(session), **({"audit": True} if audit else {})}
    event = Event(kind, point=i, annotator=who, params=params, **fields)
    eid = store.append_event(session.project_name, event, unchanged_since=seen)
    session.sync()
    return eid


__all__ = ["check_action", "check_point", "commit_action", "event_params"]
