"""Widgets of the Data page's upload form that are more than one Streamlit call.

:func:`feature_progress` draws the progress bar shown while a project's features are built
(texts, images) and hands the engine its ``progress(fraction, message)`` callback
(:data:`rlscore.data.features.Progress`); the bar is removed once the features are built.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from rlscore.data.features import Progress
from rlscore.ui.shell.safe_text import md_text


@contextmanager
def feature_progress(start: str = "Building features…") -> Iterator[Progress]:
    """A progress bar (``st.progress``) for the duration of the ``with`` block.

    Yields
    ------
    Progress
        ``progress(fraction, message)``: moves the bar to ``fraction`` (0–1, clipped) and
        shows ``message`` as text.
    """
    slot = st.empty()
    bar = slot.progress(0.0, text=md_text(start))

    def progress(fraction: float, message: str) -> None:
        bar.progress(min(1.0, max(0.0, float(fraction))), text=md_text(message))

    try:
        yield progress
    finally:
        slot.empty()


__all__ = ["feature_progress"]
