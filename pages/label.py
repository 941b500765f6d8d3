"""Label page: the learner proposes, the human labels (the app's default page, at ``/``).

Layout and wiring only; the engine is ``rlscore``, the shared wiring ``rlscore.ui``.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import streamlit as st

from rlscore.ui import plane as pool_plane
from rlscore.ui.flash import flash, show_flash
from rlscore.ui.sidebar import learner_sidebar, project_selector
from rlscore.ui.store import get_session
from rlscore.ui.strategies import STRATEGY_LABELS
from rlscore.viz import figures
from rlscore.viz.geometry import image_array

project_selector()
p = learner_sidebar()
show_contours = st.sidebar.toggle("Confidence contours (f = ±0.5)", key="show_contours")

try:
    handle = get_session(p)
except (ValueError, KeyError, MemoryError) as exc:
    st.error(
        f"Cannot start labeling **{p['project']}** with these settings: {exc}\n\n"
        "Choose another strategy, kernel or project in the sidebar."
    )
    st.stop()

s = handle.session
# the budget is this tab's own: passed to the shared session's methods, never stored on it
tab_budget = int(p["budget"])  # 0: no budget
project = s.project
n_pool = project.n
class_names = (project.meta or {}).get("class_names") or {}


def _class_text(c) -> str:
    return class_names.get(str(c)) or str(c)


# -- actions (callbacks run before the page is drawn, so it shows their result) -------------
def _deselect() -> None:
    st.session_state.pop("selected", None)


def _seconds_on(i: int) -> float | None:
    shown = st.session_state.get("shown")
    if shown and shown[0] == (p["project"], i):
        return round(time.monotonic() - shown[1], 3)
    return None


def _act(action, *args) -> None:
    """Run a session action under the lock, reporting refusals instead of crashing."""
    with handle.lock:
        s.annotator = p["annotator"]
        try:
            action(*args)
        except ValueError as exc:
            flash("warning", str(exc))
    _deselect()


def _label(i: int, label) -> None:
    _act(lambda: s.label(i, label, seconds=_seconds_on(i), annotator=p["annotator"]))


def _skip(i: int) -> None:
    _act(s.skip, i)


def _undo() -> None:
    _act(s.undo)


def _auto_label(n: int) -> None:
    def run():
        done = s.auto_label(n, budget=tab_budget)
        flash("success", f"Auto-labeled {done} points with the truth.")

    _act(run)


def _on_select(key: str) -> None:
    state = st.session_state.get(key)
    points = state["selection"]["points"] if state else []
    i = figures.clicked_index(points[0]) if points else None
    if i is not None:
        # A new chart key drops plotly's own selection, which would dim the other points.
        # Only here: an unchanged key lets the browser update the chart in place (fast).
        st.session_state["plot_gen"] = st.session_state.get("plot_gen", 0) + 1
        st.session_state["selected"] = i


# -- state for this run -------------------------------------------------------------------
with handle.lock:
    engine = s.engine
    labels = s.labels
    skipped = s.skipped
    proposal = s.query(budget=tab_budget)
    budget_left = s.budget_left(tab_budget)
    proba = np.asarray(engine.predict_proba())
    predicted = np.asarray(engine.predict())
    risk_history = list(s.risk_history)
    risk_name, risk_help = s.risk_name, s.risk_help
    validation = s.validation_error()
    balanced = s.validation_error(balanced=True)
    validation_history = list(s.validation_history) if project.truth is not None else None
    stopping = s.stopping()
    lam_in_effect = s.lam_
    selected = st.session_state.get("selected")
    if selected is not None and not 0 <= selected < n_pool:
        selected = None
    selected_score = None
    if selected is not None and selected not in labels:
        selected_score = float(np.asarray(engine.scores())[selected])
classes = [c.item() if hasattr(c, "item") else c for c in engine.classes_]
confidence = proba.max(axis=1)
query = proposal[0] if proposal else None
target = selected if selected is not None else query

show_flash()

# -- header & progress --------------------------------------------------------------------
st.title(f"Label · {project.name}")
if project.meta.get("description"):
    st.caption(project.meta["description"])
goal = min(tab_budget, n_pool) if tab_budget else n_pool
st.progress(min(len(labels) / goal, 1.0), text=f"Labeled {len(labels)} of {goal}")
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

plot_col, panel_col = st.columns([3, 2], gap="medium")

# -- the pool -----------------------------------------------------------------------------
with plot_col:
    plane = pool_plane.projection(handle)
    grid = None
    if not plane.is_pca and labels:
        with handle.lock:
            grid = pool_plane.decision_grid(handle, plane.xy)
    fig = figures.pool_figure(
        plane.xy,
        classes,
        labels,
        predicted,
        confidence,
        query=query,
        selected=selected,
        skipped=sorted(skipped),
        axis_titles=plane.axis_titles,
        grid=grid,
        confidence_contours=show_contours,
    )
    key = f"pool_{st.session_state.get('plot_gen', 0)}"
    st.plotly_chart(
        fig,
        key=key,
        on_select=lambda: _on_select(key),
        selection_mode="points",
        config={"displaylogo": False, "scrollZoom": True},
    )
    if plane.is_pca:
        st.caption(
            f"**PCA projection** of the {project.X.shape[1]} features onto the first two "
            "principal axes; no decision boundary is drawn in a projection. Star: the next "
            "query. Click any point to label it instead."
        )
    else:
        st.caption(
            "Black line: decision boundary f = 0. Star: the next query. Faint points are "
            "tinted by their predicted class, stronger when more confident. "
            "Click any point to label it instead."
        )

# -- the query panel ----------------------------------------------------------------------
with panel_col:
    if target is None:
        reached = budget_left == 0
        reason = "the budget is reached" if reached else "no point is left"
        st.success(f"Done: {reason}. Undo, raise the budget or pick a point in the plot.")
    else:
        ident = project.ids[target]
        if selected is not None:
            st.subheader(f"Selected point #{target}")
            st.caption(f"id {ident} · picked in the plot (the query is #{query})")
            st.button("Back to the query", on_click=_deselect, key="back")
        else:
            st.subheader(f"Next query: point #{target}")
            st.caption(f"id {ident} · proposed by {STRATEGY_LABELS[p['strategy']]}")
        if st.session_state.get("shown", (None,))[0] != (p["project"], target):
            st.session_state["shown"] = ((p["project"], target), time.monotonic())

        shape = project.meta.get("image_shape")
        if shape:
            st.image(
                image_array(project.X[target], shape),
                caption=f"point #{target}, {shape[0]}×{shape[1]} image",
                width=160,
            )
        values = pd.DataFrame({"feature": project.feature_names, "value": project.X[target]})
        with st.expander("Feature values", expanded=len(values) <= 12):
            # a static table: much lighter in the browser than the interactive grid
            st.table(values.set_index("feature"))

        a, b = st.columns(2)
        a.metric(
            "Prediction",
            _class_text(
                predicted[target].item()
                if hasattr(predicted[target], "item")
                else predicted[target]
            ),
            f"confidence {confidence[target]:.2f}",
            delta_color="off",
            delta_arrow="off",
        )
        score = proposal[1] if selected is None else selected_score
        if score is not None and np.isfinite(score):
            name = (
                "Expected risk after labeling"
                if p["strategy"].startswith("arls")
                else "Query score (lower = asked first)"
            )
            b.metric(name, f"{score:.3g}")

        verb = "Label as"
        if target in labels:
            current = _class_text(labels[target])
            st.info(f"Point #{target} is labeled **{current}**; relabel it:")
            verb = "Relabel as"
        buttons = st.columns(len(classes))
        for k, c in enumerate(classes):
            buttons[k].button(
                f"{verb} {_class_text(c)}",
                key=f"label_{k}",
                on_click=_label,
                args=(target, c),
                shortcut=str(k + 1) if k < 9 else None,
                type="primary",
                width="stretch",
                disabled=target in labels and labels[target] == c,
                wrap=True,
            )
    skip_col, undo_col, _ = st.columns(3)
    if target is not None:
        skip_col.button(
            "Skip",
            key="skip",
            on_click=_skip,
            args=(target,),
            shortcut="S",
            width="stretch",
            disabled=target in labels,
        )
    undo_col.button(
        "Undo",
        key="undo",
        on_click=_undo,
        shortcut="U",
        width="stretch",
        disabled=not labels and not skipped,
    )

    st.divider()
    st.markdown("**Stopping indicator**")
    (st.success if stopping["stable"] else st.info)(stopping["message"].capitalize())
    loo = stopping.get("loo_error")
    if loo is not None:
        st.caption(
            f"LOO error on the {len(labels)} labeled points: {loo:.1%} "
            f"(class-balanced {stopping['loo_balanced_error']:.1%})."
        )
    st.markdown(f"**{risk_name} after each label**")
    if len(risk_history) > 1:
        st.plotly_chart(
            figures.risk_history_figure(risk_history, validation_history, risk_name=risk_name),
            config={"displaylogo": False},
            key="risk_history",
        )
    else:
        st.caption("No label yet.")

    if project.truth is not None:
        st.divider()
        c1, c2 = st.columns([1, 1], vertical_alignment="bottom")
        n_auto = c1.number_input(
            "Auto-label the next N", min_value=1, max_value=n_pool, value=10, key="n_auto"
        )
        c2.button(
            f"Auto-label {int(n_auto)}",
            key="auto",
            help="Label the next queries with the ground truth (an oracle), as a demo.",
            on_click=_auto_label,
            args=(int(n_auto),),
            disabled=query is None,
        )
