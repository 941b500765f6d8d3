"""The Label page's "Find items" box: search the texts, or find points like one, and label
the results in place (cold start for rare classes, issue 22 item 4).

What a result list holds is :mod:`rlscore.sessions.views.search_results`; this module draws it.
The search itself (its kind, text and the point it started from) is kept in the tab; the list
is rebuilt from it on every run so each result shows its current label. Every class button
is bound, like the query panel's, to the point shown, the log version the list was built
from, the project's uid and the moment the list was first drawn
(:class:`rlscore.ui.label.actions.ShownPoint`): a press sooner than the minimum dwell after the
list appeared is refused (:mod:`rlscore.sessions.actions.dwell`). Texts are drawn as plain text.
"""

from __future__ import annotations

import time

import streamlit as st

from rlscore.core.conventions.json_values import plain_scalar
from rlscore.sessions.views.search_results import (
    SearchError,
    SearchResults,
    similar_points,
    text_search,
)
from rlscore.ui.label import actions
from rlscore.ui.label.point_view import show_point
from rlscore.ui.shell.errors import user_message
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import SessionHandle

#: the tab's search: (project, uid, spec, first drawn at)
_SEARCH = "item_search"


def _start(spec: tuple) -> None:
    project = st.session_state.get("project")
    st.session_state[_SEARCH] = (project, spec, None)


def _search_text() -> None:
    query = st.session_state.get("search_query", "")
    _start(("text", query, bool(st.session_state.get("search_regex"))))


def _search_like() -> None:
    _start(("like", int(st.session_state.get("search_like_point", 0))))


def clear_search() -> None:
    """Callback: forget the tab's search."""
    st.session_state.pop(_SEARCH, None)


def _results(handle: SessionHandle, annotator: str, spec: tuple) -> SearchResults:
    s = handle.session
    if spec[0] == "text":
        return text_search(s, annotator, spec[1], regex=spec[2])
    return similar_points(s, annotator, spec[1])


def search_panel(handle: SessionHandle, annotator: str) -> None:
    """The "Find items" expander: a search form and the labelable result list."""
    s = handle.session
    project = s.project
    saved = st.session_state.get(_SEARCH)
    if saved is not None and saved[0] != project.name:
        saved = None
    with st.expander("Find items", expanded=saved is not None):
        if project.texts is not None:
            with st.form("search_form", border=False):
                st.text_input("Text to find", key="search_query", max_chars=500)
                st.checkbox("regular expression", key="search_regex")
                st.form_submit_button("Search", on_click=_search_text)
        shown = st.session_state.get("shown")
        default = int(shown[0][2]) if shown and shown[0][0] == project.name else 0
        c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
        c1.number_input(
            "More like point #", 0, project.n - 1, value=default, key="search_like_point"
        )
        c2.button("More like this", on_click=_search_like)
        if saved is None:
            return
        try:
            with handle.lock:
                results = _results(handle, annotator, saved[1])
        except SearchError as exc:
            st.warning(user_message(exc))  # escaped there
            return
        shown_at = saved[2]
        if shown_at is None:  # first drawn now: the dwell counts from here
            shown_at = time.monotonic()
            st.session_state[_SEARCH] = (saved[0], saved[1], shown_at)
        _draw(handle, annotator, results, shown_at)


def _draw(handle: SessionHandle, annotator: str, results: SearchResults, shown_at: float) -> None:
    project = handle.session.project
    head = st.columns([4, 1])
    head[0].caption(md_text(f"{len(results.points)} results for {results.query}"))
    head[1].button("Clear", key="search_clear", on_click=clear_search)
    if results.empty:
        st.info("Nothing found.")
        return
    classes = [plain_scalar(c) for c in project.classes]
    for i, label in zip(results.points, results.labels, strict=True):
        with st.container(border=True):
            st.caption(f"Point #{i}")
            if label is not None:
                st.text(f"Labeled: {project.class_text(label)}")
            show_point(project, i)
            shown = actions.ShownPoint(project.name, project.uid, i, results.seen, shown_at)
            cols = st.columns(len(classes))
            for col, c in zip(cols, classes, strict=True):
                col.button(
                    md_text(project.class_text(c)),
                    key=actions.widget_key("search", i, results.seen, f"c{c}"),
                    on_click=actions.label,
                    args=(handle, annotator, shown, c),
                    disabled=label == c,
                    width="stretch",
                )


__all__ = ["clear_search", "search_panel"]
