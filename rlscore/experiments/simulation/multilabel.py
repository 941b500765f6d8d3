"""Simulated labeling of a multi-label project: an oracle answers every query with the true
label set (docs/multilabel.md).

As :mod:`rlscore.experiments.simulation.simulate` for single-label projects, with label sets:
after each query a run records the queried point, its label set, the strategy's score, the
estimated risk (summed over the labels) and the quality of the predicted sets — micro-F1,
macro-F1 and the Hamming loss (:mod:`rlscore.core.evaluation.multilabel_metrics`) — on a
held-out set, or on the pool points not labeled yet.

From Python::

    from rlscore.experiments.simulation.multilabel import simulate_multilabel
    result = simulate_multilabel(X, sets, classes, "arls", queries=80, seeds=10,
                                 params={"sigma": 1.7, "lam": 0.5})
    mean, sd = result.curve("micro_f1")

From the command line: ``python -m rlscore simulate --multi-label …``
(:mod:`rlscore.cli.commands.simulate`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace

import numpy as np
from sklearn.base import clone

from rlscore.core.conventions.input_validation import check_matrix
from rlscore.core.conventions.json_values import jsonable
from rlscore.core.conventions.label_sets import (
    SEPARATOR,
    check_set_items,
    label_set,
    multi_hot,
    unpack_json_list,
)
from rlscore.core.conventions.missing_labels import unlabeled_mask
from rlscore.core.evaluation.multilabel_metrics import hamming_loss, macro_f1, micro_f1
from rlscore.core.kernels.functions import is_graph_kernel
from rlscore.data.projects.class_labels import sorted_values
from rlscore.experiments.simulation.simulate import (
    POOL_VALIDATION,
    ProgressCallback,
    _QueryCounter,
    _run_plan,
    _RunPlan,
)
from rlscore.query import NoCandidatesError, make_strategy
from rlscore.query.multilabel.state import MultiLabelStrategy
from rlscore.sessions.stopping.curves import stop_set
from rlscore.sessions.stopping.set_stop import SET_STOP_RULE, SetStopCurves, first_set_stop

#: what :meth:`MultiLabelSimulationResult.curve` can average
CURVES = ("micro_f1", "macro_f1", "hamming_loss", "estimated_risk", "seconds", "score")


@dataclass
class SetStep:
    """The state after one query (``step`` 0: after the initial labels)."""

    step: int
    n_labels: int
    index: int | None
    label: list | None  # the label set taught (a JSON list)
    score: float | None
    estimated_risk: float
    micro_f1: float | None  # None: no point left to measure on
    macro_f1: float | None
    hamming_loss: float | None
    seconds: float


@dataclass
class SetRun:
    """One simulated multi-label labeling session. ``stop``: where the ``set-agreement`` stop
    rule fired (``rule``, ``step``, ``n_labels``; ``step`` None: not within the run)
    (:mod:`rlscore.sessions.stopping.set_stop`)."""

    seed: int
    init: list[int]
    steps: list[SetStep] = field(default_factory=list)
    stop: dict | None = None


@dataclass
class MultiLabelSimulationResult:
    """All runs of a multi-label simulation, with the settings that produced them."""

    strategy: str
    params: dict
    classes: list
    validation: str
    n_pool: int
    runs: list[SetRun]
    multi_label: bool = True

    def curve(self, key: str = "micro_f1") -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation over the runs of ``key`` (:data:`CURVES`) at each
        step, ignoring missing values."""
        if key not in CURVES:
            raise ValueError(f"unknown record {key!r}: choose one of {list(CURVES)}")
        length = max(len(r.steps) for r in self.runs)
        values = np.full((len(self.runs), length), np.nan)
        for k, run in enumerate(self.runs):
            for s in run.steps:
                v = getattr(s, key)
                values[k, s.step] = np.nan if v is None else float(v)
        with np.errstate(invalid="ignore"):
            count = (~np.isnan(values)).sum(axis=0)
            mean = np.where(count > 0, np.nansum(values, axis=0) / np.maximum(count, 1), np.nan)
            var = np.nansum((values - mean) ** 2, axis=0) / np.maximum(count, 1)
        return mean, np.sqrt(np.where(count > 0, var, np.nan))

    def to_dict(self) -> dict:
        """JSON-serialisable dictionary (label sets as lists)."""
        return jsonable(asdict(self))


def set_classes(sets: Iterable) -> list:
    """The classes appearing in label sets (lists, lists as JSON text, or ``a|b`` texts:
    :func:`~rlscore.core.conventions.label_sets.parse_label_set`), sorted; ``ValueError``
    for a list holding an item that is no class
    (:func:`~rlscore.core.conventions.label_sets.check_set_items`)."""
    found = set()
    for s in map(unpack_json_list, sets):
        if isinstance(s, str):
            found.update(p.strip() for p in s.split(SEPARATOR) if p.strip())
        elif s is not None:
            found.update(check_set_items(s))
    return sorted_values(found)


def simulate_multilabel(
    X,
    sets: Sequence,
    classes: Sequence,
    strategy: str | MultiLabelStrategy,
    *,
    queries: int,
    seeds: int | Iterable[int] = 1,
    init: int | Sequence[int] = 0,
    validation=None,
    params: dict | None = None,
    K: np.ndarray | None = None,
    progress: ProgressCallback | None = None,
    until_stop: bool = False,
) -> MultiLabelSimulationResult:
    """Simulate labeling the pool ``X`` with an oracle that knows each point's label set.

    Parameters
    ----------
    X : array (n, d)
        The pool.
    sets : sequence of label sets
        The true label set of every pool point (lists, tuples or sets of ``classes``).
    classes : sequence
        The project's classes (2 or more).
    strategy : str or MultiLabelStrategy
        A name of :data:`rlscore.query.MULTILABEL_STRATEGIES` or an unstarted multi-label
        strategy (cloned per run).
    queries, seeds, init
        As :func:`rlscore.experiments.simulation.simulate.simulate`.
    validation : None, float or (X_val, sets_val)
        ``None``: the unlabeled pool points; a fraction in (0, 1): that share of the pool held
        out at random (seed 0); a pair: a separate validation set.
    params : dict
        Strategy parameters (``sigma``, ``lam`` …).
    K : array (n, n)
        Precomputed pool kernel (otherwise computed once and shared by the runs).
    progress : callable(done, total)
        Called after every query.
    until_stop : bool
        End each run when the ``set-agreement`` stop rule fires (``queries`` is then the most
        it may take); without it the run goes on and :attr:`SetRun.stop` says where the rule
        fired. The rule reads the strategy's predicted sets on the stop set of the pool
        (:func:`~rlscore.sessions.stopping.curves.stop_set`), as a session's Label page does.
    """
    X = check_matrix(X, "X", min_samples=2)
    classes = list(classes)
    Y = _check_sets(sets, classes, X.shape[0], "sets")
    # the rule is set-agreement's, not one of the single-label rules a plan names
    plan = replace(_run_plan(queries, seeds, init, 0, None, False), until_stop=bool(until_stop))
    X, Y, X_val, Y_val, where = _split(X, Y, validation, classes, K)
    if plan.init >= X.shape[0]:
        raise ValueError(f"init={plan.init} labels leave no point to query in a pool of {len(X)}")
    template = _template(strategy, params or {})
    if X_val is not None and is_graph_kernel(template.get_params().get("kernel", "rbf")):
        raise ValueError(
            "a graph kernel cannot predict points outside the pool: measure on the pool "
            "instead (validation=None)"
        )
    if K is None:
        K = template.pool_kernel(X)
    truth = [label_set(row, classes) for row in _sets_of(Y, classes)]
    counter = _QueryCounter(progress, plan.queries * len(plan.seeds))
    runs = [
        _run(template, seed, (X, truth, classes, K), (X_val, Y_val), plan, counter)
        for seed in plan.seeds
    ]
    return MultiLabelSimulationResult(
        strategy=strategy if isinstance(strategy, str) else type(strategy).__name__,
        params=jsonable(template.get_params()),
        classes=jsonable(classes),
        validation=where,
        n_pool=int(X.shape[0]),
        runs=runs,
    )


def _check_sets(sets, classes: list, n: int, name: str) -> np.ndarray:
    """Label sets as an (n, L) 0/1 matrix, with a message naming the bad row."""
    if len(sets) != n:
        raise ValueError(f"{name} has {len(sets)} label sets for {n} points")
    if len(classes) < 2:
        raise ValueError(f"a multi-label project needs at least 2 classes, got {classes!r}")
    try:
        return multi_hot(sets, classes)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _sets_of(Y: np.ndarray, classes: list) -> list[tuple]:
    return [tuple(c for c, hit in zip(classes, row, strict=True) if hit) for row in Y > 0.5]


def _split(X, Y, validation, classes, K):
    """(X_pool, Y_pool, X_val or None, Y_val, description)."""
    if validation is None:
        return X, Y, None, Y, POOL_VALIDATION
    if isinstance(validation, float | int) and not isinstance(validation, bool):
        frac = float(validation)
        if not 0.0 < frac < 1.0:
            raise ValueError(f"validation fraction must be between 0 and 1, got {validation!r}")
        if K is not None:
            raise ValueError("a precomputed K cannot be combined with a validation fraction")
        held = np.sort(np.random.default_rng(0).permutation(X.shape[0])[: int(frac * len(X))])
        if held.size == 0 or held.size >= X.shape[0] - 1:
            raise ValueError(f"validation fraction {frac} of {len(X)} points leaves no split")
        keep = np.setdiff1d(np.arange(X.shape[0]), held)
        return X[keep], Y[keep], X[held], Y[held], f"{held.size} points held out ({frac:g})"
    try:
        X_val, sets_val = validation
    except (TypeError, ValueError):
        raise ValueError(
            "validation must be None, a fraction in (0, 1) or a pair (X_val, sets_val)"
        ) from None
    X_val = check_matrix(X_val, "X_val")
    if X_val.shape[1] != X.shape[1]:
        raise ValueError(f"X_val has {X_val.shape[1]} features but the pool has {X.shape[1]}")
    Y_val = _check_sets(sets_val, classes, X_val.shape[0], "sets_val")
    return X, Y, X_val, Y_val, f"{X_val.shape[0]} separate points"


def _template(strategy, params: dict) -> MultiLabelStrategy:
    if isinstance(strategy, str):
        return make_strategy(strategy, multi_label=True, **params)
    if not isinstance(strategy, MultiLabelStrategy):
        raise ValueError(f"strategy must be a multi-label strategy or its name, got {strategy!r}")
    return clone(strategy).set_params(**params) if params else strategy


def _run(template, seed, pool, validation, plan: _RunPlan, counter) -> SetRun:
    """One session: the initial labels, then up to ``plan.queries`` recorded queries."""
    X, truth, classes, K = pool
    q = clone(template)
    if "seed" in q.get_params():
        q.set_params(seed=seed)
    q.start(X, classes, K=K)
    start = (
        np.random.default_rng(seed).choice(X.shape[0], size=plan.init, replace=False)
        if plan.chosen is None
        else plan.chosen
    )
    q.teach_many([int(i) for i in start], [truth[i] for i in start])
    run = SetRun(seed=int(seed), init=[int(i) for i in start])
    run.steps.append(_record(q, 0, None, None, 0.0, validation))
    stop = _StopTracker(X.shape[0], classes)
    stop.add(q, [truth[i] for i in start])
    for t in range(1, plan.queries + 1):
        if plan.until_stop and stop.fired is not None:
            counter.add(plan.queries - t + 1)
            break
        tic = time.perf_counter()
        try:
            i, score = q.next_query()
        except NoCandidatesError:
            counter.add(plan.queries - t + 1)
            break
        q.teach(i, truth[i])
        run.steps.append(_record(q, t, i, score, time.perf_counter() - tic, validation))
        stop.add(q, [truth[i]])
        counter.add(1)
    run.stop = stop.where()
    return run


class _StopTracker:
    """The ``set-agreement`` curves of one run, step by step (entry ``t``: after query ``t``)."""

    def __init__(self, n: int, classes: list) -> None:
        self.points, self.classes = stop_set(n), set(classes)
        self.curves, self.seen, self.fired = SetStopCurves(), set(), None

    def add(self, q: MultiLabelStrategy, sets: list) -> None:
        for labels in sets:
            self.seen.update(labels)
        members = q.decision_function()[self.points] > 0 if len(q.labeled_) >= 2 else None
        self.curves.append(len(q.labeled_), self.seen >= self.classes, members)
        if self.fired is None:
            self.fired = first_set_stop(self.curves)

    def where(self) -> dict:
        step = self.fired
        n_labels = None if step is None else self.curves.n_labels[step]
        return {"rule": SET_STOP_RULE, "step": step, "n_labels": n_labels}


def _record(q: MultiLabelStrategy, t, i, score, seconds, validation) -> SetStep:
    """The state after query ``t``, measured on the validation set or the unlabeled pool."""
    X_val, Y_val = validation
    if X_val is None:
        keep = unlabeled_mask(Y_val.shape[0], q.labeled_)
        Y, P = Y_val[keep], q.decision_function()[keep] > 0
    else:
        Y, P = Y_val, q.decision_function(X_val) > 0
    measured = Y.shape[0] > 0
    return SetStep(
        step=t,
        n_labels=len(q.labeled_),
        index=None if i is None else int(i),
        label=None if i is None else list(q.labels_[-1]),
        score=None if score is None else float(score),
        estimated_risk=float(q.estimated_risk()),
        micro_f1=micro_f1(Y, P) if measured else None,
        macro_f1=macro_f1(Y, P) if measured else None,
        hamming_loss=hamming_loss(Y, P) if measured else None,
        seconds=float(seconds),
    )


__all__ = [
    "CURVES",
    "MultiLabelSimulationResult",
    "SetRun",
    "SetStep",
    "set_classes",
    "simulate_multilabel",
]
