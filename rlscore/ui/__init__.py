"""The Streamlit layer: wiring shared by ``app.py`` and the pages in ``pages/`` (the only
Streamlit imports of the package).

One module per idea: :mod:`~rlscore.ui.shell.store` (the label store and the cached sessions),
:mod:`~rlscore.ui.shell.params` (the current settings), :mod:`~rlscore.ui.shell.sidebar` (the
widgets that choose them), :mod:`~rlscore.ui.shell.strategy_names` (what the pages call strategies
and their risk figures), :mod:`~rlscore.ui.label.pool_picture` (the pool's picture cached per
session) and :mod:`~rlscore.ui.shell.flash` (messages shown after a rerun).
"""
