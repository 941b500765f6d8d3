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
    set_evidence_lines,
    set_stop_curves,
    set_stop_decision,
)
from rlscore.ui.label.stopping_panel import advice_sentence
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.store import SessionHandle


def set_stop_advice(handle: SessionHandle, p: dict) -> None:
    """Draw the stop advice for the tab's multi-label session ``handle``, settings ``p``."""
    with report_errors("Deciding when to stop"):
        with handle.lock:
            session = handle.session
            decision = set_stop_decision(set_stop_curves(session), len(session.project.classes))
        st.markdown("**Can I stop?**")
        # the messages hold numbers and the rule's name only, never a user's text
        if decision.stop:
            st.success(advice_sentence(decision.message))
            if p.get("until_stop"):
                st.caption("This project's budget is 'until the stop rule fires': it is reached.")
        else:
            st.info(advice_sentence(decision.message))
        with st.expander("Why: the evidence for the stop advice"):
            for line in set_evidence_lines(decision):
                st.write(line)


__all__ = ["set_stop_advice"]
