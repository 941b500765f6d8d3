"""Every page runs inside ``app.py``: its sign-in gate, layout and navigation, even on a deep link.

While no script of a server has called ``st.navigation`` yet, Streamlit (1.67 too) treats an app
with a ``pages/`` directory as an automatic-pages app: a fresh server's first run of a deep
link (``/data``, ``/tune?project=…``) executes ``pages/data.py`` on its own, without
``app.py``. Each page therefore calls :func:`enter_through_app` first. ``app.py`` runs its page
inside :func:`app_running`; a page run any other way executes ``app.py`` in the same script
run instead (its gate, then its ``st.navigation``, which resolves the page from the address
with its query parameters) and stops. No ``st.switch_page`` hand-off: two page switches on a
first run once left the browser blank (its delta tree out of step with the server's runs).

A page that has nothing more to draw ends its run with :func:`end_page`, not ``st.stop``:
Streamlit forgets the fragments of the previous run only when a whole run finishes normally.
After a run ended by ``st.stop`` a fragment of the run before it (the teammates' poll, the
query panel) could run again and write at a place in the page that the shorter page no longer
has; the browser then dropped the page and stayed blank ("Bad delta path index", seen during a
database outage under load, issue 34). ``app.py`` runs everything inside :func:`page_ends`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

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


class PageEnded(BaseException):
    """Raised by :func:`end_page`; a ``BaseException`` like Streamlit's own stop, so that a
    block reporting errors (``except Exception``) lets it through."""


def end_page() -> NoReturn:
    """End this whole-page run here: nothing below is drawn, and the run still finishes
    normally (:func:`page_ends`), so the previous run's fragments are forgotten.

    Only for a page's own run (top-level page code, the sign-in gate, the outage message),
    never inside a fragment's run: there ``st.stop`` ends the fragment alone."""
    raise PageEnded


@contextmanager
def page_ends() -> Iterator[None]:
    """In ``app.py``, around the gate and the page: a run ended by :func:`end_page` finishes
    here, normally."""
    try:
        yield
    except PageEnded:
        pass


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


__all__ = ["APP", "PageEnded", "app_running", "end_page", "enter_through_app", "page_ends"]
