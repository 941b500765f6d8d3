"""Teammates' labels on an open page: a small fragment polls the database for new events.

Several app servers may share one database (PostgreSQL, or one SQLite file on one machine).
A page cannot be told by another server that something changed, so each open Label or Review
page runs :func:`follow_teammates`, a fragment that every :func:`poll_seconds` seconds reads
the project's newest event id (one indexed query) and, when someone else wrote an event newer
than what the page shows, runs the page again: a teammate's label appears within about one
poll interval, without reloading the browser page. The tab's own actions redraw what they
change themselves (a second run would race with that redraw). ``$RLSCORE_POLL_SECONDS``
sets the interval (default :data:`DEFAULT_POLL_SECONDS`; ``0`` turns polling off).
"""

from __future__ import annotations

import logging
import os

import streamlit as st

from rlscore.ui.shell.store import get_store

POLL_ENV = "RLSCORE_POLL_SECONDS"
DEFAULT_POLL_SECONDS = 1.0
_SHOWN = "shown_event_id"


def poll_seconds() -> float | None:
    """The poll interval from ``$RLSCORE_POLL_SECONDS`` (None: polling off)."""
    raw = os.environ.get(POLL_ENV, "")
    try:
        seconds = float(raw) if raw.strip() else DEFAULT_POLL_SECONDS
    except ValueError:
        logging.getLogger("rlscore.ui").warning("ignoring %s=%r: not a number", POLL_ENV, raw)
        seconds = DEFAULT_POLL_SECONDS
    return seconds if seconds > 0 else None


def mark_shown_version(project: str, event_id: int) -> None:
    """Record that the page now shows ``project`` up to event ``event_id``."""
    st.session_state[_SHOWN] = (project, int(event_id))


def _changed_since_shown(annotator: str | None) -> bool:
    """Whether someone else wrote to the project after what the page shows. The tab's own
    actions redraw what they change themselves: a page run for them would only race with
    that redraw."""
    shown = st.session_state.get(_SHOWN)
    if shown is None:
        return False
    project, event_id = shown
    try:
        store = get_store()
        if store.last_event_id(project) <= event_id:
            return False
        return any(e.annotator != annotator for e in store.events(project, after_id=event_id))
    except Exception:  # a deleted project or a lost connection: the next page run says so
        return True


def follow_teammates(annotator: str | None) -> None:
    """Start the polling fragment on this page for the tab's ``annotator`` (nothing when
    polling is off)."""
    seconds = poll_seconds()
    if seconds is not None:
        _poll(seconds, annotator)


def _poll(seconds: float, annotator: str | None) -> None:
    @st.fragment(run_every=seconds)
    def poll() -> None:
        if _changed_since_shown(annotator):
            st.session_state.pop(_SHOWN, None)  # one page run per change
            st.rerun()

    poll()


__all__ = [
    "DEFAULT_POLL_SECONDS",
    "POLL_ENV",
    "follow_teammates",
    "mark_shown_version",
    "poll_seconds",
]
