"""Whether a teammate took the point on a viewer's screen, read from the log, and how to say so.

The Label page shows each annotator the query claimed for them, but a teammate may still
label, skip or review that very point (picked in their plot, from Python, after the claim
expired). The viewer's page then draws its next query at its next run — the teammates' poll
(:mod:`rlscore.ui.label.teammates`) — and a press a moment later labels the new point. The
page says why the point changed when the log says it was a teammate: :func:`taken_by` reads
the events between the two views, :func:`taken_text` words it.

The notice is true or absent: it is never said when the viewer's own events (a label, skip
or undo, from this tab or another of theirs) are among them, nor when no one else acted on
the point (the point changed for another reason: settings, the budget, the stop rule). It
names no one and gives no label (who labeled what is a reviewer's read, and never told on a
point the viewer may still have to label blind: :mod:`rlscore.sessions.views.conflict_notice`).
No Streamlit here.
"""

from __future__ import annotations

from collections.abc import Iterable

from rlscore.sessions.team.permissions import same_user
from rlscore.sessions.views.conflict_notice import ago
from rlscore.storage import Event

#: what a teammate's event on the point did, as the notice says it (no label, no name)
TAKING = {"label": "labeled", "skip": "skipped", "review": "decided the final label of"}


def taken_by(point: int, viewer: str, events: Iterable[Event]) -> Event | None:
    """The teammate's event that took ``point`` off ``viewer``'s screen, if the log says so.

    Parameters
    ----------
    point
        The point the viewer's page showed.
    viewer
        The annotator whose page it is.
    events
        The log after the version the point was shown at, up to the version of the page's new
        view (:meth:`~rlscore.storage.interface.label_store.LabelStore.events` with
        ``after_id``), oldest first.

    Returns
    -------
    Event or None
        The first label, skip or review of ``point`` by someone else that no later event of
        ``events`` undoes; None when there is none, or when any event is the viewer's own
        (their own action explains the change, and the page says what it did).
    """
    events = list(events)
    if any(e.annotator == viewer or same_user(e.annotator, viewer) for e in events):
        return None
    undone = {e.target for e in events if e.kind == "undo"}
    for e in events:
        if e.kind in TAKING and e.point == int(point) and e.id not in undone:
            return e
    return None


def taken_text(event: Event, point: int, next_point: bool, now: float | None = None) -> str:
    """The notice of ``point`` taken by ``event`` (:func:`taken_by`), shown beside the viewer's
    next point (``next_point``; False: the page has none to show). Plain words and numbers,
    no user text: "A teammate labeled point #71 (1 s ago) after it was shown here; here is
    your next point." ``now``: seconds since the epoch (default: the clock)."""
    when = ago(event.timestamp, now)
    text = f"A teammate {TAKING[event.kind]} point #{int(point)}"
    text += f" ({when}) after it was shown here" if when else " after it was shown here"
    return text + ("; here is your next point." if next_point else ".")


__all__ = ["TAKING", "taken_by", "taken_text"]
