"""What a viewer may be told of an action that refused theirs: a name and a label, or neither.

A label or skip pressed on a point that changed after it was shown is refused
(:class:`~rlscore.storage.StaleActionError`, which carries the events since), and the Label
page says what the store holds. Two rules decide how much of a teammate's event it says:

* who labeled what is a reviewer's read (``see_labels``,
  :mod:`rlscore.sessions.team.permissions`): an annotator is told that *a teammate* acted,
  never who, nor the label they gave;
* a point waiting for the viewer's own label under overlap is shown blind
  (:mod:`rlscore.sessions.views.label_page`): no one — reviewer, owner, or anyone in an open
  project — is told who labeled it or how, since either would bias their own label.

In an open project (no members: the local mode, typed names) everyone may read who labeled
what — the Review page and the counts per annotator show it anyway — so the name and label
are told there, but on a blind point. The viewer's own events are always told in full: a label
from another tab of theirs is theirs to see. No Streamlit here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rlscore.sessions.actions.session import LabelingSession
from rlscore.sessions.team.permissions import allowed, same_user
from rlscore.storage import DatabaseUnavailableError, Event, UnknownProjectError


@dataclass(frozen=True)
class ToldEvent:
    """One event on a point, as much of it as a viewer may be told.

    Attributes
    ----------
    kind : {"label", "skip", "undo", "review"}
        What the event did (said whoever did it: it reveals no label).
    mine : bool
        The viewer's own event.
    who : str or None
        Who did it, when the viewer may read it and it is not theirs ("" when unnamed);
        None: say "a teammate".
    label : object
        The label given (label and review events) when the viewer may read it, else None.
    label_told : bool
        Whether ``label`` may be said (False: withheld, or the event gives no label).
    """

    kind: str
    mine: bool
    who: str | None
    label: object = None
    label_told: bool = False


def ago(timestamp: float | None, now: float | None = None) -> str:
    """How long ago an event committed at ``timestamp`` (seconds since the epoch) was, in
    words: "8 s ago", "3 min ago" ("" when its time is unknown). ``now``: default the clock."""
    if timestamp is None:
        return ""
    seconds = max(0, round((time.time() if now is None else now) - float(timestamp)))
    return f"{seconds} s ago" if seconds < 120 else f"{seconds // 60} min ago"


def blind_to(session: LabelingSession, viewer: str, point: int) -> bool:
    """Whether ``point`` waits for ``viewer``'s own label under overlap now (shown blind).

    Reads the store first: the refusal's events are not in the session yet (the store refused
    the write before the session synced), and the teammate's label is what makes it wait. A
    store that cannot be read leaves the point blind: nothing is told that it might hide.
    """
    if session.overlap.k <= 1:
        return False
    try:
        session.sync()
    except (DatabaseUnavailableError, UnknownProjectError):  # fail closed
        return True
    return int(point) in session.overlap_queue(viewer)


def told_event(session: LabelingSession, viewer: str, point: int, event: Event) -> ToldEvent:
    """What ``viewer`` may be told of ``event``, an action on ``point`` after it was shown.

    Parameters
    ----------
    session
        The viewer's session on the project (synced from the store here, under overlap).
    viewer
        Who is told: the annotator whose action was refused.
    point
        The point the refused action was for.
    event
        One of the events on ``point`` since it was shown
        (:attr:`~rlscore.storage.StaleActionError.events`).

    Returns
    -------
    ToldEvent
        The viewer's own event in full; another's with its name and label only when the
        viewer may read who labeled what (``see_labels``) and ``point`` is not blind to them
        (:func:`blind_to`); else as "a teammate", without the label.
    """
    gives_label = event.kind in ("label", "review")
    who = event.annotator or ""
    if who == viewer or same_user(who, viewer):
        return ToldEvent(event.kind, True, None, event.label if gives_label else None, gives_label)
    members = session.store.members(session.project_name)
    if not allowed(members, viewer, "see_labels") or blind_to(session, viewer, point):
        return ToldEvent(event.kind, False, None)
    return ToldEvent(event.kind, False, who, event.label if gives_label else None, gives_label)


__all__ = ["ToldEvent", "ago", "blind_to", "told_event"]
