"""Labeling sessions: a query strategy driven by a project's persistent event log.

One module per idea: :mod:`~rlscore.sessions.log` (the event fold), :mod:`~rlscore.sessions.engine`
(the strategy and its pool kernel), :mod:`~rlscore.sessions.auto_lam` (the automatic λ),
:mod:`~rlscore.sessions.loo` (RLS refitted on the labels), :mod:`~rlscore.sessions.diagnostics`
(histories, stopping indicator), :mod:`~rlscore.sessions.snapshots` (the state cache),
:mod:`~rlscore.sessions.export` (CSV/JSON), :mod:`~rlscore.sessions.settings` (a project's
settings in the database), :mod:`~rlscore.sessions.undo` (an annotator's own undo) and
:mod:`~rlscore.sessions.session` (the session).
"""

from rlscore.sessions.engine import PoolTooLargeError
from rlscore.sessions.export import export_labels
from rlscore.sessions.log import LabelLog
from rlscore.sessions.session import LabelingSession
from rlscore.sessions.settings import project_settings, save_project_settings
from rlscore.sessions.undo import undo_last

__all__ = [
    "LabelLog",
    "LabelingSession",
    "PoolTooLargeError",
    "export_labels",
    "project_settings",
    "save_project_settings",
    "undo_last",
]
