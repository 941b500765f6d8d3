"""The current view of a browser tab: which project, which annotator, and the project's settings.

What belongs to the tab — the project shown and, in local mode, the annotator's name — lives
in the address bar (``?project=…&annotator=…``) and in ``st.session_state``, so a reload or a
shared link opens the same view. With sign-in configured the annotator is the signed-in user
(:mod:`rlscore.ui.shell.auth`), never a typed name. What belongs to the project — strategy, kernel,
σ, λ, class weights, budget — lives in the label database (:mod:`rlscore.sessions.state.settings`),
shared by every annotator, tab and server; :func:`params` reads it on every run,
:func:`update_params` (the sidebar, Tune's "Apply") validates and saves it.
"""

from __future__ import annotations

import math

import streamlit as st

from rlscore.core.conventions.user_names import clean_name, user_key
from rlscore.sessions.state.settings import (
    SETTING_KEYS,
    project_settings,
    save_project_settings,
)
from rlscore.storage import UnknownProjectError
from rlscore.ui.shell.auth import current_user, sign_in_configured
from rlscore.ui.shell.roles import visible_projects
from rlscore.ui.shell.store import get_store

DEFAULT_PROJECT = "two_moons"
#: longest annotator name kept (it is written with every event)
MAX_NAME = 60


def current_project() -> str:
    """The tab's project: the one chosen in this tab, else the link's ``?project=``, else the
    default sample, else the first project — among those the user may read
    (:func:`~rlscore.ui.shell.roles.visible_projects`). Stops the page when there is none."""
    store = get_store()
    projects = visible_projects(store)
    if not projects:
        if store.list_projects():  # a refusal, said neutrally: nothing failed
            st.info(
                "No project on this server is open to you: each has members, and you are not "
                "one of them. Ask a project's owner to add you (Admin page), or create a "
                "project on the Data page if this server lets you."
            )
        else:
            st.error("The label database holds no project: create one on the Data page.")
        st.stop()
    previous = st.session_state.get("project")
    chosen = previous if previous in projects else None
    if previous is not None and chosen is None:
        # deleted meanwhile, or no longer readable: the page says so, the same either way
        st.session_state["project_gone"] = previous
    # a link naming several projects opens the first, in reading order, and says so
    links = st.query_params.get_all("project")
    wanted = links[0] if links else None
    if len(set(links)) > 1 and previous is None:
        st.session_state["project_several"] = links
    if wanted is not None and wanted not in projects and wanted != previous:
        # the same words whether it does not exist or is not the user's: no leak of names
        st.session_state["project_refused"] = wanted
    name = next(p for p in (chosen, wanted, DEFAULT_PROJECT, projects[0]) if p in projects)
    st.session_state["project"] = name
    return name


def set_project(name: str) -> None:
    """Show ``name`` in this tab (the address bar follows on the next run)."""
    st.session_state["project"] = name
    st.session_state.pop("selected", None)


def clean_annotator(name: object) -> str | None:
    """An annotator name as typed, at most :data:`MAX_NAME` characters, or None: the package's
    one spelling of a user, their key (:func:`~rlscore.core.conventions.user_names.user_key`:
    whitespace collapsed, control characters such as NUL removed, an e-mail address in lower
    case), so a tab opened as ``ANN@X.ORG`` is ``ann@x.org``'s, with their labels, count and
    Undo."""
    return user_key(clean_name(name, MAX_NAME)) or None


def current_annotator() -> str | None:
    """The tab's annotator: with sign-in, the signed-in user (:mod:`rlscore.ui.shell.auth`; a
    typed name or ``?annotator=`` counts for nothing); in local mode the name chosen in this
    tab, else the link's ``?annotator=``. None until the annotator is known."""
    if sign_in_configured():
        # an address is already in lower case; a subject at its issuer may not be
        return user_key(current_user()) or None
    name = st.session_state.get("annotator") or clean_annotator(st.query_params.get("annotator"))
    if name:
        st.session_state["annotator"] = name
    return name


def set_annotator(name: str) -> None:
    """Label as ``name`` in this tab from now on (kept in the address bar); ignored when
    sign-in is configured (the annotator is the signed-in user)."""
    if not sign_in_configured():
        st.session_state["annotator"] = clean_annotator(name)


def sync_address_bar() -> None:
    """Write the tab's project and, in local mode, annotator into the address bar (reload,
    bookmark, share); with sign-in, drop an ``?annotator=`` (it would mean nothing)."""
    wanted = {"project": st.session_state.get("project")}
    if sign_in_configured():
        if "annotator" in st.query_params:
            del st.query_params["annotator"]
    elif st.session_state.get("annotator"):
        wanted["annotator"] = st.session_state["annotator"]
    for key, value in wanted.items():
        if value is not None and st.query_params.get_all(key) != [value]:
            st.query_params[key] = value


def params() -> dict:
    """The tab's project and annotator with the project's saved settings.

    Returns
    -------
    dict
        ``project``, ``annotator`` (None until given) and :data:`SETTING_KEYS`.
    """
    project = current_project()
    try:
        settings = project_settings(get_store(), project)
    except UnknownProjectError:  # deleted between the two reads
        st.session_state.pop("project", None)
        return params()
    # a saved value that no longer validates (the default is in force): the sidebar says so
    st.session_state["ignored_settings"] = settings.pop("ignored", {})
    p = {"project": project, "annotator": current_annotator(), **settings}
    st.session_state["params"] = p  # this run's view, for tests and the pages' callbacks
    return p


def update_params(**changes) -> None:
    """Save changed settings of the tab's project for every annotator (sidebar, Tune).

    Raises
    ------
    ValueError
        An invalid value (nothing is saved).
    """
    settings = {k: v for k, v in changes.items() if k in SETTING_KEYS}
    if settings:
        save_project_settings(get_store(), current_project(), settings, user=current_annotator())
    st.session_state.pop("selected", None)


def log_position(value: float, bounds: tuple[float, float]) -> float:
    """Slider position (log₁₀, 0.01 steps) of a positive value, clamped to the slider's range.

    Values outside the range (e.g. an automatic λ of 1e-6) keep their exact value in the
    settings; only the slider shows the nearest end.

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


def slider_value(position: float, value: float, bounds: tuple[float, float]) -> float:
    """The value a log₁₀ slider at ``position`` stands for, next to a setting ``value``.

    An untouched slider (at ``value``'s own :func:`log_position`) keeps the exact setting,
    which may lie outside the slider's range; a moved one stands for ``10**position``.

    Parameters
    ----------
    position : float
        The slider's position (log₁₀).
    value : float
        The setting the slider started from.
    bounds : (float, float)
        The slider's range in log₁₀.

    Returns
    -------
    float
    """
    return value if position == log_position(value, bounds) else float(10**position)
