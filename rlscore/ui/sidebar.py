"""The sidebar: the project choice and the learner's settings, bound to :func:`params`.

Each widget is re-seeded from the params on every run and writes back only when the user
changes it (``on_change``). Widget state alone would not survive a page switch, and a slider
on a log scale would round exact values such as σ = 1.7 from the project.
"""

from __future__ import annotations

import streamlit as st

from rlscore.core.kernels import GRAPH_KERNELS, VECTOR_KERNELS
from rlscore.data.samples import list_samples
from rlscore.ui.params import LAM_LOG_RANGE, SIGMA_LOG_RANGE, default_params, log_position, params
from rlscore.ui.store import get_store
from rlscore.ui.strategies import STRATEGY_LABELS

KERNELS = VECTOR_KERNELS + GRAPH_KERNELS


def _identity(value):
    return value


#: sidebar parameter -> (params value -> widget value, widget value -> params value)
_CONVERT = {
    "sigma": (lambda v: log_position(v, SIGMA_LOG_RANGE), lambda x: float(10**x)),
    "lam": (lambda v: log_position(v, LAM_LOG_RANGE), lambda x: float(10**x)),
    "class_weight": (lambda v: v or "none", lambda w: None if w == "none" else w),
    "annotator": (_identity, lambda t: t.strip() or "annotator"),
    "budget": (_identity, int),
}


def _bind(name: str) -> dict:
    """Widget keyword arguments tying a sidebar widget to ``params()[name]``."""
    key = f"w_{name}"
    to_widget = _CONVERT.get(name, (_identity, _identity))[0]
    st.session_state[key] = to_widget(params()[name])
    return {"key": key, "on_change": _changed, "args": (name,)}


def _changed(name: str) -> None:
    from_widget = _CONVERT.get(name, (_identity, _identity))[1]
    params()[name] = from_widget(st.session_state[f"w_{name}"])
    st.session_state.pop("selected", None)


def _project_changed() -> None:
    annotator = params()["annotator"]
    st.session_state["params"] = p = default_params(st.session_state["w_project"])
    p["annotator"] = annotator
    st.session_state.pop("selected", None)


def project_selector() -> str:
    """Sidebar project choice; switching project resets the settings to its defaults.

    Returns
    -------
    str
        The current project.
    """
    p = params()
    projects = get_store().list_projects()
    if not projects:
        st.error("The label database holds no project: create one on the Data page.")
        st.stop()
    if p["project"] not in projects:  # deleted meanwhile (e.g. on the Data page)
        st.session_state["params"] = p = default_params(projects[0])
    if st.query_params.get("project") != p["project"]:
        # the address bar names the project, so the link can be shared or bookmarked
        st.query_params["project"] = p["project"]
    samples = set(list_samples())
    st.session_state["w_project"] = p["project"]
    st.sidebar.selectbox(
        "Project",
        projects,
        key="w_project",
        on_change=_project_changed,
        format_func=lambda name: name if name in samples else f"{name} (uploaded)",
        help="Bundled samples and the projects uploaded on the Data page.",
    )
    return p["project"]


def learner_sidebar() -> dict:
    """Sidebar controls for strategy, kernel, σ, λ, class weights, annotator and budget.

    Returns
    -------
    dict
        The current settings (:func:`rlscore.ui.params.params`).
    """
    p = params()
    sb = st.sidebar
    sb.selectbox(
        "Strategy",
        list(STRATEGY_LABELS),
        format_func=STRATEGY_LABELS.__getitem__,
        **_bind("strategy"),
    )
    sb.selectbox(
        "Kernel",
        list(KERNELS),
        help="Graph kernels (regularized, diffusion, …) are built on a 6-nearest-neighbour "
        "graph of the pool.",
        **_bind("kernel"),
    )
    sb.slider(
        "σ (log₁₀)",
        *SIGMA_LOG_RANGE,
        step=0.05,
        disabled=p["kernel"] != "rbf",
        help="RBF width: k(x, z) = exp(−‖x − z‖² / (2σ²)).",
        **_bind("sigma"),
    )
    sb.caption(f"σ = {p['sigma']:.4g}")
    sb.toggle(
        "λ auto (LOO)",
        help="Choose λ by exact leave-one-out error on the labeled points "
        "(re-chosen at 4, 8, 16, … labels).",
        **_bind("lam_auto"),
    )
    sb.slider(
        "λ (log₁₀)",
        *LAM_LOG_RANGE,
        step=0.05,
        disabled=p["lam_auto"],
        help="Regularisation: RLS solves (K + λ A⁻¹) c = y.",
        **_bind("lam"),
    )
    sb.caption("λ = auto (LOO)" if p["lam_auto"] else f"λ = {p['lam']:.4g}")
    sb.radio(
        "Class weights",
        ["none", "balanced"],
        horizontal=True,
        help="Balanced weights equalise the classes (for imbalanced data).",
        **_bind("class_weight"),
    )
    sb.text_input("Annotator", **_bind("annotator"))
    sb.number_input(
        "Labeling budget (0 = none)",
        min_value=0,
        step=10,
        help="This tab's budget: other tabs on the same project keep their own.",
        **_bind("budget"),
    )
    return p
