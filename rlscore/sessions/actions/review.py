"""A reviewer's decisions: the final label of a point, as its own event in the log.

A review is an event of kind ``"review"`` (who, when, which label): it overrides the annotators'
labels of the point (:mod:`rlscore.sessions.state.label_log`) until it is undone, and it is kept in
the log like every label, so the project's audit trail shows each decision. No query engine is
needed: the Review page and the command line decide on the log alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.team.permissions import require
from rlscore.storage import Event, LabelStore


def review_point(
    store: LabelStore,
    project: str,
    point: int,
    label,
    reviewer: str,
    *,
    seen: int | None = None,
    params: dict | None = None,
) -> int:
    """Commit a reviewer's decision that ``point``'s final label is ``label``.

    Parameters
    ----------
    store, project
        Where the project's log is.
    point, label
        The point and its decided class (the store checks both).
    reviewer
        Who decided (written with the event).
    seen
        The newest event id when the point was shown to the reviewer: a decision on a point
        that changed since is refused (:class:`~rlscore.storage.StaleActionError`).
    params
        Settings recorded with the event.

    Returns
    -------
    int
        The event id.

    Raises
    ------
    PermissionDeniedError
        ``reviewer`` is not a reviewer or owner of a project with members
        (:mod:`rlscore.sessions.team.permissions`); nothing is written.
    """
    require(store, project, reviewer, "review")
    event = Event("review", point=point, label=label, annotator=reviewer, params=params or {})
    return store.append_event(project, event, unchanged_since=seen)


@dataclass(frozen=True)
class Decision:
    """One review event of the audit trail."""

    event: Event
    undone_by: Event | None

    @property
    def holds(self) -> bool:
        return self.undone_by is None


def audit_trail(events: list[Event]) -> list[Decision]:
    """Every review decision of a log, newest first, with the undo that reverted it if any."""
    undos = {e.target: e for e in events if e.kind == "undo"}
    reviews = [e for e in events if e.kind == "review"]
    return [Decision(e, undos.get(e.id)) for e in reversed(reviews)]


def review_queue(log: LabelLog) -> list[int]:
    """Points a reviewer should decide, oldest first: the annotators disagree, no review."""
    return log.disagreements()


def audit_trail_as(
    store: LabelStore, project: str, user: str | None, events: list[Event]
) -> list[Decision]:
    """:func:`audit_trail` as ``user`` may read it: who decided what is a reviewer's read
    (``see_labels``); refused with :class:`PermissionDeniedError` otherwise."""
    require(store, project, user, "see_labels")
    return audit_trail(events)


def review_queue_as(store: LabelStore, project: str, user: str | None, log: LabelLog) -> list[int]:
    """:func:`review_queue` as ``user`` may read it: the points teammates disagree on are a
    reviewer's read (``see_labels``) — an annotator shown one of them would know its labels
    disagree, and with three annotators a point still waits for their own blind label."""
    require(store, project, user, "see_labels")
    return review_queue(log)


__all__ = [
    "Decision",
    "audit_trail",
    "audit_trail_as",
    "review_point",
    "review_queue",
    "review_queue_as",
]
