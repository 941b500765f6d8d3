"""Failures shown as messages, never as tracebacks.

Every page runs its work through :func:`report_errors`: an exception becomes an ``st.error``
that names the problem in the user's terms and what to do, while the traceback goes to the
server's log only. The shipped ``.streamlit/config.toml`` also sets
``client.showErrorDetails = "none"``, so even an error this misses shows no server path.
A label database that cannot be reached is not a failure of the block: the run shows the
outage message and retries (:mod:`rlscore.ui.shell.database_status`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import streamlit as st

from rlscore.sessions.team.permissions import PermissionDeniedError
from rlscore.storage import DatabaseUnavailableError, StaleActionError, UnknownProjectError
from rlscore.ui.shell.database_status import enter_outage, note_unavailable
from rlscore.ui.shell.flash import flash
from rlscore.ui.shell.safe_text import logged_text, md_text

_LOG = logging.getLogger("rlscore.ui")


def user_message(exc: BaseException) -> str:
    """What to tell the user about ``exc`` (Markdown-safe: user strings are escaped).

    Parameters
    ----------
    exc : BaseException

    Returns
    -------
    str
    """
    if isinstance(exc, PermissionDeniedError):  # names the role needed; nothing was written
        return md_text(exc)
    if isinstance(exc, DatabaseUnavailableError):  # where it is stays in the server's log
        return (
            "the label database is unreachable; the page retries by itself and resumes when "
            "it is back."
        )
    if isinstance(exc, UnknownProjectError):
        # the store's message lists every project: a browser is shown none of them (its user
        # may not read them all)
        named = str(exc).split("; projects:")[0]
        return f"{md_text(named)}. Choose another project in the sidebar."
    if isinstance(exc, StaleActionError):
        return md_text(exc)
    if isinstance(exc, MemoryError):
        return (
            f"Not enough memory: {md_text(exc)}. Choose the 'random' or 'uncertainty' "
            "strategy (they need memory proportional to the pool), or a smaller pool."
        )
    if isinstance(exc, np.linalg.LinAlgError):
        return (
            f"The linear algebra failed ({md_text(exc)}): the kernel matrix is singular for "
            "these settings. Increase λ or change the kernel or σ in the sidebar."
        )
    if isinstance(exc, ValueError | KeyError | LookupError):
        return md_text(exc)
    return (
        f"Unexpected error ({type(exc).__name__}); the details are in the server's log. "
        "Try other settings in the sidebar, or reload the page."
    )


@contextmanager
def report_errors(what: str) -> Iterator[None]:
    """Run the block; on any exception show ``what`` failed and why, log the traceback. A
    refusal (:class:`PermissionDeniedError`) is information, not a failure: its message alone,
    neutral, and nothing logged.

    ``st.stop()`` and ``st.rerun()`` pass through: Streamlit raises them as ``BaseException``, which
    this does not catch. An unreachable label database runs the page again, which shows the
    outage message alone (:func:`~rlscore.ui.shell.database_status.enter_outage`).
    """
    try:
        yield
    except DatabaseUnavailableError as exc:
        enter_outage(exc)
    except PermissionDeniedError as exc:
        # an expected refusal, not a failure: said neutrally, and no traceback in the log
        st.info(user_message(exc))
    except Exception as exc:
        _LOG.exception("%s failed", logged_text(what))
        st.error(f"{what} failed: {user_message(exc)}")


@contextmanager
def flash_errors(what: str) -> Iterator[None]:
    """In a callback: run the block; on any exception flash ``what`` was not done and why (a
    refused action names the role it needs), log the traceback. A callback's exception would
    otherwise reach the page as a traceback."""
    try:
        yield
    except Exception as exc:
        if isinstance(exc, DatabaseUnavailableError):
            note_unavailable(exc, "change", None)
        elif not isinstance(exc, PermissionDeniedError):
            _LOG.exception("%s failed", logged_text(what))
        refused = isinstance(exc, PermissionDeniedError)  # expected: information, neutral
        flash("info" if refused else "warning", f"{what}: {user_message(exc)}")


__all__ = ["flash_errors", "report_errors", "user_message"]
