"""Label page: the learner proposes, the human labels (the app's default page, at ``/``).

Layout and wiring only: what the views show is :mod:`rlscore.sessions.views.label_page`, how they
are drawn :mod:`rlscore.ui.label.query_panel`. The query panel and the plot are fragments
(``st.fragment``): a label reruns them, not the page. Every label and skip is bound to the point,
log version, project and draw time on screen (:mod:`rlscore.ui.label.actions`).
"""

from __future__ import annotations

import streamlit as st

from rlscore.storage import DatabaseUnavailableError, UnknownProjectError
from rlscore.ui.label import (
    actions,
    query_panel,
    refresh,
    search_panel,
    stopping_panel,
    suspects_note,
)
from rlscore.ui.label.keys import install_key_guard
from rlscore.ui.label.teammates import follow_teammates
from rlscore.ui.label_sets import set_panel
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.flash import show_flash
from rlscore.ui.shell.navigation import end_page, enter_through_app
from rlscore.ui.shell.params import set_annotator
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.sidebar import annotator_input, learner_sidebar, project_selector
from rlscore.ui.shell.store import get_session, get_store

enter_through_app(__file__)

project_selector()
annotator = annotator_input()
p = learner_sidebar()
show_contours = st.sidebar.toggle("Confidence contours (f = ±0.5)", key="show_contours")
install_key_guard()
refresh.install_view_refresh()

if not annotator:
    show_flash()
    st.subheader(f"Label · {md_text(p['project'])}")
    with st.form("who"):
        name = st.text_input("Your name", max_chars=60, help="Written with each of your labels.")
        if st.form_submit_button("Start labeling", type="primary") and name.strip():
            set_annotator(name)
            st.rerun()
    st.caption("Asked once: your name stays in this page's link, so a reload keeps it.")
    end_page()

gone = actions.project_gone_under_tab(get_store().project_uid)
if gone is not None:
    query_panel.project_gone_notice(gone, p["project"])
    end_page()

handle = None
with report_errors(f"Opening project {md_text(p['project'])} with these settings"):
    handle = get_session(p)
if handle is None:
    show_flash()
    st.info(
        "Change the strategy, kernel, σ, λ or class weights in the sidebar, or choose another "
        "project."
    )
    st.button(
        "Undo my last label",
        key="undo_fallback",
        on_click=actions.undo_without_session,
        args=(p["project"], annotator),
        help="Reverts your own last label or skip (no learner needed).",
    )
    end_page()

# a multi-label project (label sets) has its own panel, plot and figures
multi_label = handle.session.project.multi_label
# the notes above the panel are drawn in a container that every run draws, shown or empty:
# Streamlit names a fragment by its place on the page, so a note that appears or goes in a
# full run (a teammates' poll: the first suspect) gave the panel, plot and poll fragments new
# ids, and a click sent under the old id during that run was answered by no redraw of the
# panel (its callback ran, "Couldn't find fragment" in the server log, the page unchanged)
with st.container():
    if multi_label:
        set_panel.preselect_setting()
    else:
        with report_errors("Checking the labels"):
            suspects_note.suspects_note(handle.session.project, p, annotator)


@st.fragment
def panel_fragment() -> None:
    """The point to label and its buttons: the only part a label reruns."""
    try:
        with handle.lock:
            handle.session.sync()
    except (UnknownProjectError, DatabaseUnavailableError):
        st.rerun()  # the full run says the project is gone, or the database
    with report_errors("Labeling"):
        (set_panel.set_panel if multi_label else query_panel.query_panel)(handle, p, annotator)


@st.fragment
def plot_fragment() -> None:
    """The pool, the boundary and the query: redrawn just after the panel."""
    if multi_label:
        with report_errors("Drawing the pool"):
            set_panel.set_pool_plot(handle, p, annotator)
        return
    query_panel.pool_plot(handle, p, annotator, show_contours)


@st.fragment
def figures_fragment() -> None:
    """How good the model is and when to stop, your recent labels and the learner's figures:
    refreshed just after the panel."""
    if multi_label:
        with report_errors("The learner's figures"):
            set_panel.set_figures(handle, p, annotator)
        return
    refresh.start_view("refresh_figures")
    # the headline first: "can I stop?" is the page's second question, after "what next?"
    stopping_panel.stopping_panel(handle, p)
    query_panel.below_the_fold(handle, p, annotator)


panel_col, plot_col = st.columns([2, 3], gap="medium")
with panel_col:
    panel_fragment()
with plot_col:
    plot_fragment()
if not multi_label:  # its results are labeled with one class each
    with report_errors("Finding items"):
        search_panel.search_panel(handle, annotator)
figures_fragment()
follow_teammates(annotator)
