"""The projects table of a SQL label store: a :class:`~rlscore.data.projects.project.Project` as a
row.

A project's features are stored as one ``.npy`` byte string (float64, no pickle), its names, ids,
classes, truth, metadata and items (:mod:`rlscore.data.items.columns`; NULL when it has none) as
JSON. A multi-label project (:attr:`~rlscore.data.projects.project.Project.multi_label`) is marked
by :data:`MULTI_LABEL_KEY` in its metadata, its truth a list of label sets: no schema change, and
a project of an older database, without the key, reads as single-label.

:class:`ProjectTable` also resolves a project's name to its ``uid`` (of a live project: a trashed
one, :mod:`rlscore.storage.sql.access`, is found by no name), the key of its events, claims and
settings, and in a write transaction locks the project's row, which serialises the project's
writers (:mod:`rlscore.storage.sql.store`).
"""

from __future__ import annotations

import io
import json
import time

import numpy as np

from rlscore.core.conventions.json_values import plain_scalar
from rlscore.core.conventions.label_sets import check_set_classes
from rlscore.core.conventions.user_names import check_no_control
from rlscore.data.items.columns import ItemColumn
from rlscore.data.projects.project import Project, ids_from_json, ids_to_json
from rlscore.storage.interface.events import UnknownProjectError
from rlscore.storage.sql.connection import SQLConnection

#: the key of the projects' ``meta`` JSON that marks a multi-label project (absent: single-label)
MULTI_LABEL_KEY = "multi_label"
#: the longest name a new project may have (the stored ones are read whatever their length)
MAX_PROJECT_NAME = 100
#: the condition of a live (not trashed) project's row (:mod:`rlscore.storage.sql.access`)
LIVE = "deleted IS NULL"


def _npy_bytes(X: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(X, dtype=np.float64), allow_pickle=False)
    return buf.getvalue()


class ProjectTable:
    """The ``projects`` table on a connection (see the module's docstring).

    Parameters
    ----------
    db
        The connection to the label database.
    """

    def __init__(self, db: SQLConnection) -> None:
        self._db = db
        self._info: dict[int, tuple[int, list, bool]] = {}

    def names(self) -> list[str]:
        """Names of the stored projects, sorted."""
        # sorted here: the database's collation may not sort as Python does
        return sorted(r[0] for r in self._db.fetchall(f"SELECT name FROM projects WHERE {LIVE}"))

    def create(self, project: Project) -> None:
        """Store a new project; ``ValueError`` if the name is taken or holds a control
        character (:func:`~rlscore.core.conventions.user_names.check_no_control`), or a
        multi-label project's class cannot be written in a table cell
        (:func:`check_set_classes`)."""
        check_no_control(project.name, "project name")
        if len(project.name) > MAX_PROJECT_NAME:
            # every page's heading and the sidebar show it: a 300-character name took ten lines
            raise ValueError(
                f"a project name has at most {MAX_PROJECT_NAME} characters, this one "
                f"{len(project.name)}: choose a shorter name"
            )
        if project.multi_label:
            check_set_classes(project.classes)
        truth = project.truth
        truth = None if truth is None else json.dumps([_plain_label(t) for t in truth])
        meta = {**project.meta, MULTI_LABEL_KEY: True} if project.multi_label else project.meta
        row = (
            project.name,
            time.time(),
            project.n,
            int(project.X.shape[1]),
            json.dumps(project.feature_names),
            json.dumps(ids_to_json(project.ids)),
            json.dumps(project.classes),
            truth,
            json.dumps(meta),
            _npy_bytes(project.X),
            json.dumps([c.to_dict() for c in project.items]) if project.items else None,
        )
        try:
            with self._db.write():
                self._db.run(
                    "INSERT INTO projects (name, created, n, d, feature_names, ids, classes, "
                    "truth, meta, X, items) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
        except self._db.dialect.integrity_error:
            raise ValueError(
                f"a project named {project.name!r} already exists: choose another name "
                "or delete it first"
            ) from None

    def load(self, name: str) -> Project:
        """The stored project (with ``uid`` set); :class:`UnknownProjectError` if absent."""
        row = _may_exist(name) and self._db.fetchone(
            "SELECT uid, feature_names, ids, classes, truth, meta, X, items FROM projects "
            f"WHERE name = ? AND {LIVE}",
            (name,),
        )
        if not row:
            raise UnknownProjectError(self.unknown(name))
        uid, feature_names, ids, classes, truth, meta, blob, items = row
        meta = json.loads(meta)
        multi_label = bool(meta.pop(MULTI_LABEL_KEY, False))
        truth = None if truth is None else json.loads(truth)
        return Project(
            name=name,
            X=np.load(io.BytesIO(blob), allow_pickle=False),
            feature_names=json.loads(feature_names),
            ids=ids_from_json(json.loads(ids)),
            # a multi-label truth is a list of lists: Project makes its (n,) array of tuples
            truth=truth if truth is None or multi_label else np.asarray(truth, dtype=object),
            classes=json.loads(classes),
            meta=meta,
            uid=int(uid),
            items=[ItemColumn.from_dict(c) for c in json.loads(items)] if items else [],
            multi_label=multi_label,
        )

    def summaries(self) -> list[dict]:
        """One dict per project, sorted by name, without reading the features."""
        rows = self._db.fetchall(
            "SELECT name, n, d, classes, truth IS NOT NULL, meta, created FROM projects "
            f"WHERE {LIVE}"
        )
        out = []
        for name, n, d, classes, has_truth, meta, created in sorted(rows):
            meta = json.loads(meta)
            multi_label = bool(meta.pop(MULTI_LABEL_KEY, False))
            out.append(
                {
                    "name": name,
                    "n": int(n),
                    "d": int(d),
                    "classes": json.loads(classes),
                    "has_truth": bool(has_truth),
                    "meta": meta,
                    "created": float(created),
                    "multi_label": multi_label,
                }
            )
        return out

    def find_uid(self, name: str) -> int | None:
        """The project's uid, None if there is no project of that name."""
        sql = f"SELECT uid FROM projects WHERE name = ? AND {LIVE}"
        row = _may_exist(name) and self._db.fetchone(sql, (name,))
        return int(row[0]) if row else None

    def delete(self, uid: int) -> None:
        """Delete a project's row (its events, claims, settings and members go with it: ON
        DELETE CASCADE); in a write transaction."""
        self._db.run("DELETE FROM projects WHERE uid = ?", (int(uid),))

    def unknown(self, name: str) -> str:
        """The message of :class:`UnknownProjectError` for ``name``."""
        # no file path or URL: the message is shown in the browser (rlscore.ui.shell.errors)
        return f"no project named {name!r} in the label database; projects: {self.names()}"

    def uid(self, name: str, *, lock: bool = False) -> int:
        """The project's uid; with ``lock`` (in a write transaction) also the dialect's lock
        of its row, which serialises the project's writers until the commit."""
        sql = f"SELECT uid FROM projects WHERE name = ? AND {LIVE}"
        if not _may_exist(name):
            row = None
        elif lock:  # inside a write transaction, which holds the connection's lock
            row = self._db.run(sql + self._db.dialect.lock_row, (name,)).fetchone()
        else:
            row = self._db.fetchone(sql, (name,))
        if row is None:
            raise UnknownProjectError(self.unknown(name))
        return int(row[0])

    def size_and_classes(self, uid: int) -> tuple[int, list, bool]:
        """The pool size, classes and whether the project is multi-label (what an event is
        checked against); in a write transaction."""
        if uid not in self._info:  # uids are never reused: the cache stays valid
            n, classes, meta = self._db.run(
                "SELECT n, classes, meta FROM projects WHERE uid = ?", (uid,)
            ).fetchone()
            multi_label = bool(json.loads(meta).get(MULTI_LABEL_KEY, False))
            self._info[uid] = (int(n), json.loads(classes), multi_label)
        return self._info[uid]


def _may_exist(name: str) -> bool:
    """Whether a project may be named ``name``, so worth looking up: not when it holds NUL,
    which no project has (refused at creation) and PostgreSQL cannot even compare (a driver
    error, where SQLite finds no row: the lookup says "no project named …" on both)."""
    return "\x00" not in str(name)


def _plain_label(label):
    """A true label as JSON: a class, or a label set (tuple) as a list."""
    return [plain_scalar(c) for c in label] if isinstance(label, tuple) else plain_scalar(label)


__all__ = ["LIVE", "MAX_PROJECT_NAME", "MULTI_LABEL_KEY", "ProjectTable"]
