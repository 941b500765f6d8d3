"""How the Label page draws its views: the query panel, the pool plot and the figures.

What they show is computed below the UI (:mod:`rlscore.sessions.views.label_page`); this module lays
it out and binds every button to what it was drawn for (:mod:`rlscore.ui.label.actions`).

The query panel always draws the same sequence of top-level elements (notices, header, notes,
conflict, the point, its class buttons, Skip/Undo, cold start, the markers), whatever the
state: optional parts are containers that may stay empty. When a panel with fewer elements
replaced a longer one, Streamlit kept the longer panel's tail on screen until the run ended
— once a class button of the previous point stayed under Skip/Undo, and its shortcut key
answered for a point no longer shown.

At 1280 × 720 the point (a 600-character text scrolls in its box, a 400 × 400 image is drawn
smaller: :func:`rlscore.ui.label.point_view.show_point`), its class buttons, Skip and Undo fit on
the first screen: the headings are small (:data:`PANEL_CSS`), the cold-start helper comes after
Skip/Undo, and class names wrap on their buttons instead of being cut.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rlscore.core.conventions.counted_words import counted
from rlscore.core.conventions.json_values import plain_scalar
from rlscore.sessions.views.label_page import LearnerFigures, PoolPlotState, QueryPanelState
from rlscore.ui.figures.lazy_expander import open_expander_content
from rlscore.ui.figures.live_plot import live_plotly_chart
from rlscore.ui.label import actions, refresh
from rlscore.ui.label import pool_picture as pool_plane
from rlscore.ui.label.cold_start import cold_start_panel
from rlscore.ui.label.point_view import show_brief, show_point
from rlscore.ui.label.stopping_panel import (
    STOP_REACHED,
    go_on_count,
    labels_until_stop,
    stop_ends_labeling,
    stopped_here,
)
from rlscore.ui.label.teammates import mark_shown_version, note_taken_point
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.flash import show_flash
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import SessionHandle
from rlscore.ui.shell.strategy_names import STRATEGY_LABELS, low_rank_note, risk_wording
from rlscore.viz.figures.curves import risk_history_figure
from rlscore.viz.figures.pool_figure import pool_figure, sampling_note
from rlscore.viz.figures.pool_sampling import PoolMembers
from rlscore.viz.plane.geometry import blank_flat, margin_surfaces

#: at most this many label buttons per row
BUTTONS_PER_ROW = 5
#: classes with a shortcut key (1–9)
MAX_KEYS = 9


def view_state(seen: int) -> str:
    """What a view shows: the log version, the point picked in the plot, the plot's key and
    the tab's choices to go on after the stop rule fired
    (:func:`~rlscore.ui.label.stopping_panel.go_on_after_stop`: then the figures follow the
    panel, Auto-label's button with them)."""
    state = st.session_state
    return f"{seen}|{state.get('selected')}|{state.get('plot_gen', 0)}|{go_on_count()}"


def selected_point() -> int | None:
    """The point picked in the plot in this tab, if any."""
    return st.session_state.get("selected")


#: the query panel's own rules (constant: no user string is ever put in them). Class names
#: wrap instead of being cut with "…", between words while a word fits the button (the key
#: badge then goes below the name); the shortcut badge reads "key 1", so a class named "1"
#: cannot be taken for its key; the panel's headings are smaller, so that the item, the class
#: buttons, Skip and Undo fit at 1280 × 720.
PANEL_CSS = """
<style>
[class*="st-key-label_"] button div[data-testid="stMarkdownContainer"],
[class*="st-key-label_"] button p, .st-key-back button p {
  white-space: normal; overflow: visible; text-overflow: clip; overflow-wrap: anywhere;
}
[class*="st-key-label_"] button { height: auto; }
[class*="st-key-label_"] button span[data-has-shortcut] {
  flex-wrap: wrap; justify-content: center; row-gap: 0.15rem;
}
[class*="st-key-label_"] button kbd {
  border: 1px solid currentColor; border-radius: 0.25rem; padding: 0 0.3rem;
  white-space: nowrap; opacity: 0.9;
}
[class*="st-key-label_"] button kbd::before { content: "key\\00a0"; }
[class*="st-key-paint_"] { display: none; }
.st-key-rls_panel_flash [data-testid="stAlertContainer"] { padding: 0.5rem 0.75rem; }
.st-key-rls_panel_head h3, .st-key-rls_query_item h3 {
  font-size: 1.25rem; padding: 0.25rem 0 0.2rem 0;
}
</style>
"""
#: what the ranking score in the panel is (it is not the risk figure below the plot)
SCORE_HELP = (
    "The query strategy's ranking score of this point: the point with the lowest score is "
    "asked first. It is not the risk figure shown below the plot, which sums over the whole "
    "pool."
)


#: the quiet note on a random check (the project's ``audit_every``)
AUDIT_NOTE = (
    "random check: drawn at random from the unlabeled points, so the model's guess on it "
    "measures its accuracy without the strategy's bias; label it as any other"
)


def panel_style() -> None:
    """Inject :data:`PANEL_CSS` (takes no room on the page)."""
    st.html(PANEL_CSS)


def prediction_text(predicted_text: str, confidence: float, score: float | None) -> str:
    """The panel's caption of the learner's prediction (Markdown, the class escaped)."""
    ranking = "" if score is None else f" · score {score:.3g}"
    return f"Predicted **{md_text(predicted_text)}** (confidence {confidence:.2f}){ranking}"


def buttons_per_row(class_texts: list[str]) -> int:
    """Class buttons side by side: fewer when the names are long, so each name and its key
    badge fit on one or two lines of a button in the query panel."""
    longest = max((len(t) for t in class_texts), default=1)
    fit = 3 if longest <= 5 else 2 if longest <= 12 else 1
    return max(1, min(fit, BUTTONS_PER_ROW, len(class_texts)))


def shown_state(
    handle: SessionHandle, p: dict, annotator: str
) -> tuple[QueryPanelState, actions.ShownPoint | None, str]:
    """The panel's state for ``annotator``, its point marked as shown in this tab (what its
    buttons are bound to; None without a point) and the point's id for the page's scripts
    (``"<project uid>:<point>"``, empty without one). A point that replaces one a teammate
    took gets a notice saying so (:func:`~rlscore.ui.label.teammates.note_taken_point`)."""
    s = handle.session
    with handle.lock:
        state = QueryPanelState.for_annotator(
            s, annotator, int(p["budget"]), selected_point(), stop_ends_labeling(handle, p)
        )
        note_taken_point(s, annotator, state)
        mark_shown_version(state.project, state.seen)
        actions.mark_shown_project(state.project, state.project_uid)
        shown = None
        if state.target is not None:
            shown = actions.mark_shown(state.project, state.project_uid, state.target, state.seen)
    point_id = "" if state.target is None else f"{state.project_uid}:{state.target}"
    return state, shown, point_id


def panel_head(state: QueryPanelState, point_id: str):
    """The panel's style, the last action's notice (bound to the point shown), the heading and
    the progress; returns the heading's container, for the lines a panel adds below."""
    panel_style()
    with st.container(key="rls_panel_flash"):
        show_flash(with_point=point_id or None)
    head = st.container(key="rls_panel_head", gap="xsmall")
    with head:
        st.subheader(f"Label · {md_text(state.project)}")
        st.progress(
            min(state.n_labeled / max(state.goal, 1), 1.0),
            text=f"Labeled {state.n_labeled} of {state.goal}",
        )
    return head


def query_panel(handle: SessionHandle, p: dict, annotator: str) -> None:
    """The point to label and its buttons (the body of the page's panel fragment)."""
    s = handle.session
    state, shown, point_id = shown_state(handle, p, annotator)
    with panel_head(state, point_id):
        team = ", ".join(f"{md_text(who or 'unnamed')} {k}" for who, k in state.progress.items())
        mine = counted(state.own_labels, "label")
        st.caption(f"You ({md_text(annotator)}): {mine}" + (f" · {team}" if team else ""))
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
    with st.container(key="rls_query_item", gap="xsmall"):
        _point(s, p, state)
    with st.container(gap="xsmall"):
        _class_buttons(handle, annotator, state, shown)
    skip_undo_back(handle, annotator, state, shown)
    # below Skip/Undo, so the point and its buttons stay on the first screen
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
    if shown is not None:
        paint_ack_button(shown)
    refresh.refresh_button(refresh.PANEL_REFRESH)
    refresh.marker("panel", view_state(state.seen), point=point_id, taken=actions.presses_taken())


def paint_ack_button(shown: actions.ShownPoint) -> None:
    """The hidden button the page's script presses once the point is painted
    (:func:`rlscore.ui.label.actions.note_painted`). Its press is a run of the panel's own
    fragment, as a label is, not of a fragment of its own: Streamlit may drop one of two
    fragment runs asked for at once (:mod:`rlscore.ui.label.refresh`)."""
    st.button("Painted", key=actions.paint_key(shown), on_click=actions.note_painted, args=(shown,))


def skip_undo_back(
    handle: SessionHandle,
    annotator: str,
    state: QueryPanelState,
    shown: actions.ShownPoint | None,
) -> None:
    """The row under the class buttons: Skip (the point ``shown``), Undo (your own last
    action) and, for a point picked in the plot, Back to query."""
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


def _conflict(handle: SessionHandle, annotator: str, state: QueryPanelState) -> None:
    conflict = actions.pending_conflict()
    if conflict is None or conflict.get("uid") != state.project_uid:
        return
    st.warning(conflict["text"])
    c1, c2 = st.columns(2)
    c1.button(
        f"Relabel as {md_text(handle.session.project.label_text(conflict['label']))} anyway",
        key=f"relabel_{conflict['newest']}",
        on_click=actions.relabel_anyway,
        args=(handle, annotator),
    )
    c2.button("Keep that label", key=f"keep_{conflict['newest']}", on_click=actions.keep_theirs)


def _point(s, p: dict, state: QueryPanelState) -> None:
    """The point's heading, the point itself and what the learner says about it."""
    project = s.project
    if state.target is None and state.stop_reached:
        stopped_here(state)
        return
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
        if state.audit:
            source = "random check"
        if state.waiting:
            source = f"a teammate labeled it; {state.overlap_k} annotators per point"
        st.caption(
            f"id {md_text(project.ids[target])} · {source}",
            help=AUDIT_NOTE if state.audit else None,
        )
    show_point(project, target, compact=True)
    # a point waiting for this annotator's own label is shown blind: neither a teammate's
    # label nor the prediction trained on it
    if not state.blind:
        st.caption(
            prediction_text(project.class_text(state.predicted), state.confidence, state.score),
            help=SCORE_HELP if state.score is not None else None,
        )
    if state.label_shown is not None:
        st.info(
            f"Point #{target} is labeled **{md_text(project.class_text(state.label_shown))}**: "
            "a button below relabels it."
        )


def _class_buttons(
    handle: SessionHandle,
    annotator: str,
    state: QueryPanelState,
    shown: actions.ShownPoint | None,
) -> None:
    if shown is None:
        return
    per_row = buttons_per_row(state.class_texts)
    # a run that Streamlit interrupts can leave the previous point's buttons on screen
    # (issue 34: a third class button); they act on nothing (bound to their point), and
    # are hidden while stale so that only the point on screen has buttons
    st.html(
        '<style>.stElementContainer[data-stale="true"][class*="st-key-label_"]'
        " {display: none}</style>"
    )
    for row in range(0, len(state.classes), per_row):
        cols = st.columns(per_row, gap="small")
        for k, c in enumerate(state.classes[row : row + per_row], start=row):
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
    if s.project.meta.get("cluster"):  # the pool lives on a cluster: a sample of it, no clicks
        from rlscore.ui.label.cluster_plot import sample_pool_plot

        seen = sample_pool_plot(handle, p, annotator, stop_ends_labeling(handle, p))
        if seen is not None:
            refresh.marker("refresh_plot", view_state(seen))
        return
    with report_errors("Drawing the pool"), handle.lock:
        view = PoolPlotState.for_annotator(
            s, annotator, int(p["budget"]), stop_ends_labeling(handle, p)
        )
        plane = pool_plane.projection(handle)
        grid = None
        if not plane.is_pca and view.labels:
            grid = pool_plane.decision_grid(handle, plane)
        unlabeled = PoolMembers.split(len(plane.xy), view.labels, view.skipped).unlabeled_total
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
            grid=grid,
            confidence_contours=show_contours,
            height=430,
            class_names=s.project.class_names,
            hover=pool_plane.hovers(handle),
            density_counts=pool_plane.density_counts(handle, plane, unlabeled),
        )
        live_plotly_chart(
            fig,
            key="pool_live",
            fallback_key=f"pool_{st.session_state.get('plot_gen', 0)}",
            on_click=actions.pick_point,
            config={"displaylogo": False, "scrollZoom": True},
        )
        if plane.is_pca and pool_plane.hovers(handle) is not None:
            what = (
                f"Map of the items: PCA projection of their {s.project.X.shape[1]} features "
                "(no boundary drawn); hover a point for its text or image name"
            )
        elif plane.is_pca:
            what = f"PCA projection of the {s.project.X.shape[1]} features (no boundary drawn)"
        else:
            what = boundary_caption(grid, plane.one_feature, len(set(view.labels.values())))
        st.caption(f"{what}. Star: the next query. Click any point to label it instead.")
        if note := sampling_note(fig):
            st.caption(note)
        refresh.marker("refresh_plot", view_state(view.seen))


def boundary_caption(
    grid: tuple | None, one_feature: bool = False, labeled_classes: int = 0
) -> str:
    """What the pool plot's caption says of the boundary: only a line that is drawn.

    ``grid`` is the ``(xs, ys, F)`` passed to
    :func:`rlscore.viz.figures.pool_figure.pool_figure` (None: none). A line is drawn where a
    surface of :func:`~rlscore.viz.plane.geometry.margin_surfaces` changes sign on the grid (flat
    parts blanked, :func:`~rlscore.viz.plane.geometry.blank_flat`, as the figure does): black
    for two classes, one colour per class for more. Before that (no label yet, or labels of one
    class only) the caption says that no boundary is drawn yet; with ``labeled_classes`` ≥ 2
    it says that none falls on the plot instead, not that the labels make none.
    """
    surfaces = None if grid is None else blank_flat(margin_surfaces(grid[2]))
    drawn = surfaces is not None and any(
        np.nanmin(z, initial=np.inf) < 0 < np.nanmax(z, initial=-np.inf) for z in surfaces
    )
    if not drawn and labeled_classes >= 2:
        return (
            "No boundary on the plot: the learner's decision (f) does not change sign on the "
            "plot's grid (the boundary lies outside it or between its points)"
        )
    if not drawn:
        return (
            "No boundary yet: a line is drawn where the learner's decision changes "
            "(f = 0), once the labels make one"
        )
    if len(surfaces) > 1:
        return "Coloured lines: where each class's region ends (f = 0)"
    if one_feature:
        return "One feature, against the pool index; black lines: where f = 0"
    return "Black line: decision boundary f = 0"


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
            c1, c2 = st.columns([3, 2], vertical_alignment="center")
            with c1:  # the item, as in the panel: a text's snippet or an image's thumbnail
                show_brief(project, e.point)
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


AUTO_LABEL_HELP = "Label the next queries with the ground truth (an oracle), as a demo."
AUTO_LABEL_TEAM_HELP = (
    "Auto-labeling is a demo for projects without members: in a project with members every "
    "label comes from a member (the oracle is none)."
)
AUTO_LABEL_STOPPED_HELP = (
    f"Stopped: {STOP_REACHED}. Keep labeling anyway (in the panel above) to go on."
)


def _risk_curve(fig: LearnerFigures, risk_name: str) -> None:
    """The strategy's risk (and the validation error, with a truth column) after each label."""
    if len(fig.risk_history) < 2:
        st.caption("No label yet.")
        return
    st.plotly_chart(
        risk_history_figure(fig.risk_history, fig.validation_history, risk_name=risk_name),
        config={"displaylogo": False},
        key="risk_history",
    )


def learner_figures(handle: SessionHandle, p: dict) -> None:
    """Risk, validation error, λ, skips, auto-labeling and the risk history."""
    s = handle.session
    with handle.lock:
        fig = LearnerFigures.of(s)
        stopped = fig.has_truth and stop_ends_labeling(handle, p)
    risk_name, risk_help = risk_wording(p["strategy"])
    st.divider()
    cols = st.columns(4)
    cols[0].metric(
        risk_name,
        f"{fig.risk_history[-1]:.3g}",
        help=f"{risk_help} How good the model is: see Model accuracy above.",
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
        # when to stop is the When-to-stop panel's (rlscore.ui.label.stopping_panel), drawn above
        if fig.has_truth:
            c1, c2 = st.columns([1, 1], vertical_alignment="bottom")
            n_auto = c1.number_input(
                "Auto-label the next N",
                min_value=1,
                max_value=fig.n,
                value=min(10, fig.n),
                key="n_auto",
            )
            # the oracle is no member: in a team's project every label comes from a member
            team = bool(s.store.members(s.project_name))
            help_text = (
                AUTO_LABEL_TEAM_HELP
                if team
                else AUTO_LABEL_STOPPED_HELP
                if stopped
                else AUTO_LABEL_HELP
            )
            c2.button(
                f"Auto-label {int(n_auto)}",
                key="auto",
                help=help_text,
                on_click=actions.auto_label,
                args=(handle, int(n_auto), int(p["budget"]), labels_until_stop(handle, p)),
                disabled=team or stopped or fig.n_labeled + fig.n_skipped >= fig.n,
            )
    # closed by default: a chart redrawn at every label costs the browser more than the label
    with right, open_expander_content(f"{risk_name} after each label", "risk_curve") as shown:
        if shown:
            _risk_curve(fig, risk_name)


def below_the_fold(handle: SessionHandle, p: dict, annotator: str) -> None:
    """Recent labels and the learner's figures: the page's figures fragment after its
    When-to-stop panel (the fragment starts with ``refresh.start_view("refresh_figures")``)."""
    seen = recent_labels(handle, annotator)
    with report_errors("The learner's figures"):
        learner_figures(handle, p)
    refresh.marker("refresh_figures", view_state(seen))


__all__ = [
    "AUDIT_NOTE",
    "BUTTONS_PER_ROW",
    "below_the_fold",
    "boundary_caption",
    "buttons_per_row",
    "learner_figures",
    "paint_ack_button",
    "panel_head",
    "panel_style",
    "pool_plot",
    "prediction_text",
    "project_gone_notice",
    "query_panel",
    "recent_labels",
    "shown_state",
    "skip_undo_back",
    "view_state",
]
