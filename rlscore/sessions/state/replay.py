"""A session's state as a pure function of the project's event log and of its parameters.

:class:`Replay` builds the state (from the newest snapshot if any, else from scratch) and
applies the events one at a time, always through :meth:`Replay._apply`, whether they arrive
live, from another tab or process (:meth:`Replay.sync`) or from the database when a session
is (re)opened. A state rebuilt after a reload, a restart or ``kill -9`` is therefore
bit-for-bit the same.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rlscore.core.kernels.rbf_width import DEFAULT_SIGMA, resolve_sigma
from rlscore.query import DEFAULT_MULTILABEL_STRATEGY, QueryStrategy
from rlscore.sessions.state.auto_lam import first_label, initial_lam, retune_lam
from rlscore.sessions.state.engine import (
    KernelCache,
    check_pool_size,
    make_engine,
    multi_label_strategy,
    start_engine,
    strategy_name,
    uses_own_lam_rule,
)
from rlscore.sessions.state.feature_files import FeatureFiles
from rlscore.sessions.state.label_log import LabelLog, check_final_rule, history_digest
from rlscore.sessions.state.settings import check_class_weight
from rlscore.sessions.state.snapshots import SnapshotCache, snapshot_key
from rlscore.sessions.views.diagnostics import (
    History,
    coded_validation_errors,
    predicted_codes,
    predicted_set_codes,
    set_validation_errors,
    truth_codes,
    truth_set_codes,
)
from rlscore.storage import Event, LabelStore, UnknownProjectError


@dataclass
class SessionState:
    """Everything the events build (what a snapshot holds)."""

    engine: QueryStrategy
    log: LabelLog
    lam: float
    history: History
    kernels: KernelCache


def _same_history(state: object, events: list[Event]) -> bool:
    """Whether the snapshot ``state`` was folded from the first of ``events``: the same
    events, not only the same last id (a restored backup gives lost events' ids to new ones)."""
    if not isinstance(state, SessionState):
        return False
    log = state.log
    applied = [e for e in events if e.id <= log.last_id]
    return getattr(log, "history", None) == history_digest(applied)


class Replay:
    """The state of one project under one set of parameters, kept in step with its log.

    Parameters
    ----------
    store
        The label store.
    project
        Project name.
    params
        The session's parameters (:data:`rlscore.sessions.state.engine.ENGINE_PARAMS` and further
        strategy parameters); ``lam`` None takes the project's recommended λ (else 1),
        ``sigma`` None its recommended σ (else the median distance between its points,
        :mod:`rlscore.core.kernels.rbf_width`). Change them with :meth:`update`.
    snapshot_dir
        Directory of the snapshot cache, or None.
    rule
        How a point's final label follows from its annotators' labels
        (:data:`rlscore.sessions.state.label_log.FINAL_RULES`); change it with :meth:`update_rule`.

    Attributes
    ----------
    state : SessionState
    version : int
        Grows with every event applied and every build (callers key their caches on it).
    restored_from_snapshot_ : int or None
        Id of the last event the loaded snapshot had seen; None after a full replay.
    """

    def __init__(
        self,
        store: LabelStore,
        project: str,
        params: dict,
        snapshot_dir: Path | None,
        rule: str = "latest",
    ) -> None:
        self.store = store
        self.rule = check_final_rule(rule)
        self.project_name = project
        self.project = store.load_project(project)
        meta = self.project.meta
        self.params = dict(params)
        if self.params.get("strategy") is None:
            # focused ARLS, or for sets the multi-label strategy that led its benchmark
            # (docs/benchmarks/multilabel.md)
            multi = self.project.multi_label
            self.params["strategy"] = DEFAULT_MULTILABEL_STRATEGY if multi else "arls-focused"
        if self.params.get("lam") is None:
            self.params["lam"] = float(meta.get("lam") or 1.0)
        if self.params.get("sigma") is None:
            # a sample's tuned σ, else the data-adaptive default of every RBF estimator
            self.params["sigma"] = resolve_sigma(meta.get("sigma") or DEFAULT_SIGMA, self.project.X)
        self._snapshot_dir = snapshot_dir
        self._snapshots = SnapshotCache(snapshot_dir)
        self._kernels = KernelCache()
        self._features = FeatureFiles(snapshot_dir)
        self.version = 0
        self.build()

    @property
    def strategy_name(self) -> str:
        """The strategy's name (a multi-label project's: the multi-label strategy's)."""
        name = strategy_name(self.params["strategy"])
        return multi_label_strategy(name) if self.project.multi_label else name

    def build(self) -> None:
        """(Re)build the state from :attr:`params`; an invalid parameter raises before the
        current state is touched."""
        started = time.perf_counter()
        # a mapping's keys are the project's classes ("1" names the class 1), else refused
        self.params["class_weight"] = check_class_weight(
            self.params.get("class_weight"),
            self.project.classes,
            multi_label=self.project.multi_label,
        )
        lam = initial_lam(self.params["lam"], self.project.meta)
        # validates before any snapshot
        engine = make_engine(
            self.params, lam, self.project.meta, multi_label=self.project.multi_label
        )
        check_pool_size(engine, self.project.n, self.strategy_name)
        self._snapshots = SnapshotCache(self._snapshot_dir if engine.snapshot_worthy else None)
        key = snapshot_key(self._describe())
        events = self.store.events(self.project_name)
        state = self._snapshots.load(key, lambda s: _same_history(s, events))
        restored = None if state is None else state.log.last_id
        if state is None:
            K = self._kernels.get(engine, self.project.X)
            # a large pool's low-rank features: read if kept, else built by the start and kept
            unkept = self._features.restore(engine, self.project.X)
            start_engine(engine, self.project.X, self.project.classes, K, self.strategy_name)
            self._features.keep(unkept, engine)
            state = SessionState(engine, LabelLog(rule=self.rule), lam, History(), self._kernels)
        self.state, self._kernels, self._key = state, state.kernels, key
        self.restored_from_snapshot_: int | None = restored
        self.version += 1
        if restored is None:
            self._record()
        self._snapshots.reset_work(time.perf_counter() - started)
        for e in events:
            if e.id > state.log.last_id:
                self._apply(e)
        self._snapshots.maybe_save(self._key, self.state)

    def update(self, changes: dict) -> None:
        """Rebuild with ``changes`` to the parameters; if they are refused, the old parameters
        and state come back and the error is raised."""
        old = dict(self.params)
        self.params.update(changes)
        rebuilt = False
        try:
            self.build()
            rebuilt = True
        finally:
            if not rebuilt:  # a rollback, not a handler: the error propagates
                self.params.clear()
                self.params.update(old)
                self.build()

    def update_rule(self, rule: str) -> None:
        """Rebuild with another final-label rule (the overlap setting changed)."""
        rule = check_final_rule(rule)
        if rule != self.rule:
            self.rule = rule
            self.build()

    def sync(self) -> bool:
        """Apply the events committed since the last call; True if anything changed.

        A project deleted meanwhile raises :class:`~rlscore.storage.UnknownProjectError`; one
        deleted and created again under the same name is reloaded from scratch.
        """
        uid = self.store.project_uid(self.project_name)
        if uid is None:
            raise UnknownProjectError(
                f"project {self.project_name!r} was deleted: choose another project"
            )
        if uid != self.project.uid:
            self.project = self.store.load_project(self.project_name)
            self.build()
            return True
        new = self.store.events(self.project_name, after_id=self.state.log.last_id)
        for e in new:
            self._apply(e)
        if new:
            self._snapshots.maybe_save(self._key, self.state)
        return bool(new)

    def _describe(self) -> dict:
        """What the state depends on besides the events (the snapshot key)."""
        strategy = self.params["strategy"]
        if not isinstance(strategy, str):
            strategy = [type(strategy).__module__, type(strategy).__qualname__, repr(strategy)]
        return {
            "project": [self.project_name, self.project.uid],
            "params": {**self.params, "strategy": strategy},
            "rule": self.rule,
        }

    def _apply(self, event: Event) -> None:
        """The only path by which events change the state (live, synced or replayed)."""
        started = time.perf_counter()
        st = self.state
        # the automatic λ (RLS leave-one-out of one class per point) is single-label only: a
        # multi-label session keeps the λ it started with
        own_rule = uses_own_lam_rule(st.engine) or self.project.multi_label
        point, old, new = st.log.apply(event)
        self.version += 1
        if old == new and type(old) is type(new):
            return
        if old is not None:
            st.engine.forget(point)
        if new is not None:
            st.engine.teach(point, new)
        if self.params["lam"] == "auto" and first_label(old, new) and not own_rule:
            st.lam = retune_lam(st.engine, st.lam, self.project.X, st.log.labels, st.kernels.matrix)
        self._record()
        self._snapshots.add_work(time.perf_counter() - started)

    def _record(self) -> None:
        """Record the risk, predictions and validation errors of the current labels."""
        st = self.state
        if self.project.multi_label:  # label sets, coded as sets
            codes, errors_of = predicted_set_codes(st.engine), set_validation_errors
        else:  # class positions, not labels: a click builds and hashes no (n,) array of labels
            codes = predicted_codes(st.engine, self.project.classes)
            errors_of = coded_validation_errors
        truth = self._truth_codes()
        errors = None if truth is None else errors_of(truth, codes, st.log.labels)
        st.history.record(len(st.log.labels), st.engine.estimated_risk(), codes, errors)

    #: (truth array, its classes, its codes by :func:`truth_codes`) of the last :meth:`_record`
    _truth: tuple | None = None

    def _truth_codes(self) -> np.ndarray | None:
        """The project's truth as class positions (None without truth), coded once per truth
        array (a reloaded project's is coded again)."""
        truth, classes = self.project.truth, list(self.project.classes)
        if truth is None:
            return None
        if self._truth is None or self._truth[0] is not truth or self._truth[1] != classes:
            coded = truth_set_codes if self.project.multi_label else truth_codes
            self._truth = (truth, classes, coded(truth, classes))
        return self._truth[2]


__all__ = ["Replay", "SessionState"]
