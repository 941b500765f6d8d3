"""A labeling session: a query strategy driven by a project's persistent event log.

The state of a session — labels, skipped points, the query engine, the histories — is a
pure function of the project's event log in the store and of the session's parameters:
:class:`LabelingSession` applies the events one at a time, always through the same code
path (:meth:`LabelingSession._apply`), whether they arrive live, from another tab
(:meth:`LabelingSession.sync`) or from the database when a session is (re)opened. A session
rebuilt after a reload, a server restart or ``kill -9`` therefore holds bit-for-bit the same
engine state and proposes the same next query.

Event semantics (see :class:`LabelLog`):

* **label** ``(i, y)`` — point ``i`` gets label ``y``; labeling a labeled point relabels it
  (the latest label event wins; the engine forgets the old label and learns the new one).
* **skip** ``i`` — point ``i`` is not proposed again (it stays unlabeled; it can still be
  labeled by clicking it). Skipping a labeled point is refused.
* **undo** — reverts the most recent label or skip event that is not yet undone, across all
  annotators of the project (an undo in one tab may revert a label made in another tab if
  that one is newer). Reverting a relabel restores the previous label. Undos are not undone.

Labels are never deleted from the database: undone events stay in the log, marked by the
undo event that reverts them.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import pickle
import threading
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from rlscore.core.memory import require_memory, square_matrices_bytes
from rlscore.core.serialization import plain_scalar
from rlscore.data.projects import Project
from rlscore.query import NoCandidatesError, QueryStrategy, make_strategy, strategy_class
from rlscore.storage import Event, LabelStore, UnknownProjectError

#: parameters of a session that define the engine (a change rebuilds it)
ENGINE_PARAMS = ("strategy", "kernel", "sigma", "lam", "class_weight")
#: the automatic λ is re-chosen by LOO when the number of labels reaches one of these
AUTO_LAM_MILESTONES = tuple(2**k for k in range(2, 20))
#: dense n × n float64 matrices a strategy holds (kernel, state, scratch), for the memory check
_MATRICES_PER_STRATEGY = {"arls": 2, "arls-weighted": 2, "aopt-klr": 2}
_DEFAULT_MATRICES = 2


#: snapshots: written once the engine work since the last one exceeds this many seconds …
SNAPSHOT_MIN_SECONDS = 1.0
#: … and this many times the time the last snapshot took to write (≤ 20 % overhead)
SNAPSHOT_OVERHEAD_RATIO = 5.0
#: snapshot files kept per directory (least recently used are deleted)
SNAPSHOT_KEEP = 8
SNAPSHOT_FORMAT = 1


def _rlscore_version() -> str:
    from rlscore import __version__

    return __version__


def default_snapshot_dir(store: LabelStore) -> Path | None:
    """``<database file>.snapshots/`` next to a file-based store, else None."""
    path = getattr(store, "path", None)
    return None if path is None else Path(path).with_name(Path(path).name + ".snapshots")


class PoolTooLargeError(ValueError):
    """The pool does not fit in memory for the chosen strategy; the message says what to do."""


class LabelLog:
    """Current labels and skips folded from a project's events (no engine; pure bookkeeping).

    A point is *labeled* when it has a label event that is not undone; its label is that of
    the most recent such event. It is *skipped* when it is not labeled and has a skip event
    that is not undone.
    """

    def __init__(self, events: Iterable[Event] = ()):
        self._by_id: dict[int, Event] = {}
        self._active: dict[int, list[int]] = {}  # point -> active event ids, oldest first
        self._order: list[int] = []  # active label/skip event ids, oldest first
        self.labels: dict[int, object] = {}
        self.label_events: dict[int, Event] = {}  # point -> the event giving its label
        self.skipped: set[int] = set()
        self.last_id = 0
        for e in events:
            self.apply(e)

    def apply(self, event: Event) -> tuple[int | None, object, object]:
        """Apply one event; returns ``(point, old label, new label)`` (labels None = unlabeled)."""
        self.last_id = max(self.last_id, int(event.id or 0))
        if event.kind == "undo":
            target = self._by_id.pop(int(event.target))
            self._order.remove(target.id)
            self._active[target.point].remove(target.id)
            point = target.point
        else:
            self._by_id[event.id] = event
            self._order.append(event.id)
            self._active.setdefault(event.point, []).append(event.id)
            point = event.point
        old = self.labels.get(point)
        self._refold(point)
        return point, old, self.labels.get(point)

    def _refold(self, point: int) -> None:
        events = [self._by_id[i] for i in self._active.get(point, [])]
        labels = [e for e in events if e.kind == "label"]
        self.labels.pop(point, None)
        self.label_events.pop(point, None)
        self.skipped.discard(point)
        if labels:
            self.labels[point] = labels[-1].label
            self.label_events[point] = labels[-1]
        elif events:
            self.skipped.add(point)

    def last_active(self) -> Event | None:
        """The most recent label or skip event not undone (what an undo reverts)."""
        return self._by_id[self._order[-1]] if self._order else None


def _iso(ts: float | None) -> str:
    return "" if ts is None else datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def export_labels(
    project: Project,
    events: Iterable[Event] | LabelLog,
    fmt: str = "csv",
    *,
    include_features: bool = True,
) -> str:
    """The current labels of a project as CSV or JSON text.

    One row per labeled point, in the order the labels were given: ``point_id``, ``index``
    (row in the pool), ``label``, ``annotator``, ``timestamp`` (ISO 8601, UTC), ``seconds``
    spent, ``strategy``, ``kernel``, ``sigma``, ``lam`` in effect when it was labeled, then
    the feature values (CSV: one column per feature; JSON: a ``features`` object).

    Parameters
    ----------
    project
        The project (ids, feature names, features).
    events
        Its event log, or a :class:`LabelLog` folded from it.
    fmt
        ``"csv"`` or ``"json"``.
    include_features
        Add the feature values of each point (as stored, i.e. standardised if the project is).
    """
    if fmt not in ("csv", "json"):
        raise ValueError(f"export format must be 'csv' or 'json', got {fmt!r}")
    log = events if isinstance(events, LabelLog) else LabelLog(events)
    rows = []
    for point, e in sorted(log.label_events.items(), key=lambda kv: kv[1].id):
        row = {
            "point_id": project.ids[point],
            "index": point,
            "label": e.label,
            "annotator": e.annotator,
            "timestamp": _iso(e.timestamp),
            "seconds": e.seconds,
            "strategy": e.params.get("strategy"),
            "kernel": e.params.get("kernel"),
            "sigma": e.params.get("sigma"),
            "lam": e.params.get("lam"),
        }
        if include_features:
            row["features"] = dict(
                zip(project.feature_names, project.X[point].tolist(), strict=True)
            )
        rows.append(row)
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False)
    fixed = [
        "point_id", "index", "label", "annotator", "timestamp", "seconds",
        "strategy", "kernel", "sigma", "lam",
    ]  # fmt: skip
    # a feature named like a fixed column gets a prefix so no column is overwritten
    names = [f"feature:{f}" if f in fixed else f for f in project.feature_names]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(fixed + (names if include_features else []))
    for row in rows:
        values = [("" if row[k] is None else row[k]) for k in fixed]
        if include_features:
            values += list(row["features"].values())
        writer.writerow(values)
    return buf.getvalue()


class LabelingSession:
    """One annotator's view of a project: the next query, labels, skips, undo, diagnostics.

    Parameters
    ----------
    store
        The label store holding the project and its event log.
    project
        Project name.
    strategy
        Strategy name of :data:`rlscore.query.STRATEGIES` (``"arls"``, ``"arls-weighted"``,
        ``"aopt-klr"``, ``"uncertainty"``, ``"entropy"``, ``"random"``) or a started-or-not
        :class:`~rlscore.query.QueryStrategy` instance (cloned).
    kernel, sigma
        Pool kernel and RBF width (default: the project's recommended σ, else 1).
    lam
        Regularisation λ, or ``"auto"``: λ is chosen by the exact LOO error of RLS on the
        labeled set each time the number of labels reaches 4, 8, 16, … (and kept in between,
        so a label costs no rebuild); before that, the project's recommended λ (else 1).
    class_weight
        ``None``, ``"balanced"`` or a dict (strategies that take it).
    annotator
        Name written with every event.
    budget
        Maximum number of labels; :meth:`query` returns None once reached (None or 0: no
        budget).
    stop_window, stop_tolerance
        Stopping indicator: predictions on the pool are *stable* when at most
        ``stop_tolerance`` of them changed over the last ``stop_window`` labels.
    snapshots
        Directory for snapshots of the session state (default: ``<database>.snapshots/``
        next to the database; ``False`` for none). A snapshot is a cache, written once the
        replay work it saves exceeds :data:`SNAPSHOT_MIN_SECONDS` and five times its own
        write time (so at most 20 % overhead); a restart then loads it and replays only the
        newer events, giving bit-for-bit the state a full replay gives. Snapshots are
        pickles: keep the directory as private as the database. Deleting it is always safe.
    **strategy_params
        Further strategy parameters (e.g. ``graph_k``, ``random_state``).

    Notes
    -----
    Cost per call: :meth:`sync` is two indexed queries when nothing changed; :meth:`query`
    is cached until the state changes; a label costs one engine update plus the estimated
    risk and the predictions on the pool (for the histories). Methods are thread-safe (one
    session may be shared by Streamlit reruns).
    """

    def __init__(
        self,
        store: LabelStore,
        project: str,
        strategy: str | QueryStrategy = "arls",
        *,
        kernel: str = "rbf",
        sigma: float | None = None,
        lam: float | str | None = None,
        class_weight=None,
        annotator: str = "anonymous",
        budget: int | None = None,
        stop_window: int = 10,
        stop_tolerance: float = 0.01,
        snapshots: bool | str | os.PathLike = True,
        **strategy_params,
    ):
        self.store = store
        if snapshots is True:
            self.snapshot_dir = default_snapshot_dir(store)
        else:
            self.snapshot_dir = Path(snapshots) if snapshots else None
        self._snapshot_write_seconds = 0.0
        self.project_name = project
        self.annotator = annotator
        self.budget = self._check_budget(budget)
        self.stop_window = int(stop_window)
        self.stop_tolerance = float(stop_tolerance)
        self._lock = threading.RLock()
        self._kernel_cache: tuple[tuple, np.ndarray] | None = None
        self.project = store.load_project(project)
        meta = self.project.meta
        self.params = {
            "strategy": strategy,
            "kernel": kernel,
            "sigma": float(meta.get("sigma") or 1.0) if sigma is None else sigma,
            "lam": float(meta.get("lam") or 1.0) if lam is None else lam,
            "class_weight": class_weight,
            **strategy_params,
        }
        self._build()

    # -- construction and replay ----------------------------------------------------------
    @staticmethod
    def _check_budget(budget) -> int | None:
        if budget is None or (budget == 0 and not isinstance(budget, bool)):
            return None  # 0 = no budget, as a number input's "unset" value
        if isinstance(budget, bool) or not isinstance(budget, int | np.integer) or budget < 1:
            raise ValueError(f"budget must be a positive whole number of labels, got {budget!r}")
        return int(budget)

    @property
    def strategy_name(self) -> str:
        s = self.params["strategy"]
        return s if isinstance(s, str) else type(s).__name__

    @property
    def lam_(self) -> float:
        """The λ in effect (the automatic one when ``lam="auto"``)."""
        return self._lam

    def _initial_lam(self) -> float:
        lam = self.params["lam"]
        if lam == "auto":
            return float(self.project.meta.get("lam") or 1.0)
        if isinstance(lam, bool) or not isinstance(lam, int | float | np.number):
            raise ValueError(f"lam must be a positive number or 'auto', got {lam!r}")
        if not (math.isfinite(lam) and lam > 0):
            raise ValueError(f"lam must be > 0, got {lam!r}")
        return float(lam)

    def _make_engine(self, lam: float) -> QueryStrategy:
        p = self.params
        extra = {k: v for k, v in p.items() if k not in ENGINE_PARAMS and v is not None}
        kw = {"kernel": p["kernel"], "sigma": p["sigma"], "lam": lam, **extra}
        if p["class_weight"] is not None:  # None would override a strategy's default
            kw["class_weight"] = p["class_weight"]
        strategy = p["strategy"]
        if isinstance(strategy, QueryStrategy):
            from sklearn.base import clone

            engine = clone(strategy)
            accepted = engine.get_params()
            engine.set_params(**{k: v for k, v in kw.items() if k in accepted})
            return engine
        return make_strategy(strategy, **kw)

    def _check_pool_size(self, engine: QueryStrategy) -> None:
        n = self.project.n
        estimate = getattr(engine, "memory_bytes", None)
        if callable(estimate):
            need = int(estimate(n))
        else:
            count = _MATRICES_PER_STRATEGY.get(self.strategy_name, _DEFAULT_MATRICES)
            need = square_matrices_bytes(n, count)
        try:
            require_memory(need, f"strategy {self.strategy_name!r} on a pool of {n} points")
        except MemoryError as exc:
            raise PoolTooLargeError(
                f"pool too large: {exc}. Create a project from a random subsample of the data "
                "(a few thousand points), or choose the 'random' strategy"
            ) from None

    def _pool_kernel(self, engine: QueryStrategy) -> np.ndarray | None:
        """The pool kernel for the engine's kernel parameters, cached across rebuilds."""
        params = engine.get_params()
        if "kernel" not in params:
            return None
        key = tuple(
            (k, repr(params.get(k)))
            for k in ("kernel", "sigma", "degree", "graph_k", "graph_t", "graph_metric")
        )
        if self._kernel_cache is None or self._kernel_cache[0] != key:
            self._kernel_cache = None  # free the old matrix before building the new one
            self._kernel_cache = (key, engine.pool_kernel(self.project.X))
        return self._kernel_cache[1]

    def _build(self) -> None:
        """(Re)build the state: from the newest snapshot if any, else from scratch; then
        replay the events the starting point has not seen."""
        started = time.perf_counter()
        lam = self._initial_lam()
        engine = self._make_engine(lam)  # validates the parameters even if a snapshot is used
        self._check_pool_size(engine)
        self._version = 0
        self._query_cache: tuple[int, tuple[int, float] | None] | None = None
        self._query_time: tuple[int, float] | None = None
        self._stats_cache: tuple[int, dict] | None = None
        self._snapshot_key = self._make_snapshot_key()
        events = self.store.events(self.project_name)
        self.restored_from_snapshot_: int | None = self._restore_snapshot({e.id for e in events})
        if self.restored_from_snapshot_ is None:
            try:
                engine.start(self.project.X, self.project.classes, K=self._pool_kernel(engine))
            except MemoryError as exc:
                raise PoolTooLargeError(
                    f"pool too large for strategy {self.strategy_name!r}: {exc}"
                ) from None
            self.engine = engine
            self._lam = lam
            self._log = LabelLog()
            self.risk_history: list[float] = []
            self.validation_history: list[float | None] = []
            self.balanced_validation_history: list[float | None] = []
            self.change_history: list[float | None] = []
            self._predictions: dict[int, np.ndarray] = {}
            self._record()
        self._work_seconds = time.perf_counter() - started
        for e in events:
            if e.id > self._log.last_id:
                self._apply(e)
        self._maybe_snapshot()

    # -- snapshots: a cache of the state, so a restart need not replay a long log ------------
    _SNAPSHOT_STATE = (
        "engine",
        "_log",
        "_lam",
        "_kernel_cache",
        "_predictions",
        "risk_history",
        "validation_history",
        "balanced_validation_history",
        "change_history",
    )

    def _make_snapshot_key(self) -> str | None:
        if self.snapshot_dir is None:
            return None
        strategy = self.params["strategy"]
        described = {
            "format": SNAPSHOT_FORMAT,
            "rlscore": _rlscore_version(),
            "project": [self.project_name, self.project.uid],
            "params": {
                **self.params,
                "strategy": strategy
                if isinstance(strategy, str)
                else [type(strategy).__module__, type(strategy).__qualname__, repr(strategy)],
            },
            "stop_window": self.stop_window,
        }
        text = json.dumps(described, sort_keys=True, default=repr)
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def _snapshot_path(self) -> Path:
        return self.snapshot_dir / f"{self._snapshot_key}.pkl"

    def _restore_snapshot(self, event_ids: set[int]) -> int | None:
        """Load the snapshot for these parameters; returns its last event id, or None.

        The log is append-only, so a snapshot taken after event ``k`` of this project (same
        uid) is the state after events ≤ k; only the later events need replaying.
        """
        if self._snapshot_key is None:
            return None
        path = self._snapshot_path()
        try:
            with open(path, "rb") as fh:
                state = pickle.load(fh)
            if state.get("key") != self._snapshot_key:
                raise ValueError("snapshot of other parameters")
            if state["_log"].last_id and state["_log"].last_id not in event_ids:
                raise ValueError("snapshot of events not in the log")
        except FileNotFoundError:
            return None
        except Exception:  # a damaged or stale snapshot is only a lost cache: rebuild
            path.unlink(missing_ok=True)
            return None
        for name in self._SNAPSHOT_STATE:
            setattr(self, name, state[name])
        os.utime(path)  # recently used: kept by the eviction
        return self._log.last_id

    def _maybe_snapshot(self) -> None:
        """Write a snapshot once the engine work it would save is large enough."""
        if self._snapshot_key is None:
            return
        if self._work_seconds < max(
            SNAPSHOT_MIN_SECONDS, SNAPSHOT_OVERHEAD_RATIO * self._snapshot_write_seconds
        ):
            return
        started = time.perf_counter()
        state = {name: getattr(self, name) for name in self._SNAPSHOT_STATE}
        state["key"] = self._snapshot_key
        path = self._snapshot_path()
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            self.snapshot_dir.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                pickle.dump(state, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)  # atomic: readers see the old or the new snapshot
            self._evict_snapshots()
        except OSError:  # no space, read-only: the snapshot is only a cache
            tmp.unlink(missing_ok=True)
        self._snapshot_write_seconds = time.perf_counter() - started
        self._work_seconds = 0.0

    def _evict_snapshots(self) -> None:
        files = sorted(self.snapshot_dir.glob("*.pkl"), key=lambda f: f.stat().st_mtime)
        for f in files[:-SNAPSHOT_KEEP]:
            f.unlink(missing_ok=True)

    def _apply(self, event: Event) -> None:
        """The only path by which events change the state (live, synced or replayed)."""
        started = time.perf_counter()
        point, old, new = self._log.apply(event)
        self._version += 1
        if old == new and type(old) is type(new):
            return
        if old is not None:
            self.engine.forget(point)
        if new is not None:
            self.engine.teach(point, new)
        if self.params["lam"] == "auto" and new is not None and old is None:
            self._retune_lam()
        self._record()
        self._work_seconds += time.perf_counter() - started

    def _retune_lam(self) -> None:
        n = len(self._log.labels)
        if n not in AUTO_LAM_MILESTONES or "lam" not in self.engine.get_params():
            return
        lam = self._loo_lam()
        if lam is not None and lam != self._lam:
            self._lam = lam
            self.engine.set_params(lam=lam)
            self.engine.rebuild(K=self._kernel_cache[1] if self._kernel_cache else None)

    def _record(self) -> None:
        """Append the risk, validation error and prediction change for the current labels."""
        n_lab = len(self._log.labels)
        pred = np.asarray(self.engine.predict())
        self._predictions[n_lab] = pred
        for k in [k for k in self._predictions if k > n_lab or k < n_lab - self.stop_window]:
            del self._predictions[k]
        prev = self._predictions.get(n_lab - 1)
        for hist in (
            self.risk_history,
            self.validation_history,
            self.balanced_validation_history,
            self.change_history,
        ):
            del hist[n_lab:]
        self.risk_history.append(float(self.engine.estimated_risk()))
        self.change_history.append(None if prev is None else float(np.mean(pred != prev)))
        if self.project.truth is not None:
            err, bal = self._errors(pred)
            self.validation_history.append(err)
            self.balanced_validation_history.append(bal)

    # -- reading state --------------------------------------------------------------------
    @property
    def labels(self) -> dict[int, object]:
        """Current labels, point index -> label (in the order they were given)."""
        return dict(
            sorted(self._log.labels.items(), key=lambda kv: self._log.label_events[kv[0]].id)
        )

    @property
    def n_labeled(self) -> int:
        return len(self._log.labels)

    @property
    def skipped(self) -> set[int]:
        return set(self._log.skipped)

    @property
    def last_event_id(self) -> int:
        """Id of the newest event applied."""
        return self._log.last_id

    @property
    def budget_left(self) -> int | None:
        return None if self.budget is None else max(0, self.budget - self.n_labeled)

    def sync(self) -> bool:
        """Apply the events other tabs or processes committed since the last call.

        Returns True if anything changed. A project deleted meanwhile raises
        :class:`~rlscore.storage.sqlite.UnknownProjectError`; one deleted and created again under
        the same name is reloaded from scratch.
        """
        with self._lock:
            uid = self.store.project_uid(self.project_name)
            if uid is None:
                raise UnknownProjectError(
                    f"project {self.project_name!r} was deleted: choose another project"
                )
            if uid != self.project.uid:
                self.project = self.store.load_project(self.project_name)
                self._build()
                return True
            new = self.store.events(self.project_name, after_id=self._log.last_id)
            for e in new:
                self._apply(e)
            if new:
                self._maybe_snapshot()
            return bool(new)

    def query(self) -> tuple[int, float] | None:
        """The proposed next point and its score (lower is better), skipped points excluded.

        None when the budget is reached or no unlabeled, unskipped point is left. Cached
        until the state changes.
        """
        with self._lock:
            if self._query_cache is None or self._query_cache[0] != self._version:
                if self.budget is not None and self.n_labeled >= self.budget:
                    q = None
                else:
                    try:
                        q = self.engine.next_query(exclude=self._log.skipped)
                    except NoCandidatesError:
                        q = None
                self._query_cache = (self._version, q)
                if q is not None and (self._query_time is None or self._query_time[0] != q[0]):
                    self._query_time = (q[0], time.monotonic())
            return self._query_cache[1]

    @property
    def done(self) -> bool:
        """True when there is nothing left to propose (budget reached or pool exhausted)."""
        return self.query() is None

    # -- writing events -------------------------------------------------------------------
    def _event_params(self) -> dict:
        p = {
            "strategy": self.strategy_name,
            "kernel": self.params["kernel"],
            "sigma": self.params["sigma"],
            "lam": self._lam,
        }
        if self.params["lam"] == "auto":
            p["lam_mode"] = "auto"
        if self.params["class_weight"] is not None:
            p["class_weight"] = self.params["class_weight"]
        return p

    def _check_point(self, i) -> int:
        if isinstance(i, bool) or not isinstance(i, int | np.integer):
            raise ValueError(f"point index must be an integer, got {i!r}")
        if not 0 <= int(i) < self.project.n:
            raise ValueError(f"point index {i} is outside the pool (0 … {self.project.n - 1})")
        return int(i)

    def label(
        self, i: int, label, seconds: float | None = None, annotator: str | None = None
    ) -> int:
        """Label point ``i``: the event is committed first, then the engine updated.

        ``seconds`` is the time spent on the point; when omitted and ``i`` is the proposed
        query, the time since it was first proposed is recorded. Returns the event id.
        """
        with self._lock:
            i = self._check_point(i)
            label = plain_scalar(label)
            if label not in self.project.classes:
                raise ValueError(
                    f"label {label!r} is not one of the classes {self.project.classes}"
                )
            if seconds is None and self._query_time is not None and self._query_time[0] == i:
                seconds = round(time.monotonic() - self._query_time[1], 3)
            event = Event(
                "label",
                point=i,
                label=label,
                annotator=self.annotator if annotator is None else annotator,
                seconds=seconds,
                params=self._event_params(),
            )
            eid = self.store.append_event(self.project_name, event)
            self.sync()
            return eid

    def skip(self, i: int) -> int:
        """Do not propose point ``i`` again (it stays unlabeled). Returns the event id."""
        with self._lock:
            i = self._check_point(i)
            self.sync()
            if i in self._log.labels:
                raise ValueError(
                    f"point {i} is labeled ({self._log.labels[i]!r}): undo or relabel it instead "
                    "of skipping"
                )
            eid = self.store.append_event(
                self.project_name,
                Event("skip", point=i, annotator=self.annotator, params=self._event_params()),
            )
            self.sync()
            return eid

    def undo(self) -> Event | None:
        """Revert the most recent label or skip (any annotator's); returns the reverted event.

        None when another tab reverted it at the same moment. ``ValueError`` when there is
        nothing to undo.
        """
        with self._lock:
            self.sync()
            target = self._log.last_active()
            if target is None:
                raise ValueError("nothing to undo: no label or skip yet")
            try:
                self.store.append_event(
                    self.project_name,
                    Event("undo", target=target.id, annotator=self.annotator),
                )
            except ValueError:  # undone by another tab in between: its undo is enough
                self.sync()
                return None
            self.sync()
            return target

    def auto_label(self, n: int, annotator: str = "oracle") -> int:
        """Label the next ``n`` queries with the true labels; returns how many were labeled."""
        if self.project.truth is None:
            raise ValueError(
                f"project {self.project_name!r} has no ground truth: auto-labeling needs a "
                "truth column"
            )
        done = 0
        with self._lock:
            for _ in range(int(n)):
                q = self.query()
                if q is None:
                    break
                self.label(q[0], self.project.truth[q[0]], seconds=0.0, annotator=annotator)
                done += 1
        return done

    # -- parameters -----------------------------------------------------------------------
    def set_params(self, **kw) -> LabelingSession:
        """Change parameters; engine parameters rebuild the engine from the event log.

        ``annotator``, ``budget``, ``stop_window`` and ``stop_tolerance`` change without a
        rebuild. If the new parameters are invalid the session keeps the old ones.
        """
        with self._lock:
            for key in ("annotator", "stop_window", "stop_tolerance"):
                if key in kw:
                    setattr(self, key, type(getattr(self, key))(kw.pop(key)))
            if "budget" in kw:
                self.budget = self._check_budget(kw.pop("budget"))
                self._version += 1
            if isinstance(kw.get("strategy"), str):
                strategy_class(kw["strategy"])  # unknown name: error before touching state
            changed = {k: v for k, v in kw.items() if self.params.get(k, None) != v}
            if not changed:
                return self
            old = dict(self.params)
            self.params.update(changed)
            try:
                self._build()
            except Exception:
                self.params = old
                self._build()
                raise
            return self

    def get_params(self) -> dict:
        """The session's parameters (``lam`` may be ``"auto"``; see :attr:`lam_`)."""
        return {
            **self.params,
            "annotator": self.annotator,
            "budget": self.budget,
            "stop_window": self.stop_window,
            "stop_tolerance": self.stop_tolerance,
        }

    # -- diagnostics ----------------------------------------------------------------------
    def _errors(self, pred: np.ndarray) -> tuple[float | None, float | None]:
        truth = self.project.truth
        mask = np.ones(truth.size, dtype=bool)
        mask[list(self._log.labels)] = False
        if not mask.any():
            return None, None
        wrong = pred.astype(object)[mask] != truth[mask]
        t = truth[mask]
        per_class = [float(np.mean(wrong[t == c])) for c in self.project.classes if (t == c).any()]
        return float(np.mean(wrong)), float(np.mean(per_class))

    def validation_error(self, balanced: bool = False) -> float | None:
        """Error of the current predictions on the unlabeled pool points against the truth.

        ``balanced`` averages the per-class error rates. None without ground truth or when
        every point is labeled.
        """
        if self.project.truth is None:
            return None
        hist = self.balanced_validation_history if balanced else self.validation_history
        return hist[-1]

    def loo_errors(self) -> dict:
        """Exact LOO error of RLS on the labeled set (plain and balanced), at the session's
        kernel, σ and λ; ``None`` values with fewer than 2 classes labeled or without RLS."""
        with self._lock:
            if self._stats_cache is not None and self._stats_cache[0] == self._version:
                return self._stats_cache[1]
            result = {"loo_error": None, "loo_balanced_error": None}
            fit = self._fit_rls(self._lam)
            if fit is not None:
                clf, y = fit
                wrong = _loo_labels(clf).astype(object) != y
                result["loo_error"] = float(np.mean(wrong))
                result["loo_balanced_error"] = float(
                    np.mean(
                        [np.mean(wrong[y == c]) for c in self.project.classes if (y == c).any()]
                    )
                )
            self._stats_cache = (self._version, result)
            return result

    def _fit_rls(self, lam: float | str):
        """RLS fitted on the labeled points, or None (too few labels / classes, no RLS)."""
        try:
            from rlscore.core.rls import RLSClassifier
        except ImportError:
            return None
        idx = list(self._log.labels)
        y = np.asarray([self._log.labels[i] for i in idx], dtype=object)
        if len(idx) < 3 or len(set(y.tolist())) < 2:
            return None
        kernel = self.params["kernel"]
        labels = np.asarray(y.tolist())
        if kernel in ("linear", "polynomial", "rbf") or self._kernel_cache is None:
            kernel = kernel if kernel in ("linear", "polynomial", "rbf") else "rbf"
            clf = RLSClassifier(kernel=kernel, sigma=self.params["sigma"], lam=lam)
            return clf.fit(self.project.X[idx], labels), y
        # graph kernels exist on the whole pool only: LOO on L uses the pool kernel's block
        K = self._kernel_cache[1]
        clf = RLSClassifier(kernel="precomputed", lam=lam)
        return clf.fit(K[np.ix_(idx, idx)], labels), y

    def _loo_lam(self) -> float | None:
        fit = self._fit_rls("auto")
        return None if fit is None else float(fit[0].lam_)

    def stopping(self) -> dict:
        """Stopping indicator (SPEC §5: the estimated risk alone misleads).

        Returns a dict with ``n_labeled``, ``window`` (k), ``prediction_change`` (fraction of
        pool points whose predicted class changed over the last k labels; None before k
        labels), ``change_history`` (fraction changed by each label), ``loo_error`` and
        ``loo_balanced_error`` (exact LOO on the labeled set), ``estimated_risk``,
        ``stable`` (prediction change ≤ tolerance over a full window) and a ``message``.
        """
        with self._lock:
            n_lab = self.n_labeled
            k = self.stop_window
            now, before = self._predictions.get(n_lab), self._predictions.get(n_lab - k)
            change = None
            if n_lab >= k and now is not None and before is not None:
                change = float(np.mean(now != before))
            stable = change is not None and change <= self.stop_tolerance
            if change is None:
                message = f"label at least {k} points to judge whether the predictions settle"
            elif stable:
                message = (
                    f"predictions changed for {change:.1%} of the pool over the last {k} labels "
                    f"(≤ {self.stop_tolerance:.1%}): they have settled; more labels are unlikely "
                    "to change much"
                )
            else:
                message = (
                    f"predictions changed for {change:.1%} of the pool over the last {k} labels "
                    f"(> {self.stop_tolerance:.1%}): keep labeling"
                )
            return {
                "n_labeled": n_lab,
                "window": k,
                "prediction_change": change,
                "change_history": list(self.change_history),
                **self.loo_errors(),
                "estimated_risk": self.risk_history[-1],
                "stable": stable,
                "message": message,
            }

    # -- export ---------------------------------------------------------------------------
    def export(self, fmt: str = "csv", *, include_features: bool = True) -> str:
        """The current labels as CSV or JSON text (see :func:`export_labels`)."""
        with self._lock:
            return export_labels(self.project, self._log, fmt, include_features=include_features)

    def __repr__(self) -> str:
        return (
            f"LabelingSession({self.project_name!r}, strategy={self.strategy_name!r}, "
            f"labeled={self.n_labeled}/{self.project.n})"
        )


def _loo_labels(clf) -> np.ndarray:
    """Class predicted for each training point by its leave-one-out classifier."""
    f = np.asarray(clf.loo_decision_)
    classes = np.asarray(clf.classes_)
    if f.ndim == 1:
        return classes[(f > 0).astype(int)]
    return classes[np.argmax(f, axis=1)]


__all__ = ["LabelLog", "LabelingSession", "PoolTooLargeError", "export_labels"]
