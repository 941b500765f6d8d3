"""Messages that outlive a rerun: set by a callback or before ``st.rerun()``, shown once."""

from __future__ import annotations

from typing import Literal

import streamlit as st

_KEY = "flash"


def flash(kind: Literal["success", "info", "warning", "error"], text: str) -> None:
    """Show ``text`` as ``st.<kind>`` at the next :func:`show_flash` (this run or the next)."""
    st.session_state[_KEY] = (kind, text)


def show_flash() -> None:
    """Show the pending message, if any, and forget it."""
    message = st.session_state.pop(_KEY, None)
    if message:
        getattr(st, message[0])(message[1])
