"""An expander whose content is built and drawn only while it is open.

``st.expander`` runs and sends its content even when closed, and the browser draws it hidden.
A chart that changes with every label is costly there: it is mounted anew at every label. The
Label page's two curves cost about 0.2 s of Chromium's main thread and 0.05 s of the server's
CPU per label at 2 000 points (docs/benchmarks/app-latency.md, "Curves drawn only while open"). With
``on_change="rerun"`` Streamlit tracks the expander's state and reruns on a toggle (only the
fragment it is in, when it is in one), so the content can be skipped while it is closed. The
state is the tab's (``st.session_state[key]``): it stays open over the labels of the tab.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st


@contextmanager
def open_expander_content(label: str, key: str) -> Iterator[bool]:
    """Enter an expander labeled ``label``; yields whether it is open (draw only then).

    Parameters
    ----------
    label
        The expander's label (Markdown: escape user strings with
        :func:`rlscore.ui.shell.safe_text.md_text`).
    key
        Its widget key; ``st.session_state[key]`` holds the open state.
    """
    box = st.expander(label, key=key, on_change="rerun")
    with box:
        yield bool(box.open)


__all__ = ["open_expander_content"]
