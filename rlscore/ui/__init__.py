"""The Streamlit layer: wiring shared by ``app.py`` and the pages in ``pages/`` (the only
Streamlit imports of the package).

One module per idea: :mod:`~rlscore.ui.store` (the label store and the cached sessions),
:mod:`~rlscore.ui.params` (the current settings), :mod:`~rlscore.ui.sidebar` (the widgets that
choose them), :mod:`~rlscore.ui.strategies` (what the pages call strategies and their risk
figures), :mod:`~rlscore.ui.plane` (the pool's picture cached per session) and
:mod:`~rlscore.ui.flash` (messages shown after a rerun).
"""
