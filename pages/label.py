"""Label page: the learner proposes, the human labels (the app's default page, at ``/``).

Layout and wiring only; the engine is ``rlscore``, the shared wiring ``rlscore.ui``. The query
panel and the plot are one fragment (``st.fragment``): a label reruns them, not the page.
Every label and skip is bound to the point and log version on screen
(:mod:`rlscore.ui.actions`).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rlscore.query.klr_pool import klr_regime
from rlscore.sessions.cold_start import cold_start_class
from rlscore.storage import UnknownProjectError
from rlscore.ui import actions, refresh
from rlscore.ui import plane as pool_plane
from rlscore.ui.cold_start import cold_start_panel
from rlscore.ui.errors import report_errors
from rlscore.ui.flash import show_flash
from rlscore.ui.keys import install_key_guard
from rlscore.ui.navigation import enter_through_app
from rlscore.ui.params import set_annotator
from rlscore.ui.point_view import show_point
from rlscore.ui.sidebar import annotator_input, learner_sidebar, project_selector
from rlscore.ui.store import get_session
from rlscore.ui.strategies import STRATEGY_LABELS, low_rank_note
from rlscore.ui.teammates import follow_teammates, mark_shown_version
from rlscore.ui.text import md_text
from rlscore.viz import figures

enter_through_app("")

#: label buttons per row
BUTTONS_PER_ROW = 5

project_selector()
annotator = annotator_input()
p = learner_sidebar()
show_contours = st.sidebar.toggle("Confidence contours (f = ±0.5)", key="show_contours")
install_key_guard()
refresh.install_view_refresh()
show_flash()

if not annotator:
    st.subheader(f"Label · {md_text(p['project'])}")
    with st.form("who"):
        name = st.text_input("Your name", max_chars=60, help="Written with each of your labels.")
        if st.form_submit_button("Start labeling", type="primary") and name.strip():
            set_annotator(name)
            st.rerun()
    st.caption("Asked once: your name stays in this page's link, so a reload keeps it.")
    st.stop()

handle = None
with report_errors(f"Opening project {md_text(p['project'])} with these settings"):
    handle = get_session(p)
if handle is None:
    st.info("Change the strategy, kernel, σ or λ in the sidebar, or choose another project.")
    st.button(
        "Undo my last label",
        key="undo_fallback",
        on_click=actions.undo_without_session,
        args=(p["project"], annotator),
        help="Reverts your own last label or skip (no learner needed).",
    )
    st.stop()


def class_text(c) -> str:
    """A class as the project names it."""
    return CLASS_NAMES.get(str(c)) or str(c)


def plain_classes() -> list:
    return [c.item() if hasattr(c, "item") else c for c in handle.session.engine.classes_]


def view_state(seen: int) -> str:
    """What a view shows: the log version, the point picked in the plot, the plot's key."""
    return f"{seen}|{st.session_state.get('selected')}|{st.session_state.get('plot_gen', 0)}"


@st.fragment
def query_panel() -> None:
    """The point to label and its buttons: the only part a label reruns."""
    try:
        with handle.lock:
            handle.session.sync()
    except UnknownProjectError:
        st.rerun()  # the full run picks another project and says why
    show_flash()  # what the last action reported (a label, an undo, a refusal)
    with report_errors("Labeling"):
        query_panel_view()


def query_panel_view() -> None:
    s = handle.session
    project = s.project
    budget = int(p["budget"])  # 0: none
    with handle.lock:
        seen = s.last_event_id
        mark_shown_version(project.name, seen)
        engine = s.engine
        labels = s.labels
        proposal = s.query(budget, annotator=annotator)
        waiting = s.overlap_queue(annotator) if s.overlap.k > 1 else []
        progress = s.progress()
        last_mine = s.last_action(annotator)
        regime = klr_regime(engine)
        selected = st.session_state.get("selected")
        if selected is not None and not 0 <= selected < project.n:
            selected = None
        target = selected if selected is not None else (proposal[0] if proposal else None)
        if target is not None:
            predicted = engine.predict()[target]
            confidence = float(np.max(np.asarray(engine.predict_proba())[target]))
            score = proposal[1] if selected is None else None
            if selected is not None and selected not in labels:
                score = float(np.asarray(engine.scores())[selected])
    classes = plain_classes()

    # -- header: progress of the team and of this annotator ----------------------------------
    st.subheader(f"Label · {md_text(project.name)}")
    goal = min(budget, project.n) if budget else project.n
    st.progress(min(len(labels) / goal, 1.0), text=f"Labeled {len(labels)} of {goal}")
    team = ", ".join(f"{md_text(who or 'unnamed')} {k}" for who, k in progress.items())
    st.caption(f"You ({md_text(annotator)}): {progress.get(annotator, 0)} labels · {team or '—'}")
    approximation = low_rank_note(p, project.n)
    if approximation:
        st.caption(md_text(approximation))
    if regime:
        st.info(md_text(regime))
    if s.overlap.k > 1:
        st.caption(md_text(s.overlap.describe()))

    conflict = actions.pending_conflict()
    if conflict is not None:
        st.warning(conflict["text"])
        c1, c2 = st.columns(2)
        c1.button(
            f"Relabel as {md_text(class_text(conflict['label']))} anyway",
            key=f"relabel_{conflict['newest']}",
            on_click=actions.relabel_anyway,
            args=(handle, annotator),
        )
        c2.button(
            "Keep their label", key=f"keep_{conflict['newest']}", on_click=actions.keep_theirs
        )

    positive = cold_start_class(project, labels)
    if positive is not None:  # positives only so far: Graph-OCL proposes negatives
        cold_start_panel(handle, annotator, positive, labels, seen, class_text)

    # -- the point and the buttons ---------------------------------------------------------
    if target is None:
        reached = budget and len(labels) >= budget
        reason = "the budget is reached" if reached else "no point is left"
        st.success(f"Done: {reason}. Undo, raise the budget or pick a point in the plot.")
    else:
        actions.mark_shown(project.name, target)
        if selected is not None:
            st.subheader(f"Selected point #{target}")
            st.caption(f"id {md_text(project.ids[target])} · picked in the plot")
        else:
            st.subheader(f"Next query: point #{target}")
            source = f"proposed by {STRATEGY_LABELS[p['strategy']]}"
            if target in waiting:
                source = f"a teammate labeled it; {s.overlap.k} annotators per point"
            st.caption(f"id {md_text(project.ids[target])} · {source}")
        show_point(project, target)
        score_text = ""
        if score is not None and np.isfinite(score):
            what = "expected risk" if p["strategy"].startswith("arls") else "score"
            score_text = f" · {what} {score:.3g}"
        # a point waiting for this annotator's own label is shown blind: neither a teammate's
        # label nor the prediction trained on it
        blind = target in waiting
        if not blind:
            st.caption(
                f"Predicted **{md_text(class_text(predicted))}** "
                f"(confidence {confidence:.2f}){score_text}"
            )
        if target in labels and not blind:
            st.info(f"Point #{target} is labeled **{md_text(class_text(labels[target]))}**.")
            st.caption("Relabel as:")
        else:
            st.caption("Label as (keys 1–9):")
        for row in range(0, len(classes), BUTTONS_PER_ROW):
            cols = st.columns(min(BUTTONS_PER_ROW, len(classes)))
            for k, c in enumerate(classes[row : row + BUTTONS_PER_ROW], start=row):
                cols[k - row].button(
                    md_text(class_text(c)),
                    key=actions.widget_key("label", target, seen, k),
                    on_click=actions.label,
                    args=(handle, annotator, target, c, seen),
                    shortcut=str(k + 1) if k < 9 else None,
                    type="primary",
                    width="stretch",
                    disabled=not blind and target in labels and labels[target] == c,
                )
    b1, b2, b3 = st.columns(3)
    if target is not None:
        b1.button(
            "Skip",
            key=actions.widget_key("skip", target, seen),
            on_click=actions.skip,
            args=(handle, annotator, target, seen),
            shortcut="S",
            width="stretch",
            disabled=target in labels and not blind,
        )
    b2.button(
        "Undo",
        key=actions.widget_key("undo", None, seen),
        on_click=actions.undo,
        args=(handle, annotator, last_mine.id if last_mine else -1),
        shortcut="U",
        width="stretch",
        disabled=last_mine is None,
        help="Reverts your own last label or skip.",
    )
    if selected is not None:
        b3.button("Back to query", key="back", on_click=actions.deselect, width="stretch")
    refresh.refresh_button(refresh.PANEL_REFRESH)
    refresh.marker("panel", view_state(seen))


@st.fragment
def pool_plot() -> None:
    """The pool, the boundary and the query: redrawn just after the panel."""
    refresh.start_view("refresh_plot")
    s = handle.session
    with report_errors("Drawing the pool"), handle.lock:
        seen = s.last_event_id
        labels = s.labels
        skipped = sorted(s.skipped)
        proposal = s.query(int(p["budget"]), annotator=annotator)
        proba = np.asarray(s.engine.predict_proba())
        predicted = np.asarray(s.engine.predict())
        confidence = proba.max(axis=1)
        waiting = s.overlap_queue(annotator) if s.overlap.k > 1 else []
        if proposal and proposal[0] in waiting:
            # shown blind on the panel, so here too: no teammate's label, no tint trained on it
            labels = {i: c for i, c in labels.items() if i != proposal[0]}
            confidence[proposal[0]] = np.nan
        plane = pool_plane.projection(handle)
        grid = None
        if not plane.is_pca and labels:
            grid = pool_plane.decision_grid(handle, plane)
        fig = figures.pool_figure(
            plane.xy,
            plain_classes(),
            labels,
            predicted,
            confidence,
            query=proposal[0] if proposal else None,
            selected=st.session_state.get("selected"),
            skipped=skipped,
            axis_titles=plane.axis_titles,
            grid=grid,
            confidence_contours=show_contours,
            height=430,
            class_names=CLASS_NAMES,
        )
        key = f"pool_{st.session_state.get('plot_gen', 0)}"
        st.plotly_chart(
            fig,
            key=key,
            on_select=lambda: actions.select_point(key),
            selection_mode="points",
            config={"displaylogo": False, "scrollZoom": True},
        )
        if plane.is_pca:
            what = f"PCA projection of the {s.project.X.shape[1]} features (no boundary drawn)"
        elif plane.one_feature:
            what = "One feature, against the pool index; black lines: where f = 0"
        else:
            what = "Black line: decision boundary f = 0"
        st.caption(f"{what}. Star: the next query. Click any point to label it instead.")
        if note := figures.sampling_note(fig):
            st.caption(note)
        refresh.marker("refresh_plot", view_state(seen))


@st.fragment
def below_the_fold() -> None:
    """Your recent labels and the learner's figures: refreshed just after the panel."""
    refresh.start_view("refresh_figures")
    s = handle.session
    with handle.lock:
        seen = s.last_event_id
        labels = s.labels
        skipped = s.skipped
        recent = s.recent_labels(annotator)
    classes = plain_classes()
    if recent:
        st.markdown("**Your recent labels** — change any of them:")
        for e in recent:
            c1, c2 = st.columns([1, 4], vertical_alignment="center")
            c1.caption(f"#{e.point} · id {md_text(s.project.ids[e.point])}")
            c2.segmented_control(
                f"Label of point #{e.point}",
                classes,
                default=e.label,
                format_func=lambda c: md_text(class_text(c)),
                key=actions.recent_key(e.id),
                on_change=actions.relabel_recent,
                args=(handle, annotator, e.id, e.point, e.label, seen),
                label_visibility="collapsed",
            )
    with report_errors("The learner's figures"):
        learner_figures(s, p, labels, skipped)
    refresh.marker("refresh_figures", view_state(seen))


def learner_figures(s, p: dict, labels: dict, skipped: set) -> None:
    """Risk, validation error, λ, stopping indicator and risk history (below the fold)."""
    with handle.lock:
        risk_history = list(s.risk_history)
        risk_name, risk_help = s.risk_name, s.risk_help
        validation = s.validation_error()
        balanced = s.validation_error(balanced=True)
        validation_history = list(s.validation_history) if s.project.truth is not None else None
        stopping = s.stopping()
        lam_in_effect = s.lam_
    st.divider()
    cols = st.columns(4)
    cols[0].metric(
        risk_name,
        f"{risk_history[-1]:.3g}",
        help=f"{risk_help} Not a reliable stopping signal on its own: see the stopping indicator.",
    )
    if validation is not None:
        cols[1].metric(
            "Validation error",
            f"{validation:.1%}",
            help="Error on the unlabeled pool points against the ground truth "
            f"(class-balanced: {balanced:.1%}).",
        )
    cols[2].metric(
        "λ in effect",
        f"{lam_in_effect:.3g}",
        "auto (LOO)" if p["lam_auto"] else None,
        delta_color="off",
        delta_arrow="off",
    )
    cols[3].metric("Skipped", len(skipped))
    left, right = st.columns(2, gap="medium")
    with left:
        st.markdown("**Stopping indicator**")
        (st.success if stopping["stable"] else st.info)(stopping["message"].capitalize())
        loo = stopping.get("loo_error")
        if loo is not None:
            st.caption(
                f"LOO error on the {len(labels)} labeled points: {loo:.1%} "
                f"(class-balanced {stopping['loo_balanced_error']:.1%})."
            )
        if s.project.truth is not None:
            n_pool = s.project.n
            c1, c2 = st.columns([1, 1], vertical_alignment="bottom")
            n_auto = c1.number_input(
                "Auto-label the next N",
                min_value=1,
                max_value=n_pool,
                value=min(10, n_pool),
                key="n_auto",
            )
            c2.button(
                f"Auto-label {int(n_auto)}",
                key="auto",
                help="Label the next queries with the ground truth (an oracle), as a demo.",
                on_click=actions.auto_label,
                args=(handle, int(n_auto), int(p["budget"])),
                disabled=len(labels) + len(skipped) >= n_pool,
            )
    with right:
        st.markdown(f"**{risk_name} after each label**")
        if len(risk_history) > 1:
            st.plotly_chart(
                figures.risk_history_figure(risk_history, validation_history, risk_name=risk_name),
                config={"displaylogo": False},
                key="risk_history",
            )
        else:
            st.caption("No label yet.")


CLASS_NAMES = (handle.session.project.meta or {}).get("class_names") or {}
panel_col, plot_col = st.columns([2, 3], gap="medium")
with panel_col:
    query_panel()
with plot_col:
    pool_plot()
below_the_fold()
follow_teammates(annotator)
