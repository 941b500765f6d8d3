"""Labeling sessions: a query strategy driven by a project's persistent event log.

One module per idea: :mod:`~rlscore.sessions.state.label_log` (the event fold),
:mod:`~rlscore.sessions.state.engine` (the strategy and its pool kernel),
:mod:`~rlscore.sessions.state.auto_lam` (the automatic λ), :mod:`~rlscore.sessions.state.loo_refit`
(RLS refitted on the labels), :mod:`~rlscore.sessions.views.diagnostics` (histories),
:mod:`~rlscore.sessions.stopping.prediction_change` (the stopping indicator),
:mod:`~rlscore.sessions.state.snapshots` (the state cache),
:mod:`~rlscore.sessions.views.export` (CSV, JSON, JSONL, Parquet),
:mod:`~rlscore.sessions.state.settings` (a project's settings in the database),
:mod:`~rlscore.sessions.actions.undo` (an annotator's own undo),
:mod:`~rlscore.sessions.team.claims` (who is shown which point),
:mod:`~rlscore.sessions.team.overlap` (several annotators per point),
:mod:`~rlscore.sessions.actions.review` (a reviewer's decisions),
:mod:`~rlscore.sessions.team.agreement_report` (agreement between annotators),
:mod:`~rlscore.sessions.team.handout` (which point a session proposes to whom),
:mod:`~rlscore.sessions.views.session_view` (what a session shows: state, diagnostics, export) and
:mod:`~rlscore.sessions.actions.session` (the session, which writes the events).
"""

from rlscore.core.lazy.exports import lazy_exports

#: imported on first access: ``from rlscore.sessions.state.settings import …`` need not load
#: the engine, agreement statistics and exports
_EXPORTS = {
    "rlscore.sessions.team.agreement_report": (
        "AgreementReport",
        "log_agreement",
        "project_agreement",
    ),
    "rlscore.sessions.state.engine": ("PoolTooLargeError",),
    "rlscore.sessions.views.export": ("export_labels",),
    "rlscore.sessions.state.label_log": ("LabelLog",),
    "rlscore.sessions.team.overlap": ("Overlap",),
    "rlscore.sessions.actions.review": ("audit_trail", "review_point"),
    "rlscore.sessions.actions.session": ("LabelingSession",),
    "rlscore.sessions.state.settings": ("project_settings", "save_project_settings"),
    "rlscore.sessions.actions.undo": ("undo_last",),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, globals())
