"""Events of a project's labeling log and the errors a store raises."""

from __future__ import annotations

from dataclasses import dataclass, field

#: the kinds of event a log holds ("review": a reviewer's decision of a point's final label)
EVENT_KINDS = ("label", "skip", "undo", "review")


class StaleActionError(ValueError):
    """A label, review or skip refused because its point changed after it was shown.

    Raised by :meth:`~rlscore.storage.interface.label_store.LabelStore.append_event` when it is
    given ``unchanged_since`` (the newest event id the annotator's view was built from) and an event
    on the same point (a label, review or skip, or the undo of one) has been committed since. The
    annotator decides again with the newer state on screen: a repeated key press is dropped, another
    annotator's label is kept unless they confirm a relabel.

    Attributes
    ----------
    point : int
        The pool index of the refused action.
    events : list of Event
        The events on that point committed since (oldest first; undos included).
    """

    def __init__(self, point: int, events: list[Event]):
        self.point = point
        self.events = events
        who = ", ".join(dict.fromkeys(e.annotator or "someone" for e in events))
        super().__init__(
            f"point {point} changed after it was shown (by {who}, event {events[-1].id}): "
            "the action was not saved"
        )

    @property
    def newest_id(self) -> int:
        """Id of the newest event on the point: pass it as ``unchanged_since`` to confirm."""
        return int(self.events[-1].id)


class UnknownProjectError(KeyError):
    """No project of that name in the store."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0])


@dataclass
class Event:
    """One entry of a project's labeling log.

    Attributes
    ----------
    kind : {"label", "skip", "undo", "review"}
    point : int or None
        Pool index labeled, reviewed or skipped (None for undo).
    label : object
        The class given (label and review events): an int or a string of the project's
        classes. A review is a reviewer's decision of the point's final label.
    annotator : str
    timestamp : float or None
        Seconds since the epoch (UTC); set by the store when None.
    seconds : float or None
        Time the annotator spent on this point, if measured.
    params : dict
        Settings when the event happened (strategy, kernel, sigma, lam, …), for the export.
    target : int or None
        Undo events: id of the label, review or skip event they revert. Left None when
        appending, the store fills in the most recent such event not yet undone.
    id : int or None
        Set by the store; increases in commit order within a project (SQLite: across all
        projects).
    seen : int or None
        Label, review and skip events from the app: the newest event id of the project when the
        point was shown to the annotator (what the action was decided on); None when the
        caller did not say.
    """

    kind: str
    point: int | None = None
    label: object = None
    annotator: str = ""
    timestamp: float | None = None
    seconds: float | None = None
    params: dict = field(default_factory=dict)
    target: int | None = None
    id: int | None = None
    seen: int | None = None
