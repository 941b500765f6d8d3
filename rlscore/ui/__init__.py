"""The Streamlit layer: wiring shared by ``app.py`` and the pages in ``pages/`` (the only
Streamlit imports of the package), in three rooms: :mod:`~rlscore.ui.shell` (what every page runs
inside: navigation, sign-in, roles, the store and cached sessions, the tab's parameters, the
sidebar, messages and errors), :mod:`~rlscore.ui.label` (the Label page's panels and the actions
bound to what was shown) and :mod:`~rlscore.ui.forms` (Admin, Review and the Data page's upload).
"""
