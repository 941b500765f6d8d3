"""One way into the app: through ``app.py``'s ``st.navigation``, even on a deep link.

On a server where nobody has opened ``/`` yet, Streamlit does not know about ``app.py``'s
navigation and runs a deep-linked file of ``pages/`` (``/data``, ``/tune?project=…``) on its
own, in its older automatic-pages mode: without the app's page list, layout or settings. Each
page calls :func:`enter_through_app` first; in that situation it sends the browser to
``app.py``, which registers the navigation and then opens the page that was asked for, with
its query parameters (:func:`follow_deep_link`).
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st
from streamlit.errors import NoSessionContext, StreamlitAPIException

_ENTERED = "entered_through_app"
_DEEP_LINK = "deep_link"


def enter_through_app(url_path: str, app: str = "app.py") -> None:
    """Continue only when the app's navigation runs this page; else go through ``app``.

    Parameters
    ----------
    url_path : str
        The page's ``url_path`` in ``app.py`` (``""`` for the default page).
    app : str
        The app's entry point, relative to the directory ``streamlit run`` was given.
    """
    if not st.runtime.exists():  # imported without a Streamlit server (e.g. by a subprocess)
        return
    if st.session_state.get(_ENTERED):
        return
    st.session_state[_DEEP_LINK] = (url_path, dict(st.query_params.to_dict()))
    try:
        st.switch_page(app)
    except (StreamlitAPIException, NoSessionContext):  # a page run on its own: stay here
        st.session_state.pop(_DEEP_LINK, None)
        st.session_state[_ENTERED] = True


def follow_deep_link(pages: Iterable) -> None:
    """In ``app.py``, after ``st.navigation``: mark the session as entered through the app and
    open the page a deep link asked for before (:func:`enter_through_app`)."""
    st.session_state[_ENTERED] = True
    wanted = st.session_state.pop(_DEEP_LINK, None)
    if wanted is None:
        return
    url_path, query = wanted
    page = next((p for p in pages if p.url_path == url_path), None)
    if page is not None:
        st.switch_page(page, query_params=query)


__all__ = ["enter_through_app", "follow_deep_link"]
