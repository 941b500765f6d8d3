"""The labeling app's entry point: the page navigation (``streamlit run app.py``).

Each page is a file in ``pages/``; their shared wiring is :mod:`rlscore.ui`. Every page has a
link of its own: ``/`` (Label), ``/tune``, ``/compare``, ``/data``, each also with
``?project=<name>``. Layout and wiring only; the engine is ``rlscore``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

PAGES = Path(__file__).resolve().parent / "pages"

st.set_page_config(page_title="rlscore", page_icon=":material/label:", layout="wide")
navigation = st.navigation(
    [
        st.Page(PAGES / "label.py", title="Label", icon=":material/label:", default=True),
        st.Page(PAGES / "tune.py", title="Tune", icon=":material/tune:", url_path="tune"),
        st.Page(
            PAGES / "compare.py", title="Compare", icon=":material/monitoring:", url_path="compare"
        ),
        st.Page(PAGES / "data.py", title="Data", icon=":material/database:", url_path="data"),
    ]
)
navigation.run()
