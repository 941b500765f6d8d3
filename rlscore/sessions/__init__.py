"""Labeling sessions: a query strategy driven by a project's persistent event log.

One module per idea: :mod:`~rlscore.sessions.log` (the event fold), :mod:`~rlscore.sessions.engine`
(the strategy and its pool kernel), :mod:`~rlscore.sessions.auto_lam` (the automatic λ),
:mod:`~rlscore.sessions.loo` (RLS refitted on the labels), :mod:`~rlscore.sessions.diagnostics`
(histories, stopping indicator), :mod:`~rlscore.sessions.snapshots` (the state cache),
:mod:`~rlscore.sessions.export` (CSV, JSON, JSONL, Parquet), :mod:`~rlscore.sessions.settings`
(a project's settings in the database), :mod:`~rlscore.sessions.undo` (an annotator's own undo),
:mod:`~rlscore.sessions.claims` (who is shown which point), :mod:`~rlscore.sessions.overlap`
(several annotators per point), :mod:`~rlscore.sessions.review` (a reviewer's decisions),
:mod:`~rlscore.sessions.agreement` (agreement between annotators),
:mod:`~rlscore.sessions.handout` (which point a session proposes to whom),
:mod:`~rlscore.sessions.view` (what a session shows: state, diagnostics, export) and
:mod:`~rlscore.sessions.session` (the session, which writes the events).
"""

from rlscore.sessions.agreement import AgreementReport, log_agreement, project_agreement
from rlscore.sessions.engine import PoolTooLargeError
from rlscore.sessions.export import export_labels
from rlscore.sessions.log import LabelLog
from rlscore.sessions.overlap import Overlap
from rlscore.sessions.review import audit_trail, review_point
from rlscore.sessions.session import LabelingSession
from rlscore.sessions.settings import project_settings, save_project_settings
from rlscore.sessions.undo import undo_last

__all__ = [
    "AgreementReport",
    "LabelLog",
    "Overlap",
    "audit_trail",
    "log_agreement",
    "project_agreement",
    "review_point",
    "LabelingSession",
    "PoolTooLargeError",
    "export_labels",
    "project_settings",
    "save_project_settings",
    "undo_last",
]
