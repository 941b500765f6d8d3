"""The minimum dwell: no label or skip on a point shown too briefly for a person to have seen it.

A press that arrives a few milliseconds after a point was put on screen (a key held down, a
second press meant for the previous point, a click already on its way) was not a decision
about that point. Simple visual reaction time — the fastest a person answers a stimulus they
expect, without choosing between answers — is about 190–230 ms: Woods et al., "Factors
influencing the latency of simple reaction time", *Frontiers in Human Neuroscience* 9:131
(2015), measured a mean of 213 ms (231 ms before correcting for hardware delays) over 1469
adults aged 18–65, and Galton's young subjects were below 190 ms; the classic figure for a
light stimulus is about 190 ms (Kosinski's review, "A literature review on reaction time",
Clemson University). Choosing between two or more answers, as a label does, only adds to it
(Hick's law). An action less than :data:`DEFAULT_MIN_DWELL_MS` = 200 ms after its point
appeared therefore answered something else, and is refused.

The value is a setting, read in one place (:func:`min_dwell_seconds`): the environment
variable ``RLSCORE_MIN_DWELL_MS`` (milliseconds, ``0`` turns the rule off, e.g. for scripted
labeling through the app). The Label page's browser guard drops such presses
(:mod:`rlscore.ui.label.keys`) and the session refuses them (:meth:`LabelingSession.label` with
``shown_at``) with :class:`TooSoonError`.
"""

from __future__ import annotations

import logging
import os
import time

#: environment variable holding the minimum dwell in milliseconds
MIN_DWELL_ENV = "RLSCORE_MIN_DWELL_MS"
#: default minimum dwell (ms): below the simple visual reaction time of nearly everyone
DEFAULT_MIN_DWELL_MS = 200.0


def min_dwell_seconds() -> float:
    """The minimum dwell in seconds: ``$RLSCORE_MIN_DWELL_MS`` / 1000, else the default.

    A value that is not a non-negative number is ignored (with a warning in the log).
    """
    raw = os.environ.get(MIN_DWELL_ENV, "")
    ms = DEFAULT_MIN_DWELL_MS
    if raw.strip():
        try:
            ms = float(raw)
            if not ms >= 0:  # also NaN
                raise ValueError
        except ValueError:
            logging.getLogger("rlscore").warning(
                "ignoring %s=%r: not a number of milliseconds >= 0", MIN_DWELL_ENV, raw
            )
            ms = DEFAULT_MIN_DWELL_MS
    return ms / 1000.0


class TooSoonError(ValueError):
    """A label or skip refused because its point had been on screen less than the minimum
    dwell. Nothing was written.

    Attributes
    ----------
    point : int
        The pool index of the refused action.
    dwell : float
        Seconds the point had been on screen when the action arrived.
    min_dwell : float
        The minimum dwell in seconds.
    """

    def __init__(self, point: int, dwell: float, min_dwell: float):
        self.point = int(point)
        self.dwell = float(dwell)
        self.min_dwell = float(min_dwell)
        super().__init__(
            f"press ignored: point {self.point} had been on screen for "
            f"{self.dwell * 1000:.0f} ms, less than the {self.min_dwell * 1000:.0f} ms a person "
            "needs to see it; nothing was saved"
        )


def check_dwell(
    point: int, shown_at: float | None, min_dwell: float | None = None, now: float | None = None
) -> None:
    """Refuse an action on ``point`` that arrives less than ``min_dwell`` seconds after
    ``shown_at``.

    Parameters
    ----------
    point
        The pool index acted on.
    shown_at
        When the point was first put on screen, on the :func:`time.monotonic` clock of this
        process; None: unknown (no check).
    min_dwell
        Seconds; default :func:`min_dwell_seconds`.
    now
        The arrival time on the same clock (default: now).

    Raises
    ------
    TooSoonError
        ``now - shown_at < min_dwell``.
    """
    if shown_at is None:
        return
    min_dwell = min_dwell_seconds() if min_dwell is None else float(min_dwell)
    dwell = (time.monotonic() if now is None else float(now)) - float(shown_at)
    if dwell < min_dwell:
        raise TooSoonError(point, max(dwell, 0.0), min_dwell)


__all__ = [
    "DEFAULT_MIN_DWELL_MS",
    "MIN_DWELL_ENV",
    "TooSoonError",
    "check_dwell",
    "min_dwell_seconds",
]
