"""The stop advice of a multi-label project's Label page: "you can stop" or "keep going" from
the ``set-agreement`` rule, its evidence in an expander (the state is
:mod:`rlscore.sessions.stopping.set_stop`'s; docs/multilabel.md §6).

Drawn in the page's figures fragment under the micro-F1 headline, so it follows each label
one step behind the query panel, as the single-label When-to-stop panel does
(:mod:`rlscore.ui.label.stopping_panel`).
"""

from __future__ import annotations

import streamlit as st

from rlscore.sessions.stopping.set_stop import (
    classes_in_no_set,
    set_evidence_lines,
    set_stop_curves,
    set_stop_decision,
)
from rlscore.ui.label.stopping_panel import show_advice
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.store import SessionHandle


def set_stop_advice(handle: SessionHandle, p: dict) -> None:
    """Draw the stop advice for the tab's multi-label session ``handle``, settings ``p``."""
    with report_errors("Deciding when to stop"):
        with handle.lock:
            session = handle.session
            decision = set_stop_decision(
                set_stop_curves(session),
                len(session.project.classes),
                classes_in_no_set(session),
            )
        st.markdown("**Can I stop?**")
        show_advice(decision, p)
        with st.expander("Why: the evidence for the stop advice"):
            for line in set_evidence_lines(decision):
                st.write(line)


__all__ = ["set_stop_advice"]
