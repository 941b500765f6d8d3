"""Tune page: choose σ and λ by eye from exact leave-one-out curves on the labeled points."""

from __future__ import annotations

import numpy as np
import streamlit as st

from rlscore.core.confidence import METHODS, loo_reliability
from rlscore.core.kernels import VECTOR_KERNELS
from rlscore.core.rls import RLSClassifier, RLSPath
from rlscore.ui import plane as pool_plane
from rlscore.ui.params import LAM_LOG_RANGE, SIGMA_LOG_RANGE, log_position, params, update_params
from rlscore.ui.sidebar import project_selector
from rlscore.ui.store import get_session
from rlscore.viz import figures
from rlscore.viz.geometry import grid_points

project_selector()
p = params()
try:
    handle = get_session(p)
except (ValueError, KeyError, MemoryError) as exc:
    st.error(f"Cannot open **{p['project']}** with the current settings: {exc}")
    st.stop()
s = handle.session
project = s.project
with handle.lock:
    labels = s.labels
    lam_session = s.lam_

st.title(f"Tune σ and λ · {project.name}")
kernel = p["kernel"] if p["kernel"] in VECTOR_KERNELS else "rbf"
class_weight = p["class_weight"] or ("balanced" if p["strategy"] == "arls-weighted" else None)
graph_note = (
    f" (the session's {p['kernel']} graph kernel lives on the pool only)"
    if kernel != p["kernel"]
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
c1, c2, c3 = st.columns([2, 2, 1])
log_sigma = c1.slider(
    "σ (log₁₀)",
    *SIGMA_LOG_RANGE,
    step=0.05,
    key="tune_log_sigma",
    disabled=kernel != "rbf",
)
log_lam = c2.slider("λ (log₁₀)", *LAM_LOG_RANGE, step=0.05, key="tune_log_lam")
method = c3.radio(
    "Confidence",
    METHODS,
    horizontal=True,
    key="tune_method",
    help="soft: clipped (f+1)/2; gap: top two OvA scores; bayes: RLS as a "
    "Gaussian process (Paskov §3.2).",
)
# an untouched slider keeps the exact session value (which may lie outside the slider range)
untouched_sigma = log_sigma == log_position(p["sigma"], SIGMA_LOG_RANGE)
untouched_lam = log_lam == log_position(lam_session, LAM_LOG_RANGE)
sigma = p["sigma"] if untouched_sigma else float(10**log_sigma)
lam = lam_session if untouched_lam else float(10**log_lam)
c1.caption(f"σ = {sigma:.4g} (session {p['sigma']:.4g})")
c2.caption(f"λ = {lam:.4g} (session {lam_session:.4g})")

idx = list(labels)
y = np.asarray(list(labels.values()))
if len(idx) < 3 or len(set(y.tolist())) < 2:
    st.info(
        "Label at least 3 points from 2 classes on the Label page (or auto-label some) to "
        "see leave-one-out curves."
    )
    st.stop()

clf = RLSClassifier(kernel=kernel, sigma=sigma, lam=lam, class_weight=class_weight)
try:
    clf.fit(project.X[idx], y)
except ValueError as exc:
    st.error(f"Cannot fit RLS on the labeled points: {exc}")
    st.stop()
# the slider's whole range, the data's own grid (where auto λ is chosen) and the two markers
grid_lams = np.union1d(
    np.union1d(np.logspace(*LAM_LOG_RANGE, 57), clf.default_lams()), [lam, lam_session]
)
curve = clf.loo_curve(grid_lams)
lam_auto = RLSPath.best_lam(clf.loo_curve(), "classification")

left, right = st.columns(2, gap="medium")
with left:
    st.subheader("Leave-one-out error vs λ")
    st.plotly_chart(
        figures.loo_curve_figure(
            curve["lam"],
            curve["loo_squared_error"],
            curve["loo_classification_error"],
            lam_current=lam,
            lam_auto=lam_auto,
        ),
        key="loo_curve",
    )
    st.caption(
        f"Exact LOO on {len(idx)} labeled points. Automatic λ = {lam_auto:.4g} (largest λ "
        f"with the least LOO classification error). At λ = {lam:.4g}: squared "
        f"{clf.loo_squared_error_:.3g}, classification {clf.loo_classification_error_:.1%}."
    )
with right:
    plane = pool_plane.projection(handle)
    conf = clf.confidence(project.X, method)
    grid = None
    if not plane.is_pca:
        xs, ys, pts = grid_points(plane.xy, 70)
        values = clf.decision_function(pts)
        grid = (xs, ys, values.reshape((len(ys), len(xs)) + values.shape[1:]))
    st.subheader("Decision boundary of the candidate")
    st.plotly_chart(
        figures.pool_figure(
            plane.xy,
            list(clf.classes_),
            labels,
            clf.predict(project.X),
            conf,
            axis_titles=plane.axis_titles,
            grid=grid,
            confidence_contours=True,
            height=420,
        ),
        key="candidate",
    )
    if plane.is_pca:
        st.caption("PCA projection (no boundary drawn); tint = candidate prediction.")

h1, h2 = st.columns(2, gap="medium")
with h1:
    st.subheader("Confidence over the pool")
    st.plotly_chart(figures.confidence_histogram(conf), key="confidence_hist")
with h2:
    st.subheader("Reliability (exact LOO, labeled points)")
    table = loo_reliability(clf, method=method, bins=10)
    st.plotly_chart(figures.reliability_figure(table), key="reliability")
    st.caption(
        "Accuracy of each labeled point's leave-one-out prediction per confidence bin: "
        "it should increase with confidence."
    )


def _apply(sigma: float, lam: float) -> None:
    update_params(sigma=sigma, lam=lam, lam_auto=False)
    st.session_state["tune_applied"] = f"Applied σ = {sigma:.4g}, λ = {lam:.4g} to the session."


a1, a2, _ = st.columns([1, 1, 2])
a1.button("Apply to session", type="primary", on_click=_apply, args=(sigma, lam), key="apply")
a2.button(
    f"Apply σ with automatic λ = {lam_auto:.3g}",
    on_click=_apply,
    args=(sigma, lam_auto),
    key="apply_auto",
)
if msg := st.session_state.pop("tune_applied", None):
    st.success(msg)
