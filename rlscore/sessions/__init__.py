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

from rlscore.core.lazy_exports import lazy_exports

#: imported on first access: ``from rlscore.sessions.settings import …`` need not load
#: the engine, agreement statistics and exports
_EXPORTS = {
    "rlscore.sessions.agreement": ("AgreementReport", "log_agreement", "project_agreement"),
    "rlscore.sessions.engine": ("PoolTooLargeError",),
    "rlscore.sessions.export": ("export_labels",),
    "rlscore.sessions.log": ("LabelLog",),
    "rlscore.sessions.overlap": ("Overlap",),
    "rlscore.sessions.review": ("audit_trail", "review_point"),
    "rlscore.sessions.session": ("LabelingSession",),
    "rlscore.sessions.settings": ("project_settings", "save_project_settings"),
    "rlscore.sessions.undo": ("undo_last",),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, globals())
