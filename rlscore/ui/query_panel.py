"""How the Label page draws its views: the query panel, the pool plot and the figures.

What they show is computed below the UI (:mod:`rlscore.sessions.panel`); this module lays it
out and binds every button to what it was drawn for (:mod:`rlscore.ui.actions`).

The query panel always draws the same sequence of top-level elements (notices, header, notes,
conflict, cold start, the point, its class buttons, Skip/Undo, the markers), whatever the
state: optional parts are containers that may stay empty. When a panel with fewer elements
replaced a longer one, Streamlit kept the longer panel's tail on screen until the run ended
— once a class button of the previous point stayed under Skip/Undo, and its shortcut key
answered for a point no longer shown.
"""

from __future__ import annotations

import streamlit as st

from rlscore.core.serialization import plain_scalar
from rlscore.sessions.panel import LearnerFigures, PoolPlotState, QueryPanelState
from rlscore.ui import actions, refresh
from rlscore.ui import plane as pool_plane
from rlscore.ui.cold_start import cold_start_panel
from rlscore.ui.errors import report_errors
from rlscore.ui.flash import show_flash
from rlscore.ui.point_view import show_point
from rlscore.ui.store import SessionHandle
from rlscore.ui.strategies import STRATEGY_LABELS, low_rank_note, risk_wording
from rlscore.ui.teammates import mark_shown_version
from rlscore.ui.text import md_text
from rlscore.viz import figures

#: label buttons per row
BUTTONS_PER_ROW = 5
#: classes with a shortcut key (1–9)
MAX_KEYS = 9


def view_state(seen: int) -> str:
    """What a view shows: the log version, the point picked in the plot, the plot's key."""
    return f"{seen}|{st.session_state.get('selected')}|{st.session_state.get('plot_gen', 0)}"


def selected_point() -> int | None:
    """The point picked in the plot in this tab, if any."""
    return st.session_state.get("selected")


def key_legend(state: QueryPanelState) -> str:
    """The class each shortcut key labels, class first (e.g. ``−1 ‹key 1› · 1 ‹key 2›``)."""
    parts = [
        f"**{md_text(text)}** ‹key {k + 1}›" for k, text in enumerate(state.class_texts[:MAX_KEYS])
    ]
    return " · ".join(parts)


def query_panel(handle: SessionHandle, p: dict, annotator: str) -> None:
    """The point to label and its buttons (the body of the page's panel fragment)."""
    s = handle.session
    with handle.lock:
        state = QueryPanelState.for_annotator(s, annotator, int(p["budget"]), selected_point())
        mark_shown_version(state.project, state.seen)
        actions.mark_shown_project(state.project, state.project_uid)
        shown = None
        if state.target is not None:
            shown = actions.mark_shown(state.project, state.project_uid, state.target, state.seen)
    point_id = "" if state.target is None else f"{state.project_uid}:{state.target}"

    with st.container():  # notices: the last action's outcome, bound to the point shown
        show_flash(with_point=point_id or None)
    st.subheader(f"Label · {md_text(state.project)}")
    st.progress(
        min(state.n_labeled / max(state.goal, 1), 1.0),
        text=f"Labeled {state.n_labeled} of {state.goal}",
    )
    team = ", ".join(f"{md_text(who or 'unnamed')} {k}" for who, k in state.progress.items())
    st.caption(f"You ({md_text(annotator)}): {state.own_labels} labels · {team or '—'}")
    with st.container():
        approximation = low_rank_note(p, state.n)
        if approximation:
            st.caption(md_text(approximation))
        if state.regime:
            st.info(md_text(state.regime))
        if state.overlap_k > 1:
            st.caption(md_text(state.overlap_text))
    with st.container():
        _conflict(handle, annotator, state)
    with st.container():
        if state.cold_start_positive is not None:
            cold_start_panel(
                handle,
                annotator,
                state.cold_start_positive,
                state.labels,
                state.seen,
                s.project.class_text,
            )
    with st.container():
        _point(s, p, state)
    with st.container():
        _class_buttons(handle, annotator, state, shown)
    b1, b2, b3 = st.columns(3)
    if shown is not None:
        b1.button(
            "Skip",
            key=actions.widget_key("skip", state.target, state.seen),
            on_click=actions.skip,
            args=(handle, annotator, shown),
            shortcut="S",
            width="stretch",
            disabled=not state.can_skip,
        )
    b2.button(
        "Undo",
        key=actions.widget_key("undo", None, state.seen),
        on_click=actions.undo,
        args=(handle, annotator, -1 if state.undo_target is None else state.undo_target),
        shortcut="U",
        width="stretch",
        disabled=state.undo_target is None,
        help="Reverts your own last label or skip.",
    )
    if state.picked:
        b3.button("Back to query", key="back", on_click=actions.deselect, width="stretch")
    refresh.refresh_button(refresh.PANEL_REFRESH)
    refresh.marker("panel", view_state(state.seen), point=point_id)


def _conflict(handle: SessionHandle, annotator: str, state: QueryPanelState) -> None:
    conflict = actions.pending_conflict()
    if conflict is None or conflict.get("uid") != state.project_uid:
        return
    st.warning(conflict["text"])
    c1, c2 = st.columns(2)
    c1.button(
        f"Relabel as {md_text(handle.session.project.class_text(conflict['label']))} anyway",
        key=f"relabel_{conflict['newest']}",
        on_click=actions.relabel_anyway,
        args=(handle, annotator),
    )
    c2.button("Keep that label", key=f"keep_{conflict['newest']}", on_click=actions.keep_theirs)


def _point(s, p: dict, state: QueryPanelState) -> None:
    """The point's heading, the point itself and what the learner says about it."""
    project = s.project
    if state.target is None:
        reason = "the budget is reached" if state.budget_reached else "no point is left"
        st.success(f"Done: {reason}. Undo, raise the budget or pick a point in the plot.")
        return
    target = state.target
    if state.picked:
        st.subheader(f"Selected point #{target}")
        st.caption(f"id {md_text(project.ids[target])} · picked in the plot")
    else:
        st.subheader(f"Next query: point #{target}")
        source = f"proposed by {STRATEGY_LABELS[p['strategy']]}"
        if state.waiting:
            source = f"a teammate labeled it; {state.overlap_k} annotators per point"
        st.caption(f"id {md_text(project.ids[target])} · {source}")
    show_point(project, target)
    # a point waiting for this annotator's own label is shown blind: neither a teammate's
    # label nor the prediction trained on it
    if not state.blind:
        score = ""
        if state.score is not None:
            score = f" · score {state.score:.3g} (the strategy's ranking: lowest asked first)"
        st.caption(
            f"Predicted **{md_text(project.class_text(state.predicted))}** "
            f"(confidence {state.confidence:.2f}){score}"
        )
    if state.label_shown is not None:
        st.info(f"Point #{target} is labeled **{md_text(project.class_text(state.label_shown))}**.")
        st.caption(f"Relabel as — {key_legend(state)}")
    else:
        st.caption(f"Label as — {key_legend(state)}")


def _class_buttons(
    handle: SessionHandle,
    annotator: str,
    state: QueryPanelState,
    shown: actions.ShownPoint | None,
) -> None:
    if shown is None:
        return
    for row in range(0, len(state.classes), BUTTONS_PER_ROW):
        cols = st.columns(min(BUTTONS_PER_ROW, len(state.classes)))
        for k, c in enumerate(state.classes[row : row + BUTTONS_PER_ROW], start=row):
            cols[k - row].button(
                md_text(state.class_texts[k]),
                key=actions.widget_key("label", state.target, state.seen, k),
                on_click=actions.label,
                args=(handle, annotator, shown, c),
                shortcut=str(k + 1) if k < MAX_KEYS else None,
                type="primary",
                width="stretch",
                disabled=state.class_disabled(c),
            )


def project_gone_notice(gone: str, project: str) -> None:
    """The Label page of a tab whose project was deleted under it: no label button, a
    notice, and a deliberate way on."""
    show_flash()
    st.subheader(f"Label · {md_text(project)}")
    st.warning(
        f"Project {md_text(gone)} was deleted (in another tab or by a teammate) while this tab "
        "showed it. Nothing you pressed was saved, in it or in any other project. Choose a "
        f"project in the sidebar, or continue with {md_text(project)}."
    )
    st.button(
        f"Label {md_text(project)}",
        key="continue_with_project",
        type="primary",
        on_click=actions.continue_with,
        args=(project,),
    )


def pool_plot(handle: SessionHandle, p: dict, annotator: str, show_contours: bool) -> None:
    """The pool, the boundary and the query (the body of the page's plot fragment)."""
    refresh.start_view("refresh_plot")
    s = handle.session
    with report_errors("Drawing the pool"), handle.lock:
        view = PoolPlotState.for_annotator(s, annotator, int(p["budget"]))
        plane = pool_plane.projection(handle)
        grid = None
        if not plane.is_pca and view.labels:
            grid = pool_plane.decision_grid(handle, plane)
        fig = figures.pool_figure(
            plane.xy,
            view.classes,
            view.labels,
            view.predicted,
            view.confidence,
            query=view.query,
            selected=selected_point(),
            skipped=view.skipped,
            axis_titles=plane.axis_titles,
            grid=grid,
            confidence_contours=show_contours,
            height=430,
            class_names=s.project.class_names,
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
        if plane.is_pca and pool_plane.hovers(handle) is not None:
            what = (
                f"Map of the items: PCA projection of their {s.project.X.shape[1]} features "
                "(no boundary drawn); hover a point for its text or image name"
            )
        elif plane.is_pca:
            what = f"PCA projection of the {s.project.X.shape[1]} features (no boundary drawn)"
        elif grid is None:
            what = "No boundary yet: it is drawn (black line, f = 0) after the first label"
        elif plane.one_feature:
            what = "One feature, against the pool index; black lines: where f = 0"
        else:
            what = "Black line: decision boundary f = 0"
        st.caption(f"{what}. Star: the next query. Click any point to label it instead.")
        if note := figures.sampling_note(fig):
            st.caption(note)
        refresh.marker("refresh_plot", view_state(view.seen))


def recent_labels(handle: SessionHandle, annotator: str) -> int:
    """The annotator's recent labels, each changeable; returns the log version shown."""
    s = handle.session
    with handle.lock:
        seen = s.last_event_id
        recent = s.recent_labels(annotator)
        classes = [plain_scalar(c) for c in s.engine.classes_]
    project = s.project
    if recent:
        st.markdown("**Your recent labels** — change any of them:")
        for e in recent:
            c1, c2 = st.columns([1, 4], vertical_alignment="center")
            c1.caption(f"#{e.point} · id {md_text(project.ids[e.point])}")
            c2.segmented_control(
                f"Label of point #{e.point}",
                classes,
                default=e.label,
                format_func=lambda c: md_text(project.class_text(c)),
                key=actions.recent_key(e.id),
                on_change=actions.relabel_recent,
                args=(handle, annotator, e.id, e.point, e.label, seen),
                label_visibility="collapsed",
            )
    return seen


def learner_figures(handle: SessionHandle, p: dict) -> None:
    """Risk, validation error, λ, skips, stopping indicator and risk history."""
    s = handle.session
    with handle.lock:
        fig = LearnerFigures.of(s)
    risk_name, risk_help = risk_wording(p["strategy"])
    st.divider()
    cols = st.columns(4)
    cols[0].metric(
        risk_name,
        f"{fig.risk_history[-1]:.3g}",
        help=f"{risk_help} Not a reliable stopping signal on its own: see the stopping indicator.",
    )
    if fig.validation is not None:
        cols[1].metric(
            "Validation error",
            f"{fig.validation:.1%}",
            help="Error on the unlabeled pool points against the ground truth "
            f"(class-balanced: {fig.balanced_validation:.1%}).",
        )
    elif fig.has_truth:
        cols[1].metric(
            "Validation error", "—", help="Measured against the ground truth after the first label."
        )
    cols[2].metric(
        "λ in effect",
        f"{fig.lam:.3g}",
        "auto (LOO)" if p["lam_auto"] else None,
        delta_color="off",
        delta_arrow="off",
    )
    cols[3].metric("Skipped", fig.n_skipped)
    left, right = st.columns(2, gap="medium")
    with left:
        st.markdown("**Stopping indicator**")
        stopping = fig.stopping
        (st.success if stopping["stable"] else st.info)(stopping["message"].capitalize())
        loo = stopping.get("loo_error")
        if loo is not None:
            st.caption(
                f"LOO error on the {fig.n_labeled} labeled points: {loo:.1%} "
                f"(class-balanced {stopping['loo_balanced_error']:.1%})."
            )
        if fig.has_truth:
            c1, c2 = st.columns([1, 1], vertical_alignment="bottom")
            n_auto = c1.number_input(
                "Auto-label the next N",
                min_value=1,
                max_value=fig.n,
                value=min(10, fig.n),
                key="n_auto",
            )
            c2.button(
                f"Auto-label {int(n_auto)}",
                key="auto",
                help="Label the next queries with the ground truth (an oracle), as a demo.",
                on_click=actions.auto_label,
                args=(handle, int(n_auto), int(p["budget"])),
                disabled=fig.n_labeled + fig.n_skipped >= fig.n,
            )
    with right:
        st.markdown(f"**{risk_name} after each label**")
        if len(fig.risk_history) > 1:
            st.plotly_chart(
                figures.risk_history_figure(
                    fig.risk_history, fig.validation_history, risk_name=risk_name
                ),
                config={"displaylogo": False},
                key="risk_history",
            )
        else:
            st.caption("No label yet.")


def below_the_fold(handle: SessionHandle, p: dict, annotator: str) -> None:
    """Recent labels and the learner's figures (the body of the page's figures fragment)."""
    refresh.start_view("refresh_figures")
    seen = recent_labels(handle, annotator)
    with report_errors("The learner's figures"):
        learner_figures(handle, p)
    refresh.marker("refresh_figures", view_state(seen))


__all__ = [
    "BUTTONS_PER_ROW",
    "below_the_fold",
    "key_legend",
    "learner_figures",
    "pool_plot",
    "project_gone_notice",
    "query_panel",
    "recent_labels",
    "view_state",
]
