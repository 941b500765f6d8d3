"""Labeling sessions: a query strategy driven by a project's persistent event log."""

from rlscore.sessions.session import LabelingSession, LabelLog, PoolTooLargeError, export_labels

__all__ = ["LabelLog", "LabelingSession", "PoolTooLargeError", "export_labels"]
