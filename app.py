"""The labeling app's entry point: the page navigation (``streamlit run app.py``).

Each page is a file in ``pages/``; their shared wiring is :mod:`rlscore.ui`. Every page has a
link of its own: ``/`` (Label), ``/tune``, ``/compare``, ``/review``, ``/data``, each also with
``?project=<name>``. Before any page, :func:`rlscore.ui.shell.auth.gate` asks for sign-in when it is
configured (or applies the local mode's rules). Layout and wiring only; the engine is
``rlscore``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from rlscore.ui.shell.auth import gate
from rlscore.ui.shell.database_status import database_guard
from rlscore.ui.shell.navigation import app_running, page_ends
from rlscore.ui.shell.warmup import start_warmup

PAGES = Path(__file__).resolve().parent / "pages"

# the tab's icon is an emoji: Streamlit draws it as an inline (data:) SVG, while a
# ":material/…:" icon would be fetched from a public font host on every page load (issue 34)
st.set_page_config(page_title="rlscore", page_icon="🏷️", layout="wide")
# with RLSCORE_WARMUP=1, the compiled lookahead loads in the background meanwhile
start_warmup()
# less empty space above the page, so the query and its buttons fit a 1280 × 720 screen
st.html("<style>.block-container {padding-top: 2.2rem; padding-bottom: 2rem}</style>")
pages = [
    st.Page(PAGES / "label.py", title="Label", icon=":material/label:", default=True),
    st.Page(PAGES / "tune.py", title="Tune", icon=":material/tune:", url_path="tune"),
    st.Page(
        PAGES / "compare.py", title="Compare", icon=":material/monitoring:", url_path="compare"
    ),
    st.Page(PAGES / "review.py", title="Review", icon=":material/rate_review:", url_path="review"),
    st.Page(PAGES / "data.py", title="Data", icon=":material/database:", url_path="data"),
    st.Page(PAGES / "admin.py", title="Admin", icon=":material/shield_person:", url_path="admin"),
]
# a page that has nothing more to draw ends its run normally (end_page), never with st.stop: a
# stopped run keeps the previous run's fragments alive, and they could blank the browser's page
with page_ends():
    # sign-in (or the local mode's rules) before any page: a visitor not let in sees no page;
    # the gate's screen answers every page's address, so a deep link shows it without a
    # "page not found"
    with database_guard(page=False):
        gate([page.url_path for page in pages])
    # the page the address names (``/data?project=…`` too), resolved by Streamlit from the
    # link
    navigation = st.navigation(pages)
    # a label database that cannot be reached: a message and retries, not an exception; the
    # page runs marked as inside the app (a page run any other way runs this file:
    # rlscore.ui.shell.navigation)
    with database_guard(), app_running():
        navigation.run()
