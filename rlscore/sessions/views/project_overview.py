"""Every project of a store at a glance (the Data page's table), kept up to date cheaply.

A project's number of labeled points is a fold of its whole event log
(:class:`~rlscore.sessions.state.label_log.LabelLog`: undos, reviews and re-labels count). Folding
every project's log on every page run costs a read of every event ever written; a
:class:`ProjectOverview` keeps one fold per project and, like a labeling session's ``sync()``, reads
only the events committed since its last read. A project deleted and created again under the same
name (a new ``uid``) is folded again from its first event.

A cluster-backed project (:mod:`rlscore.sessions.cluster.projects`) stores no features: its
size and feature columns are read from its ``meta["cluster"]`` (:func:`project_label`,
:func:`cluster_pool_text`), never from its pool, which this server does not load.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from rlscore.data.cluster.parquet_pool import CLUSTER_META
from rlscore.data.upload.proposal import listed
from rlscore.sessions.state.label_log import LabelLog
from rlscore.storage import Event, LabelStore, UnknownProjectError


@dataclass
class _Fold:
    """One project's log as far as it was read."""

    uid: int | None
    log: LabelLog
    events: list[Event]


class ProjectOverview:
    """The projects of ``store`` with their number of labels, folded incrementally.

    Shared by every browser tab of a server (its methods are thread-safe).

    Parameters
    ----------
    store : LabelStore
    """

    def __init__(self, store: LabelStore) -> None:
        self.store = store
        self._folds: dict[str, _Fold] = {}
        self._lock = threading.Lock()

    def _sync(self, name: str) -> _Fold:
        """The fold of ``name`` brought up to date (``UnknownProjectError`` if deleted)."""
        uid = self.store.project_uid(name)
        if uid is None:
            self._folds.pop(name, None)
            raise UnknownProjectError(f"project {name!r} was deleted")
        fold = self._folds.get(name)
        if fold is None or fold.uid != uid:
            fold = self._folds[name] = _Fold(uid, LabelLog(), [])
        new = self.store.events(name, after_id=fold.log.last_id)
        for e in new:
            fold.log.apply(e)
        fold.events.extend(new)
        return fold

    def rows(self) -> list[dict]:
        """One row per existing project, in the store's order: ``project``, ``points``,
        ``features``, ``classes`` (plain text, the first ones), ``labeled``, ``ground truth``
        (``"yes"``/``"no"``) and ``source``. A project deleted while the list is read is
        left out."""
        rows = []
        with self._lock:
            summaries = self.store.project_summaries()
            for s in summaries:
                try:
                    fold = self._sync(s["name"])
                except UnknownProjectError:  # deleted since the list was read (another tab)
                    continue
                rows.append(
                    {
                        "project": s["name"],
                        "points": s["n"],
                        "features": feature_count(s["d"], s["meta"]),
                        "classes": listed(s["classes"]),
                        "labeled": len(fold.log.labels),
                        "ground truth": "yes" if s["has_truth"] else "no",
                        "source": (s["meta"] or {}).get("source") or "",
                    }
                )
            listed_names = {s["name"] for s in summaries}
            for gone in set(self._folds) - listed_names:
                del self._folds[gone]
        return rows

    def n_labeled(self, name: str) -> int:
        """The number of labeled points of ``name`` as of the last :meth:`rows` or
        :meth:`events` (``UnknownProjectError`` for a project not read yet)."""
        with self._lock:
            if name not in self._folds:
                raise UnknownProjectError(f"project {name!r} is not in the overview")
            return len(self._folds[name].log.labels)

    def events(self, name: str) -> tuple[Event, ...]:
        """The events of ``name`` as of the last read (e.g. to export its labels later):
        a snapshot that later events do not change."""
        with self._lock:
            if name not in self._folds:
                raise UnknownProjectError(f"project {name!r} is not in the overview")
            return tuple(self._folds[name].events)


def _cluster(meta: Mapping | None) -> Mapping | None:
    """The ``meta["cluster"]`` of a cluster-backed project, None for any other."""
    return (meta or {}).get(CLUSTER_META) or None


def feature_count(d: int, meta: Mapping | None) -> int:
    """A project's number of features: the stored ``d``, or for a cluster-backed project
    (whose stored features are an (n, 0) placeholder) its pool's feature columns."""
    cluster = _cluster(meta)
    return d if cluster is None else len(cluster.get("columns") or ())


def project_label(name: str, n: int, meta: Mapping | None, samples: Collection[str]) -> str:
    """How a project is listed in the sidebar (plain text): a bundled sample by its name, a
    cluster-backed project with its pool's size (``"big (cluster, 2,000,000 points)"``), any
    other project as uploaded."""
    if _cluster(meta) is not None:
        return f"{name} (cluster, {int(n):,} points)"
    return name if name in samples else f"{name} (uploaded)"


def cluster_pool_text(n: int, meta: Mapping | None) -> str | None:
    """What the Data page says of a cluster-backed project's pool (plain text, from its
    meta), None for any other project."""
    cluster = _cluster(meta)
    if cluster is None:
        return None
    columns = list(cluster.get("columns") or ())
    m = cluster.get("n_landmarks")
    built = f"{int(m)} landmark kernel features are" if m else "the features are"
    return (
        f"Pool on a Dask cluster: {int(n):,} points × {len(columns)} feature columns "
        f"({listed(columns)}), read by the workers from {cluster.get('url')}; {built} "
        "computed there, and this app server never loads the pool."
    )


__all__ = [
    "ProjectOverview",
    "cluster_pool_text",
    "feature_count",
    "project_label",
]
