"""The current settings of a browser tab: project, learner, annotator and budget.

``st.session_state["params"]`` is the one source of truth for them (a plain dict, so it
survives page switches, unlike widget state). The sidebar's widgets are seeded from it and
write back to it (:mod:`rlscore.ui.sidebar`); the Tune page's "Apply to session" writes to it
as well (:func:`update_params`).
"""

from __future__ import annotations

import math
import os

import streamlit as st

from rlscore.ui.store import get_store

DEFAULT_PROJECT = "two_moons"
LAM_LOG_RANGE = (-4.0, 3.0)
SIGMA_LOG_RANGE = (-2.0, 2.0)


def default_params(project: str) -> dict:
    """Learner settings for a project: its stored σ and λ (meta) with ARLS and an RBF kernel.

    Parameters
    ----------
    project : str
        A project of the label store.

    Returns
    -------
    dict
        Keys ``project, strategy, kernel, sigma, lam, lam_auto, class_weight, annotator,
        budget`` (budget 0: none).
    """
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
    """The current settings (created on first use: the project named in the link, else the
    default project)."""
    if "params" not in st.session_state:
        projects = get_store().list_projects()
        if not projects:
            st.error("The label database holds no project: create one on the Data page.")
            st.stop()
        # a link may name the project: http://host:8501/?project=circles, /tune?project=…
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


def log_position(value: float, bounds: tuple[float, float]) -> float:
    """Slider position (log₁₀, 0.01 steps) of a positive value, clamped to the slider's range.

    Values outside the range (e.g. an automatic λ of 1e-6) keep their exact value in the
    params; only the slider shows the nearest end.

    Parameters
    ----------
    value : float
        A positive setting such as σ or λ.
    bounds : (float, float)
        The slider's range in log₁₀.

    Returns
    -------
    float
    """
    return min(max(round(math.log10(value), 2), bounds[0]), bounds[1])
