"""Tune page: choose σ and λ by eye from exact leave-one-out curves on the labeled points.

Layout and wiring only: the sliders and the "Apply" buttons share the top row; the candidate
and its leave-one-out figures are :mod:`rlscore.experiments.tuning.report`'s tuning report, drawn by
:mod:`rlscore.viz.figures`. A fit or a figure that fails is reported as a message
(:mod:`rlscore.ui.shell.errors`), never as a traceback, and the sliders stay usable.
"""

from __future__ import annotations

import logging

import streamlit as st

from rlscore.experiments.tuning.report import (
    CONFIDENCE_METHODS,
    TuningModel,
    can_tune,
    tuning_report,
)
from rlscore.sessions.state.settings import LAM_LOG_RANGE, SIGMA_LOG_RANGE
from rlscore.ui.label import pool_picture as pool_plane
from rlscore.ui.shell.errors import report_errors, user_message
from rlscore.ui.shell.flash import flash, show_flash
from rlscore.ui.shell.navigation import end_page, enter_through_app
from rlscore.ui.shell.params import (
    log_position,
    params,
    slider_value,
    update_params,
)
from rlscore.ui.shell.roles import gate
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.sidebar import project_selector
from rlscore.ui.shell.store import get_session, get_store
from rlscore.viz.figures.curves import loo_curve_figure
from rlscore.viz.figures.decision_contours import add_offset_band
from rlscore.viz.figures.histograms import confidence_histogram, reliability_figure
from rlscore.viz.figures.pool_figure import pool_figure, sampling_note
from rlscore.viz.plane.geometry import grid_surface

enter_through_app(__file__)


def apply(sigma: float, lam: float) -> None:
    """Callback of the "Apply" buttons: save σ and a fixed λ for the project."""
    try:
        update_params(sigma=sigma, lam=lam, lam_auto=False)
    except Exception as exc:  # a callback's exception would be a traceback on the page
        logging.getLogger("rlscore.ui").exception("applying σ = %g, λ = %g failed", sigma, lam)
        flash("error", f"Not applied: {user_message(exc)}")
    else:
        flash("success", f"Applied σ = {sigma:.4g}, λ = {lam:.4g} to the session.")


project_selector()
p = params()
st.title(f"Tune σ and λ · {md_text(p['project'])}")
show_flash()
handle = None
with report_errors(f"Opening project {md_text(p['project'])} with these settings"):
    handle = get_session(p)
if handle is None:
    st.info(
        "Change the strategy, kernel, σ, λ or class weights in the Label page's sidebar, or "
        "choose another project."
    )
    end_page()
s = handle.session
project = s.project
if project.multi_label:  # the LOO curves are of one class per point
    st.info("Tune (the leave-one-out curves over λ): not available for multi-label projects yet.")
    end_page()
with handle.lock:
    labels = s.labels
    lam_session = s.lam_

model = TuningModel.for_settings(p["strategy"], p["kernel"], p["class_weight"])
kernel, class_weight = model.kernel, model.class_weight
graph_note = (
    f" (the session's {p['kernel']} graph kernel lives on the pool only)"
    if model.replaces_graph_kernel
    else ""
)
st.caption(
    f"RLS with the {kernel} kernel{graph_note}"
    f", class weights {class_weight or 'none'}, fitted on the {len(labels)} labeled points. "
    "Move the sliders, then apply the setting to the labeling session."
)

# Candidate values start at the session's and are kept while the user explores.
# (widget state is dropped while another page is shown, hence the check for the keys)
if st.session_state.get("tune_for") != (p["project"], p["sigma"], lam_session) or not all(
    k in st.session_state for k in ("tune_log_sigma", "tune_log_lam")
):
    st.session_state["tune_for"] = (p["project"], p["sigma"], lam_session)
    st.session_state["tune_log_sigma"] = log_position(p["sigma"], SIGMA_LOG_RANGE)
    st.session_state["tune_log_lam"] = log_position(lam_session, LAM_LOG_RANGE)
# the top row: the candidate's σ and λ, the confidence measure, and the buttons applying them
c1, c2, c3, c4 = st.columns([2, 2, 1.2, 2], gap="medium")
log_sigma = c1.slider(
    "σ (log₁₀)",
    *SIGMA_LOG_RANGE,
    step=0.05,
    key="tune_log_sigma",
    disabled=not model.has_width,
)
log_lam = c2.slider("λ (log₁₀)", *LAM_LOG_RANGE, step=0.05, key="tune_log_lam")
method = c3.radio(
    "Confidence",
    CONFIDENCE_METHODS,
    horizontal=True,
    key="tune_method",
    help="soft: clipped (f+1)/2; gap: top two OvA scores; bayes: RLS as a "
    "Gaussian process (Paskov §3.2).",
)
# an untouched slider keeps the exact session value (which may lie outside the slider range)
sigma = slider_value(log_sigma, p["sigma"], SIGMA_LOG_RANGE)
lam = slider_value(log_lam, lam_session, LAM_LOG_RANGE)
c1.caption(f"σ = {sigma:.4g} (session {p['sigma']:.4g})")
c2.caption(f"λ = {lam:.4g} (session {lam_session:.4g})")

enough = can_tune(labels)
report = None
if enough:
    with report_errors(f"Fitting RLS with σ = {sigma:.4g}, λ = {lam:.4g}"):
        # the curve spans the slider's whole range, the data's grid and both markers
        report = tuning_report(
            project.X,
            labels,
            sigma=sigma,
            lam=lam,
            model=model,
            lam_range=LAM_LOG_RANGE,
            marked=[lam_session],
        )
lam_auto = None if report is None else report.lam_auto

# saving settings is an owner's once the project has members (checked again when applied)
settings_gate = gate(get_store(), p["project"], p["annotator"], "settings")
c4.button(
    "Apply to session",
    type="primary",
    on_click=apply,
    args=(sigma, lam),
    key="apply",
    width="stretch",
    **settings_gate,
)
# short enough for the column at 1280 px (a longer label was cut off: issue 34)
auto_label = "Apply σ with auto λ"
c4.button(
    auto_label if lam_auto is None else f"{auto_label} = {lam_auto:.3g}",
    on_click=apply,
    args=(sigma, lam_auto),
    disabled=lam_auto is None or settings_gate["disabled"],
    help=settings_gate["help"]
    or "λ with the least leave-one-out classification error on the labeled points, within the "
    f"λ slider's range ({10 ** LAM_LOG_RANGE[0]:g} to {10 ** LAM_LOG_RANGE[1]:g}), so the "
    "sliders can show it once applied"
    + (" (shown once the candidate is fitted)" if lam_auto is None else ""),
    key="apply_auto",
    width="stretch",
)

if not enough:
    st.info(
        "Label at least 3 points from 2 classes on the Label page (or auto-label some) to "
        "see leave-one-out curves."
    )
    end_page()
if report is None:
    st.info(
        "Move the σ or λ slider above (a larger λ is numerically safer): the leave-one-out "
        "curves are drawn again once the candidate can be fitted."
    )
    end_page()

clf = report.classifier
fig = grid = conf = boundary = None
with report_errors("Drawing the candidate"):
    left, right = st.columns(2, gap="medium")
    with left:
        st.subheader("Leave-one-out error vs λ")
        st.plotly_chart(
            loo_curve_figure(
                report.curve["lam"],
                report.curve["loo_squared_error"],
                report.curve["loo_classification_error"],
                lam_current=lam,
                lam_auto=lam_auto,
                class_weighted=report.class_weighted,
            ),
            key="loo_curve",
        )
        errors = (
            f"squared {clf.loo_squared_error_:.3g}, classification "
            f"{clf.loo_classification_error_:.1%}"
        )
        if report.class_weighted:
            # a class-weighted rate is no share of the points (19.2 % with 6 of 30 wrong)
            wrong = report.loo_wrong
            errors += (
                f", both class-weighted; {wrong} of the {len(labels)} labeled points wrong "
                f"({wrong / len(labels):.1%})"
            )
        st.caption(
            f"Exact LOO on {len(labels)} labeled points. Automatic λ = {lam_auto:.4g} (largest "
            "λ with the least LOO classification error within the slider's range). At "
            f"λ = {lam:.4g}: {errors}."
        )
    with right:
        plane = pool_plane.projection(handle)
        conf = report.confidence(project.X, method)
        grid = None
        if not plane.is_pca:
            grid = grid_surface(plane.xy, clf.decision_function, 70, one_feature=plane.one_feature)
        st.subheader("Decision boundary of the candidate")
        fig = pool_figure(
            plane.xy,
            report.classes,
            labels,
            clf.predict(project.X),
            conf,
            axis_titles=plane.axis_titles,
            grid=grid,
            confidence_contours=True,
            height=420,
            class_names=project.class_names or None,
        )
        boundary = st.empty()  # drawn below, with the offsets meeting the error-rate targets
        if plane.is_pca:
            st.caption("PCA projection (no boundary drawn); tint = candidate prediction.")
        if note := sampling_note(fig):
            st.caption(note)


band = None
with report_errors("Certifying the candidate's error rates"):
    st.subheader("Error-rate targets")
    positive = None  # two classes: the second one
    if not report.binary:
        # one-vs-rest: the chosen class is class 1, every other class class 2 (its own RLS column)
        positive = st.selectbox(
            "Class (one vs rest)",
            report.classes,
            format_func=project.class_text,
            key="tune_ovr_class",
            help="Error-rate targets are for two classes: the certificate and the offsets are "
            "those of this class's one-vs-rest classifier.",
        )
    if not report.certifiable:
        st.info("Label at least 2 points of each class to certify the candidate's error rates.")
    else:
        positive_text = f"class {md_text(project.class_text(report.positive_class(positive)))}"
        if report.binary:
            negative = f"class {md_text(project.class_text(report.classes[0]))}"
        else:
            negative = "the other classes"
        e1, e2, e3 = st.columns([1, 1, 1.6], gap="medium")
        eta_fn = e1.number_input(
            "η₁: false-negative target",
            min_value=0.001,
            max_value=0.999,
            value=0.2,
            step=0.01,
            format="%.3f",
            key="tune_eta_fn",
            help=f"Largest rate of positive points ({positive_text}, f > 0) called {negative}.",
        )
        eta_fp = e2.number_input(
            "η₂: false-positive target",
            min_value=0.001,
            max_value=0.999,
            value=0.2,
            step=0.01,
            format="%.3f",
            key="tune_eta_fp",
            help=f"Largest rate of negative points ({negative}) called {positive_text}.",
        )
        moments = e3.radio(
            "Class distributions",
            ("chebyshev", "gaussian"),
            format_func={"chebyshev": "Chebyshev (any)", "gaussian": "Gaussian"}.get,
            horizontal=True,
            key="tune_moments",
            help="Chebyshev–Cantelli bounds hold for every distribution with the classes' "
            "means and covariances; Gaussian ones only for Gaussian classes (smaller).",
        )
        cert = report.certificate(moments, positive)
        b_now = cert.b + 0.0  # no "-0" for an RLS without intercept
        interval = report.offset_interval((eta_fn, eta_fp), moments, positive)
        m1, m2, m3 = st.columns([1, 1, 1.6], gap="medium")
        # short labels (cut off at 1280 px with the class in them); the classes are said below
        m1.metric("Worst-case false negatives", f"{cert.false_negative:.4g}")
        m2.metric("Worst-case false positives", f"{cert.false_positive:.4g}")
        m3.caption(
            f"False negatives: points of {positive_text} called {negative}; false positives: "
            f"points of {negative} called {positive_text}. Each is the largest share that can "
            "fall on the wrong side of the candidate's boundary (offset "
            f"b = {b_now:.4g}) for any class distributions with the labeled points' means "
            "and spreads. Measured on the points the candidate was fitted on, so optimistic."
        )
        with st.expander("How the worst case is computed"):
            st.caption(
                f"The class means lie r₁ = {cert.r[0]:.3g} and r₂ = {cert.r[1]:.3g} standard "
                "deviations (of the decision value) from the boundary. Chebyshev–Cantelli's "
                "inequality bounds the share beyond the boundary by 1/(1 + r²) for every "
                "distribution with those moments; for Gaussian classes it is Φ(−r), the "
                "normal tail."
            )
        if interval.feasible:
            lo, hi = interval.intercepts()
            inside = interval.contains(cert.b)
            # green only when the candidate itself meets the targets
            (st.success if inside else st.warning)(
                f"Offsets b in [{interval.low:.4g}, {interval.high:.4g}] (RLS intercepts "
                f"[{lo:.4g}, {hi:.4g}]) meet false negatives ≤ {eta_fn:g} and false positives "
                f"≤ {eta_fp:g}; the candidate's b = {b_now:.4g} is "
                + ("inside: it meets both." if inside else "outside: it misses a target.")
                + (
                    " Both ends are dashed on the decision boundary plot."
                    if grid is not None
                    else ""
                )
            )
            band = (interval.low, interval.high, cert.b)
            if grid is not None:
                # the chosen class's own one-vs-rest decision values
                grid = report.class_decision_grid(grid, positive)
        else:
            st.warning(interval.message)

with report_errors("Drawing the candidate"):
    if boundary is not None:
        if band is not None and grid is not None:
            add_offset_band(
                fig,
                grid,
                band[:2],
                offset=band[2],
                names=(
                    f"b = {band[0]:.3g} (false positives ≤ {eta_fp:g})",
                    f"b = {band[1]:.3g} (false negatives ≤ {eta_fn:g})",
                ),
            )
        boundary.plotly_chart(fig, key="candidate")
    if conf is not None:
        h1, h2 = st.columns(2, gap="medium")
        with h1:
            st.subheader("Confidence over the pool")
            st.plotly_chart(confidence_histogram(conf), key="confidence_hist")
            st.caption(
                f"Pool points per confidence of the candidate's prediction ({method}, as "
                "chosen above). Points at low confidence are those a label would most likely "
                "change; a pool mostly at high confidence is one the candidate has settled."
            )
        with h2:
            st.subheader("Reliability (exact LOO, labeled points)")
            st.plotly_chart(
                reliability_figure(report.reliability(method, bins=10)),
                key="reliability",
            )
            st.caption(
                "Accuracy of each labeled point's leave-one-out prediction per confidence bin: "
                "it should increase with confidence."
            )
