"""Persistent storage of projects and of their labeling event logs.

:class:`LabelStore` is the interface the sessions use; :class:`SQLiteLabelStore` is the
embedded default (``$RLSCORE_DB`` names the file).
"""

from rlscore.storage.base import LabelStore
from rlscore.storage.events import EVENT_KINDS, Event, StaleActionError, UnknownProjectError
from rlscore.storage.sqlite import DB_ENV, SQLiteLabelStore, default_db_path, open_store

__all__ = [
    "DB_ENV",
    "EVENT_KINDS",
    "Event",
    "LabelStore",
    "SQLiteLabelStore",
    "StaleActionError",
    "UnknownProjectError",
    "default_db_path",
    "open_store",
]
