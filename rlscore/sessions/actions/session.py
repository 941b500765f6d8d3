"""A labeling session: a query strategy driven by a project's persistent event log.

The state of a session — labels, skipped points, the query engine, the histories — is a pure
function of the project's event log in the store and of the session's parameters
(:mod:`rlscore.sessions.state.replay`): a session rebuilt after a reload, a server restart or ``kill
-9`` holds bit-for-bit the same engine state and proposes the same next query. Event semantics:
:mod:`rlscore.sessions.state.label_log`. Labels are never deleted from the database: undone events
stay in the log, marked by the undo event that reverts them.

:class:`LabelingSession` writes events (label, skip, review, undo) and proposes queries; the pieces
it orchestrates have a module each: what it shows — state, histories, diagnostics, export — is its
base class :class:`~rlscore.sessions.views.session_view.SessionView`; which point it proposes to
whom is :class:`~rlscore.sessions.team.handout.Handout`; the checks an action passes and the event
it writes are :mod:`~rlscore.sessions.actions.action_events`; its parameters, from the project's
settings to a change, are :mod:`~rlscore.sessions.actions.session_params`; then the event fold
(:mod:`~rlscore.sessions.state.label_log`), the replay of the log
(:mod:`~rlscore.sessions.state.replay`), the engine and its pool kernel
(:mod:`~rlscore.sessions.state.engine`), the automatic λ (:mod:`~rlscore.sessions.state.auto_lam`),
the RLS refitted on the labels (:mod:`~rlscore.sessions.state.loo_refit`), histories
(:mod:`~rlscore.sessions.views.diagnostics`), the stopping indicator
(:mod:`~rlscore.sessions.stopping.prediction_change`), the snapshot cache
(:mod:`~rlscore.sessions.state.snapshots`) and the export (:mod:`~rlscore.sessions.views.export`).

A session may be shared by several callers (browser tabs, annotators): what differs per
caller — the labeling budget, the annotator — is an argument of the methods, never state of
the session.

**Labels bound to what was shown.** Two rules keep a label on the point its annotator saw:

* *claims* — :meth:`LabelingSession.query` reserves the proposed point for its annotator (the
  session's own unless the call names another) in the database
  (:meth:`~rlscore.storage.interface.label_store.LabelStore.claim`, with an expiry renewed while it
  is shown), so two annotators, in any tab on any server, are shown different points, and one
  annotator sees the same query after a reload;
* *the version seen* — :meth:`~LabelingSession.label` and :meth:`~LabelingSession.skip` take
  ``seen``, the newest event id of the log when the point was put on screen
  (:attr:`~LabelingSession.last_event_id`). The store refuses, in the same transaction as the
  write, an action on a point that anyone labeled, skipped or un-did since
  (:class:`~rlscore.storage.StaleActionError`): a key pressed twice cannot label the next
  point, nor relabel the first, and another annotator's newer label is never overwritten
  without a new decision (a confirmed relabel passes the conflicting event's id as ``seen``).
"""

from __future__ import annotations

import os
from pathlib import Path

from rlscore.core.conventions.user_names import user_key
from rlscore.query import QueryStrategy
from rlscore.sessions.actions.action_events import (
    check_action,
    check_point,
    commit_action,
    event_params,
)
from rlscore.sessions.actions.review import review_point
from rlscore.sessions.actions.session_params import (
    change_params,
    current_params,
    params_from_settings,
)
from rlscore.sessions.actions.undo import undo_last
from rlscore.sessions.state.replay import Replay
from rlscore.sessions.state.snapshots import default_snapshot_dir
from rlscore.sessions.stopping.stopping_view import stop_rule_fired
from rlscore.sessions.team.handout import CLAIM_SECONDS, Handout
from rlscore.sessions.team.overlap import Overlap
from rlscore.sessions.team.permissions import (
    PermissionDeniedError,
    require,
    require_read,
    same_user,
)
from rlscore.sessions.views.session_view import SessionView, check_budget
from rlscore.storage import Event, LabelStore


class LabelingSession(SessionView):
    """One project's labeling state: the next query, labels, skips, undo, diagnostics.

    The arguments are the session's settings, not the project's saved ones: to label as the
    app does, open it with :meth:`from_settings`.

    Parameters
    ----------
    store
        The label store holding the project and its event log.
    project
        Project name.
    strategy
        Strategy name of :data:`rlscore.query.STRATEGIES` (``"arls-focused"``, the default,
        ``"arls"``, ``"arls-weighted"``, ``"aopt-klr"``, ``"uncertainty"``, ``"random"`` …) or a
        started-or-not :class:`~rlscore.query.QueryStrategy` instance (cloned). A multi-label
        project takes a name of :data:`rlscore.query.MULTILABEL_STRATEGIES` (default
        :data:`rlscore.query.DEFAULT_MULTILABEL_STRATEGY`).
    kernel, sigma
        Pool kernel and RBF width (default: the project's recommended σ, else the median
        distance between its points, :mod:`rlscore.core.kernels.rbf_width`).
    lam
        Regularisation λ, or ``"auto"`` (:mod:`rlscore.sessions.state.auto_lam`).
    class_weight
        ``None`` (the strategy's default), ``"balanced"`` or a dict (strategies that take it).
    annotator
        Name written with every event, and for whom :meth:`query` claims its point unless
        told another. Also who opens the session: a project with members is opened by its
        members only (:func:`~rlscore.sessions.team.permissions.require_read`). Kept as the
        user's key (:func:`~rlscore.core.conventions.user_names.user_key`), as is every name a
        method is given: ``Ann@X.org`` and ``ann@x.org`` are one annotator, with one count,
        one overlap queue and one own last action.
    budget
        Default maximum number of labels for callers that pass none to :meth:`query`,
        :meth:`done`, :meth:`budget_left` and :meth:`auto_label` (None or 0: no budget).
    stop_window, stop_tolerance
        Stopping indicator: predictions on the pool are *stable* when at most
        ``stop_tolerance`` of them changed over the last ``stop_window`` labels.
    snapshots
        Directory for snapshots of the state (default: ``<database>.snapshots/`` next to the
        database; ``False`` for none); see :mod:`rlscore.sessions.state.snapshots`.
    claim_seconds
        How long a point proposed to an annotator stays reserved for them (:meth:`query`).
    overlap, overlap_fraction
        Annotators per point, and the share of the pool that asks for them
        (:class:`~rlscore.sessions.team.overlap.Overlap`): with ``overlap > 1`` a point one
        annotator labeled is proposed to others first, and the learner trains on the
        majority label; a review (:meth:`review`) decides a point in any case.
    audit_every
        Every k-th query claimed for an annotator is a *random check*, drawn uniformly from
        the open points and marked ``params["audit"]`` in the log when labeled (0: none;
        :mod:`rlscore.sessions.team.handout`). Changes without a rebuild (:meth:`set_params`).
    checked
        Whether ``annotator`` must be allowed to read the project (the default); a checked
        session also acts as ``annotator`` only, in a project with members: an action naming
        someone else (``label(..., annotator=other)``) is refused, :meth:`export` needs
        the owner role, and who labeled what (another annotator's :meth:`recent_labels`,
        :meth:`last_action` or :meth:`overlap_queue`, the others' counts in :meth:`progress`)
        the reviewer role (:mod:`rlscore.sessions.views.session_view`). ``False`` opens it as
        the database's holder, unchecked: the app's sessions, shared by its users, each
        action naming the user it checks (:mod:`rlscore.ui.shell.store`).
    **strategy_params
        Further strategy parameters (e.g. ``graph_k``, ``random_state``).

    Raises
    ------
    PermissionDeniedError
        ``checked`` and the project has members, of whom ``annotator`` is not one: nothing of
        the project is read.

    Notes
    -----
    Cost per call: :meth:`sync` is two indexed queries when nothing changed; :meth:`query`
    is cached until the state changes; a label costs one engine update plus the estimated
    risk and the predictions on the pool (for the histories). Methods are thread-safe (one
    session may be shared by Streamlit reruns and tabs).
    """

    def __init__(
        self,
        store: LabelStore,
        project: str,
        strategy: str | QueryStrategy | None = None,
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
        claim_seconds: float = CLAIM_SECONDS,
        overlap: int = 1,
        overlap_fraction: float = 1.0,
        audit_every: int = 0,
        checked: bool = True,
        **strategy_params,
    ):
        if checked:  # before anything of the project is read
            require_read(store, project, annotator)
        self.checked = bool(checked)
        self.store = store
        if snapshots is True:
            self.snapshot_dir = default_snapshot_dir(store)
        else:
            self.snapshot_dir = Path(snapshots) if snapshots else None
        self.annotator = annotator
        budget = check_budget(budget)
        stop_window, stop_tolerance = int(stop_window), float(stop_tolerance)
        claim_seconds = float(claim_seconds)
        overlap_setting = Overlap(overlap, overlap_fraction)
        params = {
            "strategy": strategy,
            "kernel": kernel,
            "sigma": sigma,
            "lam": lam,
            "class_weight": class_weight,
            **strategy_params,
        }
        replay = Replay(store, project, params, self.snapshot_dir, overlap_setting.rule)
        super().__init__(replay, budget, stop_window, stop_tolerance)
        self._handout = Handout(replay, claim_seconds, overlap_setting, audit_every)

    @classmethod
    def from_settings(
        cls, store: LabelStore, project: str, *, annotator: str = "anonymous", **overrides
    ) -> LabelingSession:
        """The session the app opens for ``project``: its saved settings (the sidebar's, or
        ``python -m rlscore settings --set``) over its defaults — strategy, kernel, σ, λ,
        class weights, low-rank settings, budget, overlap and random checks —
        :func:`~rlscore.sessions.state.settings.project_settings`.

        The constructor's own defaults are not the project's (λ = 1 and no class weights
        where a sample recommends λ = 0.5 and balanced weights): a session meant to label as
        the app does is opened here. ``overrides`` replace single arguments (``snapshots=False``,
        ``lam=0.1`` …).

        Raises
        ------
        PermissionDeniedError
            ``annotator`` may not read the project (checked before its settings are read).
        """
        require_read(store, project, annotator)
        args = params_from_settings(store, project)
        return cls(store, project, annotator=annotator, **(args | overrides))

    # -- queries: which point is shown to whom (rlscore.sessions.team.handout) ----------------
    @property
    def overlap(self) -> Overlap:
        """Annotators per point (change it with :meth:`set_params`)."""
        return self._handout.overlap

    @property
    def claim_seconds(self) -> float:
        """How long a point proposed to an annotator stays reserved for them."""
        return self._handout.claim_seconds

    @claim_seconds.setter
    def claim_seconds(self, seconds: float) -> None:
        self._handout.claim_seconds = float(seconds)

    def query(
        self, budget: int | None = None, annotator: str | None = None, *, claim: bool = True
    ) -> tuple[int, float] | None:
        """The proposed next point and its score (lower is better), skipped points excluded.

        None once ``budget`` labels are reached (None: the default budget; 0: no budget) or
        no unlabeled, unskipped point is left.

        The point is claimed in the store for ``annotator`` (default: the session's
        :attr:`annotator`), so two sessions on one store, in any process, are shown different
        points: their own unexpired claim on an open point is proposed again (a reload shows
        the same query), points other annotators hold are passed over, and the claim is
        renewed for ``claim_seconds``.

        ``claim=False`` only asks the engine for its next query (cached until the state
        changes), whoever holds it, and writes nothing to the store.

        Raises
        ------
        PermissionDeniedError
            A claim for someone who may not label the project (it has members and they are
            not one): nothing is claimed (:mod:`rlscore.sessions.team.permissions`).
        """
        if not claim and annotator is not None:
            raise ValueError(
                f"query(annotator={annotator!r}, claim=False): a query for an annotator is "
                "claimed for them; drop annotator to ask without claiming"
            )
        with self._lock:
            b = self._resolve_budget(budget)
            if b is not None and self.n_labeled >= b:
                return None
            if not claim:
                return self._handout.propose(None)
            who = self._acting(annotator)
            # a claim holds a point for its holder: only a member who may label gets one
            require(self.store, self.project_name, who, "label")
            return self._handout.propose(str(who))

    def query_batch(
        self, annotators: list[str], budget: int | None = None
    ) -> dict[str, tuple[int, float] | None]:
        """One point for each of ``annotators`` at once, claimed for them: together they are
        one greedy batch (each point chosen as if the points handed out before it were
        labeled with their believed labels, :func:`~rlscore.query.protocol.batch.next_query_given`).
        An annotator who already holds a point keeps it. Values as :meth:`query`."""
        with self._lock:
            return {str(a): self.query(budget, annotator=str(a)) for a in annotators}

    def is_random_check(self, i: int, annotator: str | None = None) -> bool:
        """Whether point ``i`` was proposed as a random check (``audit_every``) to
        ``annotator`` (None: to anyone) and is not labeled yet: their label of it will be
        marked as an audit."""
        with self._lock:
            who = None if annotator is None else user_key(annotator)
            return self._handout.is_audit(int(i), who)

    def overlap_queue(self, annotator: str) -> list[int]:
        """Labeled points waiting for ``annotator``'s own label under the overlap setting,
        oldest first (shown to them blind: a teammate's label would bias theirs).

        Raises
        ------
        PermissionDeniedError
            A checked session asked for another annotator's queue (it tells which labeled
            points they labeled), and its annotator lacks the reviewer role.
        """
        self._check_labels_of(annotator)
        with self._lock:
            return self._handout.waiting_for(user_key(annotator))

    def _acting(self, annotator: str | None) -> str:
        """Who acts: ``annotator``, else the session's. A checked session acts as its own
        annotator only (in a project with members): it was opened, and its read checked, for
        them; another member's action needs a session of theirs (or an unchecked one, the
        database holder's, whose caller names and checks each user, as the app does). Returned
        as the user's key: what the events, claims and queues of the project are keyed by."""
        who = self.annotator if annotator is None else user_key(annotator)
        if (
            self.checked
            and not same_user(who, self.annotator)
            and self.store.members(self.project_name)
        ):
            raise PermissionDeniedError(
                f"this session acts as {self.annotator!r}: it may not act as {who!r} (open a "
                "session as them)",
                project=self.project_name,
                user=str(who),
                action="label",
            )
        return who

    def release(self, annotator: str) -> None:
        """Give back the points proposed to ``annotator`` (e.g. when they leave the project)."""
        self._handout.release(str(annotator))

    def done(self, budget: int | None = None) -> bool:
        """True when there is nothing left to propose within ``budget`` (as :meth:`query`)."""
        return self.query(budget, claim=False) is None

    # -- writing events -------------------------------------------------------------------
    def label(
        self,
        i: int,
        label,
        seconds: float | None = None,
        annotator: str | None = None,
        *,
        seen: int | None = None,
        shown_at: float | None = None,
        project_uid: int | None = None,
    ) -> int:
        """Label point ``i``: the event is committed first, then the engine updated.

        ``label`` is one of the classes; in a multi-label project, a label set (a list or
        tuple of classes, empty for "none of these": :mod:`rlscore.core.conventions.label_sets`).

        ``seconds`` is the time spent on the point; when omitted and ``i`` is the proposed
        query, the time since it was first proposed is recorded. ``seen`` is the
        :attr:`last_event_id` when the point was shown: if anyone labeled, skipped or un-did
        it since, nothing is written and :class:`~rlscore.storage.StaleActionError` says
        who (confirm a relabel by calling again with ``seen=error.newest_id``). Returns the
        event id.

        ``shown_at`` is when the point was first put on screen (:func:`time.monotonic` of
        this process): an action less than the minimum dwell after it
        (:mod:`rlscore.sessions.actions.dwell`) is refused with
        :class:`~rlscore.sessions.actions.dwell.TooSoonError`. ``project_uid`` is the
        :attr:`~rlscore.data.projects.project.Project.uid` of the project the point was shown from:
        if the project was deleted (and perhaps created again) since,
        :class:`~rlscore.storage.UnknownProjectError` is raised and nothing is written.
        """
        with self._lock:
            i = check_action(self.store, self.project, i, shown_at, project_uid)
            # one class, or a multi-label project's label set (a tuple in class order)
            label = self.project.check_label(label)
            if seconds is None:
                seconds = self._handout.seconds_shown(i)
            who = self._acting(annotator)
            # a random check's label is marked in the log: the estimate reads it on replay
            audit = self._handout.is_audit(i, who)
            eid = commit_action(
                self.store, self, "label", i, who, seen, audit=audit, label=label, seconds=seconds
            )
            self._handout.labeled(i)
            return eid

    def skip(
        self,
        i: int,
        annotator: str | None = None,
        *,
        seen: int | None = None,
        shown_at: float | None = None,
        project_uid: int | None = None,
    ) -> int:
        """Do not propose point ``i`` again (it stays unlabeled). Returns the event id.

        ``seen``, ``shown_at`` and ``project_uid`` as in :meth:`label`."""
        with self._lock:
            i = check_action(self.store, self.project, i, shown_at, project_uid)
            self.sync()
            who = self._acting(annotator)
            self._handout.check_skippable(i, who, seen)
            return commit_action(self.store, self, "skip", i, who, seen)

    def review(self, i: int, label, reviewer: str | None = None, *, seen: int | None = None) -> int:
        """Decide point ``i``'s final label as a reviewer; returns the event id.

        The decision is its own event (who, when, what: the audit trail) and overrides the
        annotators' labels until it is undone. ``seen`` as in :meth:`label`: a decision on a
        point that changed after the reviewer was shown it is refused.
        """
        with self._lock:
            i = check_point(self.project, i)
            eid = review_point(
                self.store,
                self.project_name,
                i,
                self.project.check_label(label),
                self._acting(reviewer),
                seen=seen,
                params=event_params(self),
            )
            self.sync()
            return eid

    def undo(self, annotator: str | None = None, *, expected: int | None = None) -> Event | None:
        """Revert the most recent label or skip, of ``annotator`` only when given (the app's
        Undo reverts your own last action, never a teammate's); returns the reverted event. A
        checked session of a project with members acts as its annotator only (:meth:`_acting`):
        without ``annotator`` it reverts that annotator's last action, not the project's.

        ``expected``: the id of the event the caller showed as the one Undo reverts; if the
        last action is another one by now (e.g. a second, stale Undo press), nothing is
        reverted and ``ValueError`` says so. None when another tab reverted it at the same
        moment. ``ValueError`` when there is nothing to undo.
        """
        with self._lock:
            self.sync()
            if annotator is None and self.checked and self.store.members(self.project_name):
                annotator = self.annotator  # its own last action: it may revert no other
            reverted = undo_last(
                self.store,
                self.project_name,
                self._state.log,
                annotator,
                expected=expected,
                by=self._acting(annotator),
            )
            self.sync()
            who = self._acting(annotator)
            if reverted is not None and reverted.annotator == who:
                # their own action undone: the point is their next query (as query() claims),
                # a random check still if it was one
                check = reverted.kind == "label" and bool(reverted.params.get("audit"))
                self._handout.show_again(reverted.point, who, check=check)
            return reverted

    def auto_label(
        self,
        n: int,
        annotator: str = "oracle",
        budget: int | None = None,
        *,
        until_stop: bool = False,
    ) -> int:
        """Label the next ``n`` queries (within ``budget``, as :meth:`query`) with the true
        labels; returns how many were labeled.

        ``until_stop``: the budget is "until the stop rule fires" (the project setting of that
        name): no label once the stop rule has fired
        (:func:`~rlscore.sessions.stopping.stopping_view.stop_rule_fired`), where the Label
        page's manual labeling stops too."""
        if self.project.truth is None:
            raise ValueError(
                f"project {self.project_name!r} has no ground truth: auto-labeling needs a "
                "truth column"
            )
        done = 0
        with self._lock:
            for _ in range(int(n)):
                # checked before every label: the rule may fire on the label just given
                if until_stop and stop_rule_fired(self):
                    break
                # claimed like any annotator's query: points shown to people are left alone
                q = self.query(budget, annotator=annotator)
                if q is None:
                    break
                self.label(q[0], self.project.truth[q[0]], seconds=0.0, annotator=annotator)
                done += 1
        return done

    # -- parameters -----------------------------------------------------------------------
    def set_params(self, **kw) -> LabelingSession:
        """Change parameters; engine parameters rebuild the engine from the event log.

        ``annotator``, ``stop_window``, ``stop_tolerance`` and ``audit_every`` change without
        a rebuild;
        ``overlap`` and ``overlap_fraction`` refold the log when the final-label rule changes. The
        budget is not a session parameter: pass it to :meth:`query`. If the new parameters
        are invalid the session keeps the old ones; a checked session refuses a new
        ``annotator`` who may not read the project, as its constructor does.
        """
        with self._lock:
            if self.checked and "annotator" in kw:
                # a checked session changes hands only to someone who may open one
                require_read(self.store, self.project.name, kw["annotator"])
            change_params(self, self._handout, kw)
            return self

    def get_params(self) -> dict:
        """The session's parameters (``lam`` may be ``"auto"``; see :attr:`lam_`)."""
        return current_params(self, self._handout, self.annotator)


__all__ = ["LabelingSession", "check_budget"]
