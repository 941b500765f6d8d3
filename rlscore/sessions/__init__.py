"""Labeling sessions: a query strategy driven by a project's persistent event log.

Rooms: :mod:`~rlscore.sessions.state` (the state as a function of the log: label log, replay,
engine, automatic λ, LOO refit, snapshots, settings), :mod:`~rlscore.sessions.actions` (the
session that writes events, undo, dwell, review, the positives-only start),
:mod:`~rlscore.sessions.team` (claims, hand-out, overlap, agreement, permissions, audit),
:mod:`~rlscore.sessions.views` (what a session shows, exports), :mod:`~rlscore.sessions.stopping`
(the accuracy estimate and when to stop) and :mod:`~rlscore.sessions.cluster` (cluster-backed
projects).
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
