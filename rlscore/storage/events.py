"""Events of a project's labeling log and the errors a store raises."""

from __future__ import annotations

from dataclasses import dataclass, field

#: the kinds of event a log holds
EVENT_KINDS = ("label", "skip", "undo")


class UnknownProjectError(KeyError):
    """No project of that name in the store."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0])


@dataclass
class Event:
    """One entry of a project's labeling log.

    Attributes
    ----------
    kind : {"label", "skip", "undo"}
    point : int or None
        Pool index labeled or skipped (None for undo).
    label : object
        The class given (label events only): an int or a string of the project's classes.
    annotator : str
    timestamp : float or None
        Seconds since the epoch (UTC); set by the store when None.
    seconds : float or None
        Time the annotator spent on this point, if measured.
    params : dict
        Settings when the event happened (strategy, kernel, sigma, lam, …), for the export.
    target : int or None
        Undo events: id of the label or skip event they revert. Left None when appending,
        the store fills in the most recent label or skip event not yet undone.
    id : int or None
        Set by the store; increases in commit order across all projects.
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
