"""Every page runs inside ``app.py``: its sign-in gate, layout and navigation, even on a deep link.

While no script of a server has called ``st.navigation`` yet, Streamlit (1.67 too) treats an app
with a ``pages/`` directory as an automatic-pages app: a fresh server's first run of a deep
link (``/data``, ``/tune?project=…``) executes ``pages/data.py`` on its own, without
``app.py``. Each page therefore calls :func:`enter_through_app` first. ``app.py`` runs its page
inside :func:`app_running`; a page run any other way executes ``app.py`` in the same script
run instead (its gate, then its ``st.navigation``, which resolves the page from the address
with its query parameters) and stops. No ``st.switch_page`` hand-off: two page switches on a
first run once left the browser blank (its delta tree out of step with the server's runs).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import streamlit as st

#: the app's entry point, in the directory above ``pages/``
APP = "app.py"

# per script thread, not session state: a flag left over from an earlier run (or another
# session) must never let a page run without this run's gate
_running = threading.local()


@contextmanager
def app_running() -> Iterator[None]:
    """In ``app.py``: run the navigation's page inside this, so the page knows it is wrapped."""
    before = getattr(_running, "active", False)
    _running.active = True
    try:
        yield
    finally:
        _running.active = before


def enter_through_app(page_file: str) -> None:
    """Return when ``app.py`` runs this page; else run ``app.py`` here and stop the run.

    Parameters
    ----------
    page_file : str
        The calling page's ``__file__`` (a file in ``pages/``, beside which ``app.py`` lies).
    """
    if getattr(_running, "active", False):
        return
    if not st.runtime.exists():  # imported without a Streamlit server (e.g. by a subprocess)
        return
    app = Path(page_file).resolve().parent.parent / APP
    if getattr(_running, "executing_app", False):  # else each page would run the app again
        raise RuntimeError(f"{APP} runs its pages outside app_running()")
    # the same run executes the app: its gate first, then the page the address names
    code = compile(app.read_text(encoding="utf-8"), str(app), "exec")
    _running.executing_app = True
    try:
        exec(code, {"__name__": "__main__", "__file__": str(app)})
    finally:
        _running.executing_app = False
    st.stop()  # the page has run inside the app; not a second time on its own


__all__ = ["APP", "app_running", "enter_through_app"]
