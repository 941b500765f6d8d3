"""Messages that outlive a rerun: set by a callback or before ``st.rerun()``, then shown.

:func:`show_flash` without an argument shows the pending message once and forgets it (pages
whose runs are whole pages). The Label page binds a message to the point it is first shown
with (:func:`show_flash` with ``with_point``): it stays on every redraw of that point — a
dropped or repeated run cannot swallow it — and clears when the next point is shown, so a
notice never lingers beside a point it is not about.
"""

from __future__ import annotations

from typing import Literal

import streamlit as st

_KEY = "flash"


def flash(kind: Literal["success", "info", "warning", "error"], text: str) -> None:
    """Show ``text`` as ``st.<kind>`` at the next :func:`show_flash` (this run or the next)."""
    st.session_state[_KEY] = (kind, text, None)


def show_flash(with_point: object = None) -> None:
    """Show the pending message, if any.

    Parameters
    ----------
    with_point
        None: show it once and forget it. Else an identity of the point on screen (e.g.
        ``(project uid, point)``): the message is bound to the first point it is shown with,
        shown again while that point is on screen and forgotten once another one is.
    """
    message = st.session_state.get(_KEY)
    if not message:
        return
    kind, text, bound = message
    if with_point is None:
        st.session_state.pop(_KEY, None)
    elif bound is None:
        st.session_state[_KEY] = (kind, text, with_point)
    elif bound != with_point:
        st.session_state.pop(_KEY, None)
        return
    getattr(st, kind)(text)


def flash_pending() -> bool:
    """Whether a message waits that no run has shown yet: the outcome of an action of this
    tab (a callback's), which a notice about something else must not replace."""
    message = st.session_state.get(_KEY)
    return bool(message) and message[2] is None


__all__ = ["flash", "flash_pending", "show_flash"]
