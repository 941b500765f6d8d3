"""The Label page of a multi-label project ("select all that apply", issue 38): the point, one
toggle button per class, Save, "None of these", Skip and Undo.

A label set is chosen, then saved as one label: the toggles (keys ``1``–``9`` for the first
nine classes) only change this tab's choice, kept per point; **Save** (or ``Enter``) stores the
chosen set and **None of these** the empty set, both through
:func:`rlscore.ui.label.actions.label`, so a set is bound to the point shown, its log version,
its project and the minimum dwell as a single label is. Save is disabled until a class is
chosen (the page's script ignores ``Enter`` then, with a note: :mod:`rlscore.ui.label.keys`), and
refuses an empty choice that reaches it anyway: one stray ``Enter`` stored a negative for every
class while the page said "Chosen: nothing yet"; **None of these** is the one way to store the
empty set. The choice starts empty: the learner's predicted set is pre-selected only when the
annotator turns on "Pre-select the prediction" (off by default — a pre-selection biases
annotators toward the model). Sets are shown as text (``a | b``), never interpreted as Markdown
or HTML.

The pool plot draws one class at a time, chosen in a select box
(:meth:`~rlscore.sessions.views.label_page.PoolPlotState.for_class`); the headline is the
micro-F1 of the predicted sets from the random checks
(:mod:`rlscore.sessions.stopping.set_accuracy`), the stop advice the ``set-agreement`` rule's
(:mod:`rlscore.ui.label_sets.set_stop_panel`).
"""

from __future__ import annotations

import streamlit as st

from rlscore.sessions.views.label_page import PoolPlotState, QueryPanelState
from rlscore.ui.label import actions, refresh
from rlscore.ui.label import pool_picture as pool_plane
from rlscore.ui.label.point_view import show_brief, show_point
from rlscore.ui.label.query_panel import (
    MAX_KEYS,
    buttons_per_row,
    learner_figures,
    paint_ack_button,
    panel_head,
    selected_point,
    shown_state,
    skip_undo_back,
    view_state,
)
from rlscore.ui.label.stopping_panel import offer_random_checks, stop_ends_labeling, stopped_here
from rlscore.ui.label_sets.set_stop_panel import set_stop_advice
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import SessionHandle
from rlscore.viz.figures.pool_figure import pool_figure

#: the session-state key of the "Pre-select the prediction" setting (off by default)
PRESELECT_KEY = "preselect_prediction"
#: the session-state key of the class the pool plot is tinted by
TINT_KEY = "tint_class"
#: the icons of a chosen and an unchosen class's toggle
CHECKED, UNCHECKED = ":material/check_box:", ":material/check_box_outline_blank:"
#: why Save stores nothing while no class is chosen
NOTHING_CHOSEN = (
    "Not saved: no class is chosen. Tick the classes that apply, or press None of these if "
    "none does."
)


def preselect_setting() -> None:
    """The sidebar's "Pre-select the prediction" toggle (off by default)."""
    st.sidebar.toggle(
        "Pre-select the prediction",
        key=PRESELECT_KEY,
        help="Start each point's choice with the learner's predicted classes. Off by "
        "default: a pre-selection pulls annotators toward the model.",
    )


def choice_key(shown: actions.ShownPoint) -> str:
    """The session-state key of the classes chosen for ``shown``'s point in its project (not
    its log version: a teammate's label of another point keeps the choice; one of this point
    makes Save ask first, as any stale label does)."""
    return f"chosen_{shown.uid}_{shown.point}"


def toggle(key: str, k: int) -> None:
    """Callback: add class position ``k`` to the choice under ``key``, or take it out."""
    chosen = set(st.session_state.get(key, ()))
    chosen ^= {k}
    st.session_state[key] = sorted(chosen)


def save(handle: SessionHandle, annotator: str, shown: actions.ShownPoint, key: str) -> None:
    """Callback: store the chosen classes as the label set of the point shown; nothing when
    none is chosen (a press that beat the redraw of a toggle; the empty set is stored by None
    of these only)."""
    classes = list(handle.session.project.classes)
    chosen = tuple(classes[k] for k in sorted(set(st.session_state.get(key, ()))))
    if not chosen:
        actions.refuse_press(NOTHING_CHOSEN)
        return
    actions.label(handle, annotator, shown, chosen)


def _start_choice(key: str, state: QueryPanelState) -> list[int]:
    """The choice of a point first drawn: empty, or the predicted set when the annotator
    asked for it (never on a point shown blind)."""
    if key not in st.session_state:
        preselect = st.session_state.get(PRESELECT_KEY) and state.predicted is not None
        start = [state.classes.index(c) for c in state.predicted] if preselect else []
        st.session_state[key] = start
    return list(st.session_state[key])


def set_panel(handle: SessionHandle, p: dict, annotator: str) -> None:
    """The point to label, its class toggles and buttons (the page's panel fragment)."""
    s = handle.session
    state, shown, point_id = shown_state(handle, p, annotator)
    panel_head(state, point_id).caption(
        "Multi-label project: choose every class that applies, then Save."
    )
    with st.container(key="rls_query_item", gap="xsmall"):
        _point(s.project, state)
    with st.container(gap="xsmall"):
        if shown is not None:
            _set_buttons(handle, annotator, state, shown)
    skip_undo_back(handle, annotator, state, shown)
    if shown is not None:
        paint_ack_button(shown)
    refresh.refresh_button(refresh.PANEL_REFRESH)
    refresh.marker("panel", view_state(state.seen), point=point_id, taken=actions.presses_taken())


def _point(project, state: QueryPanelState) -> None:
    """The point's heading, the point, the prediction (unless blind) and its current set."""
    if state.target is None and state.stop_reached:
        stopped_here(state)
        return
    if state.target is None:
        reason = "the budget is reached" if state.budget_reached else "no point is left"
        st.success(f"Done: {reason}. Undo, raise the budget or pick a point in the plot.")
        return
    target = state.target
    heading = "Selected point" if state.picked else "Next query: point"
    st.subheader(f"{heading} #{target}")
    st.caption(f"id {md_text(project.ids[target])}")
    show_point(project, target, compact=True)
    if not state.blind and state.predicted is not None:
        st.caption(f"Predicted: {md_text(project.label_text(state.predicted))}")
    if state.label_shown is not None:
        st.info(
            f"Point #{target} is labeled {md_text(project.label_text(state.label_shown))}: "
            "saving a set relabels it."
        )


def _set_buttons(
    handle: SessionHandle, annotator: str, state: QueryPanelState, shown: actions.ShownPoint
) -> None:
    """One toggle per class (primary when chosen), then Save and None of these."""
    key = choice_key(shown)
    chosen = _start_choice(key, state)
    # buttons left over from the previous point act on nothing; hidden while stale
    st.html(
        '<style>.stElementContainer[data-stale="true"][class*="st-key-label_"]'
        " {display: none}</style>"
    )
    per_row = buttons_per_row(state.class_texts)
    for row in range(0, len(state.classes), per_row):
        cols = st.columns(per_row, gap="small")
        for k in range(row, min(row + per_row, len(state.classes))):
            cols[k - row].button(
                md_text(state.class_texts[k]),
                key=actions.widget_key("label", state.target, state.seen, f"toggle{k}"),
                on_click=toggle,
                args=(key, k),
                shortcut=str(k + 1) if k < MAX_KEYS else None,
                type="primary" if k in chosen else "secondary",
                icon=CHECKED if k in chosen else UNCHECKED,
                width="stretch",
            )
    texts = [state.class_texts[k] for k in chosen]
    st.caption(f"Chosen: {md_text(' | '.join(texts)) if texts else 'nothing yet'}")
    c1, c2 = st.columns(2)
    c1.button(
        "Save",
        key=actions.widget_key("label", state.target, state.seen, "save"),
        on_click=save,
        args=(handle, annotator, shown, key),
        shortcut="Enter",
        type="primary",
        width="stretch",
        # the empty set has its own button: a stray Save must not store it
        disabled=not chosen,
        help="Store the chosen classes as this point's label (Enter)."
        if chosen
        else "Tick at least one class first; None of these stores the empty set.",
    )
    c2.button(
        "None of these",
        key=actions.widget_key("label", state.target, state.seen, "none"),
        on_click=actions.label,
        args=(handle, annotator, shown, ()),
        width="stretch",
        help="Store the empty set: no class applies to this point.",
    )


def set_pool_plot(handle: SessionHandle, p: dict, annotator: str) -> None:
    """The pool tinted by one chosen class (the page's plot fragment)."""
    refresh.start_view("refresh_plot")
    s = handle.session
    project = s.project
    chosen = st.selectbox(
        "Tint the pool by class",
        project.classes,
        key=TINT_KEY,
        # option labels are plain text (no Markdown): the name as typed, unescaped
        format_func=project.class_text,
    )
    with handle.lock:
        view = PoolPlotState.for_class(
            s, annotator, chosen, int(p["budget"]), stop_ends_labeling(handle, p)
        )
        plane = pool_plane.projection(handle)
    text = project.class_text(chosen)
    fig = pool_figure(
        plane.xy,
        view.classes,
        view.labels,
        view.predicted,
        view.confidence,
        query=view.query,
        selected=selected_point(),
        skipped=view.skipped,
        axis_titles=plane.axis_titles,
        height=430,
        class_names={"0": f"not {text}", "1": text},
        hover=pool_plane.hovers(handle),
    )
    key = f"pool_{st.session_state.get('plot_gen', 0)}"
    st.plotly_chart(
        fig,
        key=key,
        on_select=lambda: actions.select_point(key),
        selection_mode="points",
        config={"displaylogo": False, "scrollZoom": True},
    )
    st.caption(
        f"Coloured by {md_text(text)}: labeled points by whether their set holds it, the others "
        "by the learner's prediction for it (no boundary is drawn for a multi-label project). "
        "Star: the next query. Click any point to label it instead."
    )
    refresh.marker("refresh_plot", view_state(view.seen))


def recent_sets(handle: SessionHandle, annotator: str) -> int:
    """The annotator's recent label sets as text; returns the log version shown."""
    s = handle.session
    with handle.lock:
        seen = s.last_event_id
        recent = s.recent_labels(annotator)
    project = s.project
    if recent:
        st.markdown("**Your recent labels** (to change one, click its point in the plot):")
        for e in recent:
            c1, c2 = st.columns([3, 2], vertical_alignment="center")
            with c1:
                show_brief(project, e.point)
            c2.text(f"#{e.point}: {project.label_text(e.label)}")
    return seen


def headline_text(estimate) -> str:
    """The multi-label headline (Markdown of numbers only): the micro-F1 of the predicted
    sets from the random checks, or why it is not known yet."""
    if estimate is None:
        return (
            "Micro-F1 of the predicted sets: not known yet (it needs at least 5 random checks: "
            "labels drawn at random, e.g. the project's random check every k queries)."
        )
    return (
        f"Micro-F1 of the predicted sets ≈ **{estimate.estimate:.0%}** "
        f"({estimate.level:.0%} interval {estimate.low:.0%}–{estimate.high:.0%}, from "
        f"{estimate.n_checks} random checks)"
    )


def set_figures(handle: SessionHandle, p: dict, annotator: str) -> None:
    """How good the predicted sets are, recent sets and the learner's figures (the page's
    figures fragment; the headline first, as for single labels)."""
    refresh.start_view("refresh_figures")
    with handle.lock:
        estimate = handle.session.set_accuracy()
        every = handle.session.get_params()["audit_every"]
    st.markdown("**How good are the predicted sets?**")
    st.markdown(headline_text(estimate))
    if not every:  # a multi-label strategy draws no random point of its own
        st.caption("No random checks: every label is the strategy's choice.")
        offer_random_checks(st, handle)
    set_stop_advice(handle, p)
    seen = recent_sets(handle, annotator)
    learner_figures(handle, p)
    refresh.marker("refresh_figures", view_state(seen))


__all__ = [
    "NOTHING_CHOSEN",
    "headline_text",
    "PRESELECT_KEY",
    "TINT_KEY",
    "choice_key",
    "preselect_setting",
    "recent_sets",
    "save",
    "set_figures",
    "set_panel",
    "set_pool_plot",
    "toggle",
]
