"""What a labeling session shows: its state, histories, diagnostics and export, read-only.

:class:`SessionView` reads the state that :class:`~rlscore.sessions.state.replay.Replay` folds from
the project's event log: the labels and skips, the engine and its parameters, the histories
along the labeling path (:mod:`~rlscore.sessions.views.diagnostics`), the validation and
leave-one-out errors, the stopping indicator (:mod:`~rlscore.sessions.stopping.prediction_change`)
and the export (:mod:`~rlscore.sessions.views.export`).
:class:`~rlscore.sessions.actions.session.LabelingSession` adds what changes the log.

**Who labeled what is a reviewer's read** (docs/deployment.md, "Who can read what"): a
checked session (``LabelingSession(checked=True)``) answers its annotator's own
:meth:`~SessionView.recent_labels`, :meth:`~SessionView.last_action`, count in
:meth:`~SessionView.progress` and
:meth:`~rlscore.sessions.actions.session.LabelingSession.overlap_queue`; another annotator's
need the ``see_labels`` permission (a reviewer's or an owner's, anyone's in a project without
members), as the Label page and the commands' ``--as`` already required.
"""

from __future__ import annotations

import threading

import numpy as np

from rlscore.core.conventions.user_names import user_key
from rlscore.core.evaluation.set_accuracy import MicroF1Estimate, micro_f1_estimate
from rlscore.data.projects.project import Project
from rlscore.query import QueryStrategy
from rlscore.sessions.state.loo_refit import loo_errors
from rlscore.sessions.state.replay import Replay, SessionState
from rlscore.sessions.stopping.prediction_change import stopping_report
from rlscore.sessions.stopping.set_accuracy import check_sets
from rlscore.sessions.team.permissions import allowed, require, same_user
from rlscore.sessions.views.export import export_labels
from rlscore.storage import Event


def check_budget(budget) -> int | None:
    """A labeling budget: a positive whole number, or None / 0 for no budget."""
    if budget is None or (budget == 0 and not isinstance(budget, bool)):
        return None  # 0 = no budget, as a number input's "unset" value
    if isinstance(budget, bool) or not isinstance(budget, int | np.integer) or budget < 1:
        raise ValueError(f"budget must be a positive whole number of labels, got {budget!r}")
    return int(budget)


class SessionView:
    """The read side of a labeling session, kept in step with the log by :meth:`sync`.

    Parameters
    ----------
    replay
        The session's state, kept in step with the project's log.
    budget
        Default maximum number of labels (None: no budget; see :func:`check_budget`).
    stop_window, stop_tolerance
        Stopping indicator: predictions on the pool are *stable* when at most
        ``stop_tolerance`` of them changed over the last ``stop_window`` labels.
    """

    #: whether reads that need a role (the export, who labeled what) are checked against
    #: :attr:`annotator` (a :class:`~rlscore.sessions.actions.session.LabelingSession` opened
    #: ``checked``)
    checked: bool = False
    _annotator: str = "anonymous"

    @property
    def annotator(self) -> str:
        """Who the session is for, as their key
        (:func:`~rlscore.core.conventions.user_names.user_key`: ``Ann@X.org`` is
        ``ann@x.org``, the name their events are written under)."""
        return self._annotator

    @annotator.setter
    def annotator(self, name: str) -> None:
        self._annotator = user_key(name)

    def __init__(
        self,
        replay: Replay,
        budget: int | None = None,
        stop_window: int = 10,
        stop_tolerance: float = 0.01,
    ):
        self._replay = replay
        self._budget = check_budget(budget)
        self.stop_window = int(stop_window)
        self.stop_tolerance = float(stop_tolerance)
        self._lock = threading.RLock()
        self._loo_cache: tuple[int, dict] | None = None

    def sync(self) -> bool:
        """Apply the events other tabs or processes committed since the last call.

        Returns True if anything changed. A project deleted meanwhile raises
        :class:`~rlscore.storage.UnknownProjectError`; one deleted and created again under
        the same name is reloaded from scratch.
        """
        with self._lock:
            return self._replay.sync()

    # -- the project and the engine -------------------------------------------------------
    @property
    def project(self) -> Project:
        return self._replay.project

    @property
    def project_name(self) -> str:
        return self._replay.project_name

    @property
    def params(self) -> dict:
        """The engine parameters (``strategy``, ``kernel``, ``sigma``, ``lam``, …)."""
        return self._replay.params

    @property
    def restored_from_snapshot_(self) -> int | None:
        """Id of the last event the loaded snapshot had seen; None after a full replay."""
        return self._replay.restored_from_snapshot_

    @property
    def _state(self) -> SessionState:
        return self._replay.state

    @property
    def engine(self) -> QueryStrategy:
        """The query strategy, taught the current labels."""
        return self._state.engine

    @property
    def pool_kernel_(self) -> np.ndarray | None:
        """The pool kernel (n × n) the strategy works with; None for a strategy that needs
        none (the low-rank and low-memory ones). A graph kernel exists only as this."""
        return self._state.kernels.get(self.engine, self.project.X)

    @property
    def strategy_name(self) -> str:
        return self._replay.strategy_name

    @property
    def lam_(self) -> float:
        """The λ in effect (the automatic one when ``lam="auto"``; a KLR's own choice)."""
        engine_lam = getattr(self._state.engine, "lam_", None)
        return float(engine_lam) if engine_lam is not None else self._state.lam

    # -- the log --------------------------------------------------------------------------
    @property
    def labels(self) -> dict[int, object]:
        """Current labels, point index -> label (in the order they were given)."""
        log = self._state.log
        return {i: log.labels[i] for i in log.label_order()}

    @property
    def n_labeled(self) -> int:
        return len(self._state.log.labels)

    @property
    def skipped(self) -> set[int]:
        return set(self._state.log.skipped)

    @property
    def last_event_id(self) -> int:
        """Id of the newest event applied."""
        return self._state.log.last_id

    def progress(self) -> dict[str, int]:
        """Points whose current label each annotator gave, most first (an annotator with
        none is left out).

        A checked session whose annotator may not see who labeled what (an annotator of a
        project with members) gets their own count only: the Label page shows them no more.
        """
        counts = self._state.log.labels_by()
        if self.checked and not self._may_see_labels():
            counts = {a: n for a, n in counts.items() if a == self.annotator}
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def last_action(self, annotator: str | None = None) -> Event | None:
        """The label, review or skip
        :meth:`~rlscore.sessions.actions.session.LabelingSession.undo` would revert: of
        ``annotator`` when given, else the project's last one — in a checked session of a
        project with members, its annotator's (as its ``undo()``).

        Raises
        ------
        PermissionDeniedError
            A checked session asked for another annotator's, without ``see_labels``.
        """
        if annotator is None and self.checked and self.store.members(self.project_name):
            annotator = self.annotator
        self._check_labels_of(annotator)
        return self._state.log.last_active(annotator)

    def recent_labels(self, annotator: str, k: int = 5) -> list[Event]:
        """The annotator's ``k`` most recent labels that still hold, newest first.

        Raises
        ------
        PermissionDeniedError
            A checked session asked for another annotator's labels, and its annotator may not
            see who labeled what (``see_labels``: the reviewer role).
        """
        self._check_labels_of(annotator)
        return self._state.log.recent_labels(str(annotator), k)

    def _may_see_labels(self) -> bool:
        """Whether the session's annotator may read who labeled what (``see_labels``)."""
        return allowed(self.store.members(self.project_name), self.annotator, "see_labels")

    def _check_labels_of(self, annotator: str | None) -> None:
        """Refuse a checked session a read of ``annotator``'s own labels or actions unless
        they are its annotator's, or its annotator may see who labeled what: the message
        names the role needed (:func:`~rlscore.sessions.team.permissions.require`)."""
        if self.checked and annotator is not None and not same_user(annotator, self.annotator):
            require(self.store, self.project_name, self.annotator, "see_labels")

    # -- the budget: per caller -----------------------------------------------------------
    @property
    def budget(self) -> int | None:
        """The default budget (from the constructor); callers pass their own to the methods."""
        return self._budget

    def _resolve_budget(self, budget) -> int | None:
        return self._budget if budget is None else check_budget(budget)

    def budget_left(self, budget: int | None = None) -> int | None:
        """Labels left within ``budget`` (None: the default budget; 0: no budget); None when
        there is no budget."""
        b = self._resolve_budget(budget)
        return None if b is None else max(0, b - self.n_labeled)

    # -- histories and diagnostics --------------------------------------------------------
    @property
    def risk_history(self) -> list[float]:
        """The engine's estimated risk with 0, 1, … labels (what it measures depends on the
        strategy: :attr:`strategy_name`; the UI words it by ``rlscore.ui.shell.strategy_names``)."""
        return list(self._state.history.risk)

    @property
    def validation_history(self) -> list[float | None]:
        """Validation error (unlabeled pool points) with 0, 1, … labels; empty without truth."""
        return list(self._state.history.validation)

    @property
    def balanced_validation_history(self) -> list[float | None]:
        return list(self._state.history.balanced_validation)

    @property
    def change_history(self) -> list[float | None]:
        """Fraction of the pool whose predicted class the n-th label changed."""
        return list(self._state.history.change)

    def validation_error(self, balanced: bool = False) -> float | None:
        """Validation error of the current predictions
        (:mod:`rlscore.core.evaluation.validation_error`: the unlabeled pool points against the
        truth).

        ``balanced`` averages the per-class error rates. None without ground truth or when
        every point is labeled.
        """
        if self.project.truth is None:
            return None
        history = self._state.history
        return (history.balanced_validation if balanced else history.validation)[-1]

    def loo_errors(self) -> dict:
        """Exact LOO error of RLS on the labeled set (plain and balanced), at the session's
        kernel, weights and λ (:mod:`rlscore.sessions.state.loo_refit`); ``None`` values with fewer
        than 2 classes labeled, and in a multi-label project (not available there yet)."""
        if self.project.multi_label:  # the LOO of one class per point: single-label only
            return {"loo_error": None, "loo_balanced_error": None}
        with self._lock:
            if self._loo_cache is None or self._loo_cache[0] != self._replay.version:
                st = self._state
                result = loo_errors(
                    st.engine, self.project.X, st.log.labels, st.lam, st.kernels.matrix
                )
                self._loo_cache = (self._replay.version, result)
            return self._loo_cache[1]

    def set_accuracy(self) -> MicroF1Estimate | None:
        """A multi-label project's headline: the micro-F1 of its predicted sets estimated
        from the random checks
        (:func:`~rlscore.sessions.stopping.set_accuracy.check_sets` and
        :func:`~rlscore.core.evaluation.set_accuracy.micro_f1_estimate`); None for a
        single-label project, too few checks or checks without any true or predicted class."""
        if not self.project.multi_label:
            return None
        with self._lock:
            st = self._state
            labels = dict(st.log.labels)
            sets = check_sets(
                self.project, st.engine, labels, st.log.checks, st.lam, st.kernels.matrix
            )
        return None if sets is None else micro_f1_estimate(*sets)

    def stopping(self) -> dict:
        """Stopping indicator
        (:func:`~rlscore.sessions.stopping.prediction_change.stopping_report`): never settled
        before every class has a label."""
        with self._lock:
            labels = self._state.log.labels.values()
            if self.project.multi_label:  # a class is labeled once a set holds it
                labels = [c for s in labels for c in s]
            labeled = set(labels)
            return stopping_report(
                self._state.history,
                window=self.stop_window,
                tolerance=self.stop_tolerance,
                missing_classes=[c for c in self.project.classes if c not in labeled],
                loo=self.loo_errors(),
            )

    # -- export ---------------------------------------------------------------------------
    def export(self, fmt: str = "csv", *, include_features: bool = True) -> str:
        """The current labels as CSV or JSON text (see :func:`export_labels`): every
        annotator's, with their names, so an owner's in a project with members when the
        session is checked (``LabelingSession(checked=True)``, the default); the app exports
        through :func:`rlscore.sessions.team.audit.export_project`, which records it."""
        if self.checked:
            require(self.store, self.project_name, self.annotator, "export")
        with self._lock:
            return export_labels(
                self.project, self._state.log, fmt, include_features=include_features
            )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.project_name!r}, strategy={self.strategy_name!r}, "
            f"labeled={self.n_labeled}/{self.project.n})"
        )


__all__ = ["SessionView", "check_budget"]
