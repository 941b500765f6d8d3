"""Snapshots: a disk cache of a session's state, so a restart need not replay a long log.

A snapshot is the state after the events up to some id; the log is append-only, so loading
it and replaying the newer events gives bit-for-bit the state a full replay gives. It is
only a cache: deleting the directory is always safe, and a snapshot that cannot be read is
ignored (and removed).

A snapshot is keyed on everything its state depends on: the session's description (project,
uid, parameters), the snapshot :data:`SNAPSHOT_FORMAT` and a hash of the engine code
(:func:`engine_code_hash`, the source of ``rlscore.core``, ``query``, ``storage`` and
``sessions``), so an engine pickled by other code is never loaded, whatever the version
number says. The key is also written in the file's header and checked before unpickling.

Snapshots are pickles: keep the directory as private as the database.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rlscore.storage.interface.label_store import LabelStore

#: snapshots: written once the engine work since the last one exceeds this many seconds …
SNAPSHOT_MIN_SECONDS = 1.0
#: … and this many times the time the last snapshot took to write (≤ 20 % overhead)
SNAPSHOT_OVERHEAD_RATIO = 5.0
#: snapshot files kept per directory (least recently used are deleted)
SNAPSHOT_KEEP = 8
#: layout of the pickled state (raise it when the session's state changes shape)
SNAPSHOT_FORMAT = 2
#: the packages whose code defines the pickled state (engines, the log and its events)
ENGINE_PACKAGES = ("core", "query", "storage", "sessions")

_MAGIC = b"rlscore-snapshot "
#: what reading a damaged or foreign pickle raises (a truncated file, a missing class …)
_UNREADABLE = (
    OSError,
    EOFError,
    pickle.UnpicklingError,
    AttributeError,
    ImportError,
    IndexError,
    KeyError,
    TypeError,
    ValueError,
)


def source_hash(folders: tuple[str, ...]) -> str:
    """SHA-256 of the source files under ``folders`` of the package (paths relative to the
    ``rlscore`` folder, e.g. ``"core/kernels"``), names and contents."""
    # the package folder: this file is rlscore/sessions/state/snapshots.py
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def engine_code_hash() -> str:
    """SHA-256 of the source files of :data:`ENGINE_PACKAGES` (computed once per process)."""
    return source_hash(ENGINE_PACKAGES)


def snapshot_key(description: dict) -> str:
    """Key of a snapshot of the state ``description`` defines (JSON-able, ``repr`` else)."""
    described = {
        "format": SNAPSHOT_FORMAT,
        "code": engine_code_hash(),
        "state": description,
    }
    text = json.dumps(described, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def default_snapshot_dir(store: LabelStore) -> Path | None:
    """Where sessions on ``store`` keep snapshots by default.

    Parameters
    ----------
    store : LabelStore

    Returns
    -------
    Path or None
        The store's own ``snapshot_dir`` if it names one (a PostgreSQL store: a folder per
        database under ``~/.cache/rlscore/snapshots/``, as snapshots are a local cache keyed
        by event ids), else ``<database file>.snapshots/`` next to a file-based store (its
        ``path``), else None (no snapshots).
    """
    directory = getattr(store, "snapshot_dir", None)
    if directory is not None:
        return Path(directory)
    path = getattr(store, "path", None)
    return None if path is None else Path(path).with_name(Path(path).name + ".snapshots")


class SnapshotCache:
    """Snapshots of one session in ``directory`` (None: no snapshots).

    The session reports the engine work it does (:meth:`add_work`); :meth:`maybe_save`
    writes a snapshot only once that work exceeds :data:`SNAPSHOT_MIN_SECONDS` and
    :data:`SNAPSHOT_OVERHEAD_RATIO` times the last write, so writing costs at most 20 %.
    """

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._work_seconds = 0.0
        self._write_seconds = 0.0

    def add_work(self, seconds: float) -> None:
        """Count engine work a snapshot would save."""
        self._work_seconds += seconds

    def reset_work(self, seconds: float = 0.0) -> None:
        """Start counting the work again (the state was just loaded or rebuilt)."""
        self._work_seconds = seconds

    def load(self, key: str, accept: Callable[[object], bool]) -> object | None:
        """The state saved under ``key`` if ``accept(state)``; None otherwise.

        A file that cannot be read, holds another key or is refused is removed.
        """
        if self.directory is None:
            return None
        path = self._path(key)
        try:
            with open(path, "rb") as fh:
                if fh.readline() != _header(key):
                    raise ValueError("snapshot of another key")
                state = pickle.load(fh)
            if not accept(state):
                raise ValueError("snapshot refused")
        except FileNotFoundError:
            return None
        except _UNREADABLE:  # a damaged or stale snapshot is only a lost cache: rebuild
            path.unlink(missing_ok=True)
            return None
        os.utime(path)  # recently used: kept by the eviction
        return state

    def maybe_save(self, key: str, state: object) -> bool:
        """Write ``state`` under ``key`` if the work since the last snapshot warrants it;
        returns whether it was written. Write errors (no space, read-only) are ignored."""
        if self.directory is None or self._work_seconds < max(
            SNAPSHOT_MIN_SECONDS, SNAPSHOT_OVERHEAD_RATIO * self._write_seconds
        ):
            return False
        started = time.perf_counter()
        path = self._path(key)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        written = False
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                fh.write(_header(key))
                pickle.dump(state, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)  # atomic: readers see the old or the new snapshot
            self._evict()
            written = True
        except OSError:  # the snapshot is only a cache
            tmp.unlink(missing_ok=True)
        self._write_seconds = time.perf_counter() - started
        self._work_seconds = 0.0
        return written

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.pkl"

    def _evict(self) -> None:
        files = sorted(self.directory.glob("*.pkl"), key=lambda f: f.stat().st_mtime)
        for f in files[:-SNAPSHOT_KEEP]:
            f.unlink(missing_ok=True)


def _header(key: str) -> bytes:
    return _MAGIC + key.encode() + b"\n"


__all__ = [
    "SNAPSHOT_FORMAT",
    "SNAPSHOT_KEEP",
    "SNAPSHOT_MIN_SECONDS",
    "SNAPSHOT_OVERHEAD_RATIO",
    "SnapshotCache",
    "default_snapshot_dir",
    "engine_code_hash",
    "snapshot_key",
    "source_hash",
]
