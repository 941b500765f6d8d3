"""What the Label page shows one annotator: the query panel, the pool plot and the figures.

Plain data computed from a :class:`~rlscore.sessions.actions.session.LabelingSession` for one
annotator, so the page (``pages/label.py``, drawn by :mod:`rlscore.ui.label.query_panel`) only lays
it out and wires its buttons, and the same view is usable from Python:

* :class:`QueryPanelState` — the point to label (the query, or a point picked in the plot),
  its prediction, confidence and ranking score, whether it is shown *blind* (under overlap a
  point waiting for this annotator's own label is shown without a teammate's label or a
  prediction trained on it), the classes and their display text, progress, the event Undo
  would revert, whether it is a random check (``audit_every``: drawn uniformly at random,
  :mod:`rlscore.sessions.team.handout`), whether labeling ended because the stop rule fired (the
  project's budget is "until the stop rule fires"), and the project's identity (name, uid)
  and log version the buttons are bound to;
* :class:`PoolPlotState` — the labels, skips and confidences the pool plot draws, blind like
  the panel (a multi-label project's plot draws one class at a time:
  :meth:`PoolPlotState.for_class`, "has the class" against "has not");
* :class:`LearnerFigures` — the risk history, validation error (None before the first label:
  it would only measure the untrained prior) and λ in effect (when to stop is
  :mod:`rlscore.sessions.stopping.stopping_view`'s).

Each ``for_annotator`` reads the session several times: call it under the lock that serialises
the session's callers (the app's :class:`~rlscore.ui.shell.store.SessionHandle` lock), so the parts
agree with each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rlscore.core.conventions.json_values import plain_scalar
from rlscore.core.conventions.label_sets import from_multi_hot
from rlscore.core.conventions.user_names import user_key
from rlscore.core.rls.confidence import predicted_index, soft_probabilities, top_probability
from rlscore.query import QueryStrategy
from rlscore.sessions.actions.cold_start import cold_start_class
from rlscore.sessions.actions.session import LabelingSession
from rlscore.sessions.team.permissions import allowed
from rlscore.sessions.views.diagnostics import predicts_by_decision_rule


@dataclass(frozen=True)
class QueryPanelState:
    """The query panel of one annotator (see the module docstring).

    Attributes
    ----------
    project, project_uid
        The project's name and :attr:`~rlscore.data.projects.project.Project.uid`: the buttons act
        on this project only.
    seen
        The newest event id of the log the panel shows (the buttons' ``seen``).
    target
        The point to label (None: nothing left, or the budget reached).
    picked
        True when ``target`` was picked in the plot, False when it is the query.
    waiting
        True when the target waits for this annotator's own label under overlap (a teammate
        labeled it); it is then shown *blind*: ``label_shown``, ``predicted`` and
        ``confidence`` are None.
    predicted, confidence
        The learner's class for the target and its largest class probability (a
        multi-label project's: the predicted label set, and no confidence: None).
    score
        The strategy's ranking score of the target (lower: asked first); None when unknown.
    label_shown
        The target's current label, if it has one and is not shown blind.
    classes, class_texts
        The project's classes (plain Python scalars) and their display text.
    n_labeled, goal
        Labeled points, and the number to reach (the budget, or the pool size).
    budget_reached
        True when no point is proposed because the budget is reached.
    stop_reached
        True when no point is proposed because the stop rule fired and the project's budget
        is "until the stop rule fires" (the caller decides: ``for_annotator(stop_reached=…)``).
    audit
        True when the target is the query and a random check (drawn uniformly at random).
    own_labels, progress
        This annotator's labels, and every annotator's, most first — for whoever may see who
        labeled what (a reviewer or owner, ``see_labels``; anyone in an open project), else
        empty: an annotator's page never names a teammate.
    undo_target
        Id of the event Undo would revert for this annotator (None: nothing to undo).
    regime
        A note when a KLR strategy's model is near uniform, else None.
    cold_start_positive
        The only class labeled so far on a two-class project (None otherwise).
    overlap_k, overlap_text
        Annotators per point, and the rule in words.
    """

    project: str
    project_uid: int | None
    n: int
    seen: int
    target: int | None
    picked: bool
    waiting: bool
    predicted: object
    confidence: float | None
    score: float | None
    label_shown: object
    classes: list
    class_texts: list[str]
    n_labeled: int
    goal: int
    budget_reached: bool
    stop_reached: bool
    audit: bool
    own_labels: int
    progress: dict[str, int]
    undo_target: int | None
    regime: str | None
    cold_start_positive: object
    overlap_k: int
    overlap_text: str
    labels: dict = field(repr=False)

    @property
    def blind(self) -> bool:
        """The target is shown without a teammate's label or a prediction trained on it."""
        return self.waiting

    @property
    def can_skip(self) -> bool:
        """Skip applies: the target is open (or waits for this annotator's own label)."""
        return self.target is not None and (self.waiting or self.target not in self.labels)

    def class_disabled(self, c) -> bool:
        """The button of class ``c`` does nothing new: the target already has that label."""
        return self.label_shown is not None and self.label_shown == c

    @classmethod
    def for_annotator(
        cls,
        session: LabelingSession,
        annotator: str,
        budget: int = 0,
        selected: int | None = None,
        stop_reached: bool = False,
    ) -> QueryPanelState:
        """The panel ``annotator`` sees: the query claimed for them (or ``selected``, a point
        picked in the plot, when it is in the pool), within ``budget`` labels (0: none).

        Claims the query for ``annotator`` (:meth:`LabelingSession.query`), as showing it
        does, unless ``stop_reached`` (the stop rule fired and ends labeling, as a budget
        reached does: no query, nothing claimed).
        """
        annotator = user_key(annotator)  # the name the session's counts are keyed by
        project = session.project
        budget = int(budget or 0)
        seen = session.last_event_id
        labels = session.labels
        proposal = None if stop_reached else session.query(budget, annotator=annotator)
        waiting = session.overlap_queue(annotator) if session.overlap.k > 1 else []
        if selected is not None and not 0 <= int(selected) < project.n:
            selected = None
        picked = selected is not None
        target = int(selected) if picked else (proposal[0] if proposal else None)
        predicted = confidence = score = label_shown = None
        is_waiting = target is not None and target in waiting
        if target is not None and not is_waiting:
            if project.multi_label:
                predicted = _predicted_set(session.engine, target)
            else:
                predicted, confidence = _point_prediction(session.engine, target)
            label_shown = labels.get(target)
        if target is not None:
            raw = proposal[1] if not picked else None
            if picked and target not in labels:
                raw = float(np.asarray(session.engine.scores())[target])
            score = float(raw) if raw is not None and np.isfinite(raw) else None
        classes = [plain_scalar(c) for c in session.engine.classes_]
        progress = session.progress()
        own = progress.get(annotator, 0)
        if not allowed(session.store.members(project.name), annotator, "see_labels"):
            progress = {}
        last_mine = session.last_action(annotator)
        return cls(
            project=project.name,
            project_uid=project.uid,
            n=project.n,
            seen=seen,
            target=target,
            picked=picked,
            waiting=is_waiting,
            predicted=predicted,
            confidence=confidence,
            score=score,
            label_shown=label_shown,
            classes=classes,
            class_texts=[project.class_text(c) for c in classes],
            n_labeled=len(labels),
            goal=min(budget, project.n) if budget else project.n,
            budget_reached=bool(budget) and proposal is None and len(labels) >= budget,
            stop_reached=bool(stop_reached),
            audit=not picked and target is not None and session.is_random_check(target, annotator),
            own_labels=own,
            progress=progress,
            undo_target=None if last_mine is None else int(last_mine.id),
            regime=session.engine.model_note(),
            cold_start_positive=cold_start_class(project, labels),
            overlap_k=session.overlap.k,
            overlap_text=session.overlap.describe(),
            labels=dict(labels),
        )


def _predicted_set(engine: QueryStrategy, i: int) -> tuple:
    """The predicted label set of point ``i`` of a multi-label engine: the classes whose
    decision value is > 0 (:func:`~rlscore.query.predicted_sets`' rule, for one point)."""
    row = np.asarray(engine.decision_function())[i]
    return from_multi_hot(row > 0, [plain_scalar(c) for c in engine.classes_])


def _point_prediction(engine: QueryStrategy, i: int) -> tuple[object, float]:
    """Row ``i`` of ``engine.predict()`` and the largest of row ``i`` of
    ``engine.predict_proba()``: from that point's decision values alone when the engine
    predicts by the base rule (one point shown need not cost the pool's predictions)."""
    if not predicts_by_decision_rule(engine):
        proba = np.asarray(engine.predict_proba())[i]
        return plain_scalar(np.asarray(engine.predict())[i]), float(np.max(proba))
    at = _values_at(engine)
    f = at([i]) if at is not None else np.asarray(engine.decision_function())[i : i + 1]
    confidence = float(np.max(soft_probabilities(f)))
    return plain_scalar(engine.classes_[predicted_index(f)][0]), confidence


def _values_at(engine: QueryStrategy):
    """``engine.decision_at`` (the decision values at given pool rows only) when the engine
    offers it — one whose pool lives elsewhere
    (:class:`~rlscore.sessions.cluster.engine.ClusterEngine`), so the few points shown
    never cost the pool's decision values here — else None."""
    return getattr(engine, "decision_at", None)


def _pool_predictions(engine: QueryStrategy) -> tuple[np.ndarray, np.ndarray]:
    """``engine.predict()`` and ``engine.predict_proba()``, from one read of the decision
    values when the engine predicts by the base rule."""
    if not predicts_by_decision_rule(engine):
        return np.asarray(engine.predict()), np.asarray(engine.predict_proba())
    F = engine.decision_function()
    return engine.classes_[predicted_index(F)], soft_probabilities(F)


@dataclass(frozen=True)
class PoolPlotState:
    """What the pool plot draws for one annotator (blind like :class:`QueryPanelState`).

    Attributes
    ----------
    seen
        The newest event id of the log drawn.
    labels
        Final labels, without those of the points that wait for this annotator's own (blind)
        label.
    skipped
        Skipped points, sorted.
    predicted, confidence
        Predicted class and largest class probability of every point (confidence NaN at the
        points waiting for this annotator's blind label); None for an engine whose pool lives
        elsewhere (it offers ``decision_at``): the plot then draws a sample with the sample's
        own values (:mod:`rlscore.sessions.cluster.plot_sample`), and this server never holds
        the pool's.
    query
        The annotator's query (None: none left).
    classes
        The project's classes (plain Python scalars).
    query_blind
        The query waits for this annotator's own label (shown without a prediction).
    """

    seen: int
    labels: dict
    skipped: list[int]
    predicted: np.ndarray | None
    confidence: np.ndarray | None
    query: int | None
    classes: list
    query_blind: bool = False

    @classmethod
    def for_annotator(
        cls, session: LabelingSession, annotator: str, budget: int = 0, stop_reached: bool = False
    ) -> PoolPlotState:
        """The plot of ``annotator``'s view within ``budget`` labels (0: none; no query when
        ``stop_reached``, as :meth:`QueryPanelState.for_annotator`)."""
        seen = session.last_event_id
        labels = dict(session.labels)
        # no query for whom may not label (a reader in the open local mode): the query panel
        # says why, once; the plot shows the pool without claiming a point for them
        may_label = allowed(session.store.members(session.project_name), annotator, "label")
        proposal = None
        if may_label and not stop_reached:
            proposal = session.query(int(budget or 0), annotator=annotator)
        predicted = confidence = None
        if _values_at(session.engine) is None:
            predicted, proba = _pool_predictions(session.engine)
            confidence = top_probability(proba)
        query = proposal[0] if proposal else None
        blind = _blind_points(session, annotator, query, labels, confidence)
        return cls(
            seen=seen,
            labels=labels,
            skipped=sorted(session.skipped),
            predicted=predicted,
            confidence=confidence,
            query=query,
            classes=[plain_scalar(c) for c in session.engine.classes_],
            query_blind=blind,
        )

    @classmethod
    def for_class(
        cls,
        session: LabelingSession,
        annotator: str,
        chosen,
        budget: int = 0,
        stop_reached: bool = False,
    ) -> PoolPlotState:
        """The plot of a multi-label project for one class ``chosen``: the two classes
        ``0`` ("has not ``chosen``") and ``1`` ("has it"); a labeled point is 1 when its set
        holds ``chosen``, an unlabeled one is tinted by the learner's decision value for
        ``chosen`` (its binary confidence). Blind and within ``budget`` as
        :meth:`for_annotator`."""
        classes = [plain_scalar(c) for c in session.engine.classes_]
        k = classes.index(chosen)
        f = np.asarray(session.engine.decision_function())[:, k]
        proba = soft_probabilities(f)
        seen = session.last_event_id
        labels = {i: int(chosen in s) for i, s in session.labels.items()}
        proposal = None if stop_reached else session.query(int(budget or 0), annotator=annotator)
        query = proposal[0] if proposal else None
        confidence = top_probability(proba)
        blind = _blind_points(session, annotator, query, labels, confidence)
        return cls(
            seen=seen,
            labels=labels,
            skipped=sorted(session.skipped),
            predicted=(f > 0).astype(int),
            confidence=confidence,
            query=query,
            classes=[0, 1],
            query_blind=blind,
        )


def _blind_points(
    session: LabelingSession, annotator: str, query: int | None, labels: dict, confidence
) -> bool:
    """Blank, in place, what the plot would tell ``annotator`` of the points waiting for their
    own blind label (overlap ≥ 2): their teammates' labels leave ``labels`` and their
    confidence (a model fitted on those labels) becomes NaN — every waiting point, not only
    the query, since each will be asked of them in turn. Returns whether ``query`` is one."""
    waiting = session.overlap_queue(annotator) if session.overlap.k > 1 else []
    for point in waiting:
        labels.pop(point, None)
    if confidence is not None and waiting:
        confidence[np.asarray(waiting, dtype=np.intp)] = np.nan
    return query is not None and query in waiting


@dataclass(frozen=True)
class LearnerFigures:
    """The learner's figures below the fold.

    Attributes
    ----------
    risk_history
        The strategy's estimated risk with 0, 1, … labels (its name:
        ``rlscore.ui.shell.strategy_names.risk_wording``).
    validation, balanced_validation
        Error on the unlabeled pool against the truth; None without truth or before the
        first label (the untrained model's error says nothing about the labels).
    validation_history
        Validation error after each label (None without truth).
    lam
        λ in effect.
    n_labeled, n_skipped, n
        Labeled and skipped points, and the pool size.
    has_truth
        The project has a ground-truth column.
    """

    risk_history: list[float]
    validation: float | None
    balanced_validation: float | None
    validation_history: list | None
    lam: float
    n_labeled: int
    n_skipped: int
    n: int
    has_truth: bool

    @classmethod
    def of(cls, session: LabelingSession) -> LearnerFigures:
        """The figures of ``session``'s current state."""
        has_truth = session.project.truth is not None
        n_labeled = session.n_labeled
        trained = has_truth and n_labeled > 0
        return cls(
            risk_history=list(session.risk_history),
            validation=session.validation_error() if trained else None,
            balanced_validation=session.validation_error(balanced=True) if trained else None,
            validation_history=list(session.validation_history) if has_truth else None,
            lam=float(session.lam_),
            n_labeled=n_labeled,
            n_skipped=len(session.skipped),
            n=session.project.n,
            has_truth=has_truth,
        )


__all__ = ["LearnerFigures", "PoolPlotState", "QueryPanelState"]
