"""A large pool's low-rank features, kept on disk so that a restart reads them (issue 36 item 5).

The Nyström features of a low-rank engine (:class:`~rlscore.query.rls_state.on_features.
FeaturePoolStrategy`) took 1.6 s of CPU at 10⁵ points and 16 s at 10⁶ (500 landmarks, the
two moons of ``benchmarks/app_latency.py``), and every new session built them again: a
server's first Label page of a large project waited for them. :class:`FeatureFiles` keeps
them beside the snapshots (``<snapshot dir>/features/``) once built and hands them to the
next session's engine, memory-mapped read-only (up to 10⁶ × 500 float64, 4 GB: the pages are
read as the engine touches them, and shared by the servers of one machine), with their map
as a :class:`~rlscore.core.kernels.nystrom_map.NystromMap`, so that reading them loads no
scikit-learn. Hashing the pool for the key reads it once (16 MB at 10⁶ points in 2-D).

A file is keyed by a SHA-256 of everything the features depend on (:func:`feature_key`): the
pool's values and shape, the engine's kernel parameters (kernel, σ, degree, landmarks and
their rule, seed), the code that builds them and numpy's version. A changed input gives
another key, so stale features are never served. On read the file is checked — its key, the
array's type and shape against the pool and the feature map, and a few rows mapped afresh
(:data:`CHECKED_ROWS`) — and a file that fails is deleted and the features built again. A
file is written by a thread of its own, so the page that built the features does not also
wait for the disk. Like the snapshots, the folder is only a cache: deleting it is always
safe. The files hold plain arrays (``allow_pickle=False``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rlscore.core.kernels.nystrom_map import NystromMap
from rlscore.sessions.state.snapshots import source_hash

if TYPE_CHECKING:
    from rlscore.query.rls_state.on_features import FeaturePoolStrategy

#: sub-folder of the snapshot folder holding the feature files
FEATURE_FOLDER = "features"
#: layout of the files (raise it when it changes)
FEATURE_FORMAT = 1
#: the code the features are built by (the kernels room and the strategy's one step)
FEATURE_CODE = ("core/kernels", "query/rls_state")
#: pools of fewer points build their features in well under a second: not kept
MIN_KEPT_ROWS = 50_000
#: feature files kept per folder, least recently used deleted first (4 GB each at 10⁶ points)
FEATURE_FILES_KEEP = 4
#: rows mapped afresh on read and compared with the file's
CHECKED_ROWS = 8
#: the niceness of the thread writing a file (the lowest priority)
WRITER_NICENESS = 19
#: the end of a file being written (renamed once complete)
TMP_SUFFIX = ".tmp"
#: a partial file this old was left by a process killed while writing it
STALE_TMP_SECONDS = 3600.0
#: the threads writing feature files (:func:`wait_for_writes`)
_WRITERS: set[threading.Thread] = set()
_WRITERS_LOCK = threading.Lock()
#: what reading a damaged or foreign file raises
_UNREADABLE = (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile)


@functools.cache
def feature_code_hash() -> str:
    """SHA-256 of the source of :data:`FEATURE_CODE` (once per process)."""
    return source_hash(FEATURE_CODE)


def feature_key(X: np.ndarray, kernel_params: dict) -> str:
    """The key of the features of pool ``X`` under an engine's ``kernel_params``
    (``kernel_params()``): a SHA-256 of both, the format, the code and numpy's version."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    described = {
        "format": FEATURE_FORMAT,
        "code": feature_code_hash(),
        "numpy": np.__version__,
        "params": sorted(kernel_params.items()),
        "shape": list(X.shape),
    }
    h = hashlib.sha256(json.dumps(described, sort_keys=True, default=repr).encode())
    h.update(memoryview(X).cast("B"))
    return h.hexdigest()[:32]


def keeps_features(engine: object) -> bool:
    """Whether ``engine``'s pool features can be kept: a low-rank engine
    (:class:`~rlscore.query.rls_state.on_features.FeaturePoolStrategy`) that builds them from
    the pool, not a subclass whose rows are features already (a pool on a cluster)."""
    # by the class defining pool_features, not isinstance: importing the low-rank strategies
    # imports scikit-learn, which a page with another engine does not load
    owner = next((c for c in type(engine).__mro__ if "pool_features" in vars(c)), None)
    return owner is not None and "adopt_features" in vars(owner)


class FeatureFiles:
    """The feature files of one folder (None: nothing is kept) and the last features used.

    :meth:`restore` before an engine starts, :meth:`keep` after: a session rebuilt with the
    same kernel parameters (a change of λ, of the class weights or of the strategy) reuses the
    features in memory, a new session or server reads them from the folder.
    """

    def __init__(self, directory: Path | None) -> None:
        self.directory = None if directory is None else Path(directory) / FEATURE_FOLDER
        self._last: tuple | None = None  # (key, features, feature map)

    def restore(self, engine: object, X: np.ndarray) -> str | None:
        """Hand ``engine`` its pool features if they are kept (:meth:`~rlscore.query.
        rls_state.on_features.FeaturePoolStrategy.adopt_features`); the key under which
        :meth:`keep` should keep them once the engine built them, or None (restored, or not
        worth keeping)."""
        if not keeps_features(engine) or X.shape[0] < MIN_KEPT_ROWS:
            return None
        key = feature_key(X, engine.kernel_params())
        if self._last is not None and self._last[0] == key:
            engine.adopt_features(X, self._last[1], self._last[2])
            return None
        self._last = None  # the old features may go before the new ones are read or built
        kept = self._read(key, X, engine)
        if kept is None:
            return key
        engine.adopt_features(X, *kept)
        self._last = (key, *kept)
        return None

    def keep(self, key: str | None, engine: FeaturePoolStrategy) -> bool:
        """Keep the features ``engine`` built under ``key`` (from :meth:`restore`); whether a
        file is being written. The file is written by a thread of its own, so the page that
        built the features does not wait for the disk (1.24 GB at 10⁶ points):
        :func:`wait_for_writes` waits for it. A write error (no space, read-only folder) only
        loses the cache."""
        if key is None or engine.lowrank_ is None:
            return False
        self._last = (key, engine.features_, engine.lowrank_)
        feature_map = engine.lowrank_
        if self.directory is None or len(feature_map.groups_) != 1:
            return False  # the ensemble rules' maps are sums of groups: built again
        parts = _map_parts(feature_map)
        # not a daemon: an interpreter that exits finishes the file first
        writer = threading.Thread(
            target=self._write, args=(key, engine.features_, parts), name="rlscore-features"
        )
        with _WRITERS_LOCK:
            _WRITERS.add(writer)
        writer.start()
        return True

    def _write(self, key: str, features: np.ndarray, parts: dict) -> None:
        """Write the features and their map under ``key``, atomically (the thread of
        :meth:`keep`)."""
        if sys.platform.startswith("linux"):  # a thread's own niceness: Linux only
            # the kernel's copy of 8 n r bytes (4.3 s of system CPU for 1.24 GB here) yields
            # to the page being drawn and to the other requests of the server
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WRITER_NICENESS)
        phi_path, map_path = self._paths(key)
        tag = f".{os.getpid()}.{threading.get_ident()}{TMP_SUFFIX}"
        tmp_phi = phi_path.with_name(phi_path.name + tag)
        tmp_map = map_path.with_name(map_path.name + tag)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with open(tmp_phi, "wb") as fh:
                np.save(fh, np.ascontiguousarray(features), allow_pickle=False)
            with open(tmp_map, "wb") as fh:
                np.savez(fh, key=np.asarray(key), **parts)
            # the features first: a map file names complete features
            os.replace(tmp_phi, phi_path)
            os.replace(tmp_map, map_path)
            self._evict()
        except OSError:
            tmp_phi.unlink(missing_ok=True)
            tmp_map.unlink(missing_ok=True)
        finally:
            with _WRITERS_LOCK:
                _WRITERS.discard(threading.current_thread())

    def _paths(self, key: str) -> tuple[Path, Path]:
        return self.directory / f"{key}.npy", self.directory / f"{key}.map.npz"

    def _read(self, key: str, X: np.ndarray, engine: FeaturePoolStrategy) -> tuple | None:
        """The kept features and feature map of ``key`` after the checks of the module
        docstring, or None (a file that fails them is deleted)."""
        if self.directory is None:
            return None
        phi_path, map_path = self._paths(key)
        if not map_path.exists():
            return None
        try:
            with np.load(map_path, allow_pickle=False) as parts:
                if str(parts["key"]) != key:
                    raise ValueError("feature file of another key")
                feature_map = _feature_map(engine, parts)
            phi = np.asarray(np.load(phi_path, mmap_mode="r", allow_pickle=False))
            _check(phi, X, feature_map)
        except _UNREADABLE:  # a damaged or foreign file is only a lost cache: build again
            phi_path.unlink(missing_ok=True)
            map_path.unlink(missing_ok=True)
            return None
        feature_map.features_ = phi
        os.utime(map_path)  # recently used: kept by the eviction
        return phi, feature_map

    def _evict(self) -> None:
        """Delete the least recently used files beyond :data:`FEATURE_FILES_KEEP`, and the
        partial files of writes that a killed process left :data:`STALE_TMP_SECONDS` ago."""
        maps = sorted(self.directory.glob("*.map.npz"), key=lambda f: f.stat().st_mtime)
        for old in maps[:-FEATURE_FILES_KEEP]:
            old.unlink(missing_ok=True)
            old.with_name(old.name.removesuffix(".map.npz") + ".npy").unlink(missing_ok=True)
        for tmp in self.directory.glob(f"*{TMP_SUFFIX}"):
            with contextlib.suppress(OSError):  # another process's, gone meanwhile
                if time.time() - tmp.stat().st_mtime > STALE_TMP_SECONDS:
                    tmp.unlink()


def wait_for_writes(timeout: float | None = None) -> None:
    """Wait until the feature files being written (:meth:`FeatureFiles.keep`) are written."""
    with _WRITERS_LOCK:
        writers = list(_WRITERS)
    for writer in writers:
        writer.join(timeout)


def _map_parts(feature_map) -> dict:
    """The arrays of a fitted single-group map that :func:`_feature_map` restores it from."""
    parts = {"landmarks": feature_map.landmarks_, "normalization": feature_map.normalization_}
    if feature_map.sigma_ is not None:
        parts["sigma"] = np.asarray(feature_map.sigma_)
    if feature_map.landmark_indices_ is not None:
        parts["landmark_indices"] = np.asarray(feature_map.landmark_indices_)
    return parts


def _feature_map(engine: FeaturePoolStrategy, parts) -> NystromMap:
    """``engine``'s fitted feature map from its kept ``parts``, without scikit-learn."""
    params = engine.kernel_params()
    return NystromMap(
        params["kernel"],
        float(parts["sigma"]) if "sigma" in parts else None,
        int(params["degree"]),
        parts["landmarks"],
        parts["normalization"],
        landmark_indices=parts["landmark_indices"] if "landmark_indices" in parts else None,
    )


def _check(phi: np.ndarray, X: np.ndarray, feature_map) -> None:
    """Refuse features that are not the map's of the pool ``X``: their type, their shape,
    and :data:`CHECKED_ROWS` rows spread over the pool mapped afresh."""
    n, r = X.shape[0], feature_map.normalization_.shape[1]
    if phi.dtype != np.float64 or phi.shape != (n, r) or not phi.flags.c_contiguous:
        raise ValueError(f"features {phi.dtype} {phi.shape} are not ({n}, {r}) float64")
    rows = np.unique(np.linspace(0, n - 1, CHECKED_ROWS).astype(np.intp))
    # a block of rows may sum in another order than the full pass: equal to rounding
    if not np.allclose(feature_map.transform(X[rows]), phi[rows], rtol=1e-9, atol=1e-12):
        raise ValueError("the kept features are not the feature map's of this pool")


__all__ = [
    "CHECKED_ROWS",
    "FEATURE_FILES_KEEP",
    "FEATURE_FOLDER",
    "FEATURE_FORMAT",
    "MIN_KEPT_ROWS",
    "FeatureFiles",
    "feature_key",
    "keeps_features",
    "wait_for_writes",
]
