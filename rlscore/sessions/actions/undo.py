"""Undo of an annotator's own last action, with or without a query engine.

:meth:`LabelingSession.undo <rlscore.sessions.LabelingSession.undo>` uses it on its synced
log; the app also calls it directly on the store's log when no session can be built (e.g. a
strategy that fails on the current labels), so Undo stays usable whatever happens.
"""

from __future__ import annotations

from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.team.permissions import require_undo
from rlscore.storage import Event, LabelStore

#: what each kind of event an undo can revert is called in a message ("Undone: your …")
REVERTED_ACTION = {"label": "label", "skip": "skip", "review": "review decision"}


def undo_last(
    store: LabelStore,
    project: str,
    log: LabelLog | None = None,
    annotator: str | None = None,
    *,
    expected: int | None = None,
    by: str | None = None,
) -> Event | None:
    """Revert the most recent label or skip of ``annotator`` (anyone's when None).

    Parameters
    ----------
    store, project
        Where the project's log is.
    log
        The project's current log (default: folded from the store now).
    annotator
        Whose action to revert; None: the project's most recent one.
    expected
        Id of the event the caller showed as the one to revert; if the last action is
        another one by now, nothing is reverted.
    by
        Name written with the undo event (default: ``annotator``).

    Returns
    -------
    Event or None
        The reverted event; None when another caller reverted it at the same moment.

    Raises
    ------
    ValueError
        Nothing to undo, or the last action is not ``expected``.
    """
    log = LabelLog(store.events(project)) if log is None else log
    target = log.last_active(annotator)
    if target is None:
        whose = "" if annotator is None else f" by {annotator}"
        raise ValueError(f"nothing to undo: no label or skip{whose} yet")
    if expected is not None and target.id != expected:
        raise ValueError(
            "nothing undone: the last action changed after the page was drawn (Undo pressed twice?)"
        )
    who = by if by is not None else (annotator or "")
    require_undo(store, project, who, target.annotator)  # own: annotator; others': reviewer
    try:
        store.append_event(project, Event("undo", target=target.id, annotator=who))
    except ValueError:  # undone by another caller in between: its undo is enough
        return None
    return target


__all__ = ["REVERTED_ACTION", "undo_last"]
