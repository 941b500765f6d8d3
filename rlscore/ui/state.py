"""Streamlit wiring shared by the app's pages: the label store, the cached labeling
session and the sidebar that chooses it.

Layout and wiring only: every computation lives in ``rlscore``. This module sits at the top
level (next to ``app.py``) because Streamlit treats every file in ``pages/`` as a page.

State model
-----------
``st.session_state["params"]`` is the one source of truth for the current project and
learner settings (a plain dict, so it survives page switches, unlike widget state). Sidebar
widgets are seeded from it and write back to it; the Tune page's "Apply to session" writes
to it as well.

The heavy state — the pool kernel and the query engine inside a
:class:`rlscore.sessions.session.LabelingSession` — is cached with ``st.cache_resource`` per
(database, project, strategy, kernel, σ, λ, class weights), shared by every browser tab, and
guarded by a lock. The label log in the database is the truth: every run calls
``session.sync()`` to replay events written by other tabs or processes.
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from rlscore.core.kernels import GRAPH_KERNELS, VECTOR_KERNELS
from rlscore.data.samples import ensure_sample_projects, list_samples
from rlscore.sessions import LabelingSession
from rlscore.storage import open_store
from rlscore.viz import figures

STRATEGY_LABELS = {
    "arls": "ARLS (active RLS)",
    "arls-weighted": "ARLS, weighted & bias-corrected",
    "aopt-klr": "A-optimal KLR",
    "uncertainty": "Uncertainty sampling",
    "entropy": "Entropy sampling",
    "random": "Random",
}
KERNELS = VECTOR_KERNELS + GRAPH_KERNELS
DEFAULT_PROJECT = "two_moons"
LAM_LOG_RANGE = (-4.0, 3.0)
SIGMA_LOG_RANGE = (-2.0, 2.0)


@dataclass
class SessionHandle:
    """A cached labeling session and the lock that serialises its use across tabs."""

    session: LabelingSession
    lock: threading.RLock = field(default_factory=threading.RLock)
    #: derived data that depends only on the project (e.g. the 2-D projection of the pool)
    cache: dict = field(default_factory=dict)


def db_path() -> str | None:
    """The label database: ``RLSCORE_DB`` if set, else the store's default."""
    return os.environ.get("RLSCORE_DB") or None


@st.cache_resource(show_spinner=False)
def _store(path: str | None):
    store = open_store(path)
    ensure_sample_projects(store)
    return store


def get_store():
    """The label store for this server (opened once, sample projects created on first use)."""
    return _store(db_path())


@st.cache_resource(max_entries=2, show_spinner="Building the kernel and the query engine…")
def _session(
    path: str | None,
    project: str,
    uid: int | None,
    strategy: str,
    kernel: str,
    sigma: float,
    lam: float | str,
    class_weight: str | None,
) -> SessionHandle:
    # max_entries bounds memory: each entry holds n×n matrices (200 MB at n = 5000).
    session = LabelingSession(
        _store(path),
        project,
        strategy=strategy,
        kernel=kernel,
        sigma=sigma,
        lam=lam,
        class_weight=class_weight,
    )
    return SessionHandle(session)


def default_params(project: str) -> dict:
    """Learner settings for a project: its stored σ and λ (meta) with ARLS and an RBF kernel."""
    meta = get_store().load_project(project).meta or {}
    return {
        "project": project,
        "strategy": "arls",
        "kernel": "rbf",
        "sigma": float(meta.get("sigma") or 1.0),
        "lam": float(meta.get("lam") or 0.5),
        "lam_auto": False,
        "class_weight": meta.get("class_weight") or None,
        "annotator": os.environ.get("USER") or "annotator",
        "budget": 0,
    }


def params() -> dict:
    """The current settings (created on first use from the default project)."""
    if "params" not in st.session_state:
        projects = get_store().list_projects()
        if not projects:
            st.error("The label database holds no project: create one on the Data page.")
            st.stop()
        # a link may name the project: http://host:8501/?project=circles
        wanted = st.query_params.get("project")
        project = next(
            p for p in (wanted, DEFAULT_PROJECT, projects[0]) if p is not None and p in projects
        )
        st.session_state["params"] = default_params(project)
    return st.session_state["params"]


def update_params(**changes) -> None:
    """Change settings (e.g. from the Tune page); the sidebar shows them on its next run."""
    params().update(changes)
    st.session_state.pop("selected", None)


def effective_lam(p: dict) -> float | str:
    return "auto" if p["lam_auto"] else float(p["lam"])


def get_session(p: dict | None = None) -> SessionHandle:
    """The cached session for the current settings, synchronised with the database."""
    p = params() if p is None else p
    handle = _session(
        db_path(),
        p["project"],
        # a project deleted and uploaded again under the same name gets a new uid
        get_store().project_uid(p["project"]),
        p["strategy"],
        p["kernel"],
        float(p["sigma"]),
        effective_lam(p),
        p["class_weight"],
    )
    with handle.lock:
        s = handle.session
        s.sync()
    return handle


def _identity(value):
    return value


def log_position(value: float, bounds: tuple[float, float]) -> float:
    """Slider position (log₁₀, 0.01 steps) of a positive value, clamped to the slider's range.

    Values outside the range (e.g. an automatic λ of 1e-6) keep their exact value in the
    params; only the slider shows the nearest end.
    """
    return min(max(round(math.log10(value), 2), bounds[0]), bounds[1])


#: sidebar parameter -> (params value -> widget value, widget value -> params value)
_CONVERT = {
    "sigma": (lambda v: log_position(v, SIGMA_LOG_RANGE), lambda x: float(10**x)),
    "lam": (lambda v: log_position(v, LAM_LOG_RANGE), lambda x: float(10**x)),
    "class_weight": (lambda v: v or "none", lambda w: None if w == "none" else w),
    "annotator": (_identity, lambda t: t.strip() or "annotator"),
    "budget": (_identity, int),
}


def _bind(name: str) -> dict:
    """Widget keyword arguments tying a sidebar widget to ``params()[name]``.

    The widget is re-seeded from the params on every run and writes back only when the user
    changes it (``on_change``). Widget state alone would not survive a page switch, and a
    slider on a log scale would round exact values such as σ = 1.7 from the project.
    """
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
    """Sidebar project choice; switching project resets the settings to its defaults."""
    p = params()
    projects = get_store().list_projects()
    if not projects:
        st.error("The label database holds no project: create one on the Data page.")
        st.stop()
    if p["project"] not in projects:  # deleted meanwhile (e.g. on the Data page)
        st.session_state["params"] = p = default_params(projects[0])
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
    """Sidebar controls for strategy, kernel, σ, λ, class weights, annotator and budget."""
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
    sb.number_input("Labeling budget (0 = none)", min_value=0, step=10, **_bind("budget"))
    return p


def decision_grid(handle: SessionHandle, xy, resolution: int = 70):
    """Decision values on a grid over the 2-D pool, for drawing the boundary.

    Exact (``engine.decision_function_at``) when the engine can score new points; otherwise
    (graph kernels, KLR) the pool values interpolated. Cached until the labels change.
    """
    s = handle.session
    state = (s.last_event_id, id(s.engine), resolution)
    cached = handle.cache.get("grid")
    if cached is not None and cached[0] == state:
        return cached[1]
    xs, ys, points = figures.grid_points(xy, resolution)
    F = None
    at = getattr(s.engine, "decision_function_at", None)
    if at is not None:
        try:
            values = np.asarray(at(points))
            F = values.reshape((len(ys), len(xs)) + values.shape[1:])
        except ValueError:  # graph kernels are defined on the pool only
            F = None
    if F is None:
        F = figures.interpolated_surface(xy, s.engine.decision_function(), xs, ys)
    handle.cache["grid"] = (state, (xs, ys, F))
    return xs, ys, F
