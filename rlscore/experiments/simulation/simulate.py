"""Simulated labeling: run a query strategy against known labels (demo mode and experiments).

An oracle answers every query with the true label; after each query the run records the
queried point, the strategy's score for it (ARLS: its expected risk), the estimated risk of
the new classifier, the validation error (plain and class-balanced), the time taken and the
figures a user is shown: the accuracy estimate of the pool with its 95 % interval (from the
random checks among the labels: ``check``) and the calibrated expected error rate
(:mod:`rlscore.core.evaluation.pool_accuracy`).

The validation error is :mod:`rlscore.core.evaluation.validation_error`' one definition: measured on
a held-out set when there is one, else on the pool points not labeled yet (as in a labeling
session).

From Python::

    from rlscore.experiments.simulation.simulate import simulate
    result = simulate(X, y, "arls", queries=80, seeds=10, params={"sigma": 1.7, "lam": 0.5},
                      validation=(X_val, y_val))
    mean, sd = result.curve("validation_error")

With ``stop_rule`` a run also records what the stopping rules and the accuracy estimate
read (:mod:`rlscore.sessions.stopping.accuracy_estimate`) and reports in :attr:`Run.stop` where the
rule fired and the estimate there; ``until_stop`` ends the run at that point (``queries`` is
then a cap), and ``audit_every`` makes every k-th query a uniform random audit draw.

From the command line (``python -m rlscore simulate --help``,
:mod:`rlscore.cli.commands.simulate`)::

    python -m rlscore simulate --data spheres --strategy arls --sigma 1.7 --lam 0.5 \\
        --queries 80 --seeds 10 --out run.json
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from sklearn.base import clone

from rlscore.core.conventions.input_validation import check_labels, check_matrix
from rlscore.core.conventions.json_values import jsonable
from rlscore.core.conventions.missing_labels import unlabeled_mask
from rlscore.core.evaluation.validation_error import validation_errors
from rlscore.core.kernels.functions import is_graph_kernel
from rlscore.data.projects.class_labels import sorted_values
from rlscore.query import STRATEGIES, NoCandidatesError, QueryStrategy, make_strategy
from rlscore.sessions.stopping.accuracy_estimate import (
    accuracy_estimate,
    audit_draw,
    audit_due,
)
from rlscore.sessions.stopping.curves import (
    StopCurves,
    learner_state,
    stop_set,
)
from rlscore.sessions.stopping.stop_rule import (
    STOP_RULE_PARAMS,
    first_stop,
)

#: ``progress(done, total)`` — called after every query (``done`` counts queries over all seeds)
ProgressCallback = Callable[[int, int], None]
#: :attr:`SimulationResult.validation` when the error is measured on the pool
POOL_VALIDATION = "the unlabeled pool points (transductive)"


@dataclass
class Step:
    """The state after one query (``step`` 0: after the initial labels, before any query)."""

    step: int
    n_labels: int
    index: int | None
    label: object
    score: float | None  # the strategy's score of the query (ARLS: its expected risk)
    estimated_risk: float  # R̂ of the classifier after the label
    validation_error: float | None  # None: no point left to measure on (every one labeled)
    balanced_error: float | None
    seconds: float  # next_query + teach
    audit: bool = False  # drawn uniformly at random from the unlabeled pool (audit_every)
    #: a random check: drawn uniformly at random from the unlabeled pool (an audit, an
    #: exploring or random strategy's draw, or a uniform initial label)
    check: bool = False
    #: the headline accuracy estimate of the pool after the label, with its 95 % interval
    #: (:func:`~rlscore.core.evaluation.pool_accuracy.pool_accuracy`; None before a check)
    accuracy_estimate: float | None = None
    accuracy_interval: list[float] | None = None
    #: the calibrated chance of a wrong prediction, averaged over the unlabeled pool
    expected_error_rate: float | None = None


@dataclass
class Run:
    """One simulated labeling session."""

    seed: int
    init: list[int]
    steps: list[Step] = field(default_factory=list)
    #: with ``stop_rule``: per rule, where it fired (``step``, ``n_labels``; None: it did
    #: not) and the accuracy estimate there, or at the last step when it did not fire
    stop: dict | None = None


@dataclass
class SimulationResult:
    """All runs of a simulation, with the settings that produced them."""

    strategy: str
    params: dict
    classes: list
    validation: str
    n_pool: int
    runs: list[Run]

    def curve(self, key: str = "validation_error") -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation over the runs of ``key`` at each step (NaN-padded when
        a run stopped early because the pool ran out)."""
        if key not in Step.__dataclass_fields__:
            raise ValueError(
                f"unknown record {key!r}: choose one of {list(Step.__dataclass_fields__)}"
            )
        length = max(len(r.steps) for r in self.runs)
        values = np.full((len(self.runs), length), np.nan)
        for k, run in enumerate(self.runs):
            for s in run.steps:
                v = getattr(s, key)
                values[k, s.step] = np.nan if v is None else float(v)
        ok = ~np.isnan(values)
        count = ok.sum(axis=0)
        count = np.where(count > 0, count, np.nan)  # NaN where no run has a value
        mean = np.where(ok, values, 0.0).sum(axis=0) / count
        var = np.where(ok, (values - mean) ** 2, 0.0).sum(axis=0) / count
        return mean, np.sqrt(var)

    def to_dict(self) -> dict:
        """JSON-serialisable dictionary (labels as plain Python values)."""
        return jsonable(asdict(self))


def simulate(
    X,
    y,
    strategy: str | QueryStrategy,
    *,
    queries: int,
    seeds: int | Iterable[int] = 1,
    init: int | Sequence[int] = 0,
    validation=None,
    params: dict | None = None,
    classes: Sequence | None = None,
    K: np.ndarray | None = None,
    progress: ProgressCallback | None = None,
    stop_rule: str | Sequence[str] | None = None,
    until_stop: bool = False,
    audit_every: int = 0,
) -> SimulationResult:
    """Simulate labeling the pool ``X`` with an oracle that knows ``y``.

    Parameters
    ----------
    X : array (n, d)
        The pool.
    y : array (n,)
        True labels of the pool (the oracle's answers).
    strategy : str or QueryStrategy
        A name of :data:`rlscore.query.STRATEGIES` or an unstarted strategy (cloned per run).
    queries : int
        Queries per run (a run stops early when no unlabeled point is left).
    seeds : int or iterable of int
        Number of runs (seeds 0 … seeds − 1) or the seeds themselves. A seed draws the initial
        labels and is passed to strategies that take a ``seed`` (random selection).
    init : int or sequence of int
        Random initial labels per run, drawn uniformly from the pool before the first query;
        or the pool indices of the initial labels, the same for every run.
    validation : None, float or (X_val, y_val)
        Where the error is measured: ``None`` — the pool points not labeled yet, against
        their true labels (transductive); a fraction in (0, 1) — that share of the pool held
        out, stratified, with a fixed split (seed 0); a pair — a separate validation set.
    params : dict
        Strategy parameters (``sigma``, ``lam``, ``class_weight`` …).
    classes : sequence
        The session's classes; default the sorted distinct values of ``y``.
    K : array (n, n)
        Precomputed pool kernel (otherwise computed once and shared by the runs).
    progress : callable(done, total)
        Called after every query, e.g. to drive a progress bar.
    stop_rule : str, sequence of str or None
        Rules of :data:`rlscore.sessions.stopping.stop_rule.STOP_RULE_PARAMS`: record the
        curves they read and report each one's stop in :attr:`Run.stop` (None: not tracked).
    until_stop : bool
        End each run when the (first) ``stop_rule`` fires (``queries`` is then the most it
        may take).
    audit_every : int
        Every ``audit_every``-th query is drawn uniformly at random from the unlabeled pool
        instead of by the strategy (0: none); its step is marked ``audit``.

    Returns
    -------
    SimulationResult
    """
    X = check_matrix(X, "X", min_samples=2)
    y = check_labels(y, X.shape[0], "y")
    plan = _run_plan(queries, seeds, init, audit_every, stop_rule, until_stop)
    classes = _classes(y, classes)
    X, y, X_val, y_val, where = _pool_and_validation(X, y, validation, K, plan.init)
    template, K = _template_and_kernel(strategy, params or {}, X, X_val, K)
    pool = _Pool(X, y, classes, K, X_val, y_val)
    counter = _QueryCounter(progress, plan.queries * len(plan.seeds))
    runs = [_run(template, seed, pool, plan, counter) for seed in plan.seeds]
    return SimulationResult(
        strategy=strategy if isinstance(strategy, str) else type(strategy).__name__,
        params=jsonable(template.get_params()),
        classes=jsonable(list(classes)),
        validation=where,
        n_pool=int(X.shape[0]),
        runs=runs,
    )


@dataclass(frozen=True)
class _RunPlan:
    """The checked settings every run of a simulation follows."""

    queries: int
    init: int  # initial labels per run
    chosen: np.ndarray | None  # the pool indices of the initial labels; None: drawn per seed
    seeds: list[int]
    audit_every: int
    rules: list[str]  # the stop rules tracked, the first one ending a run ``until_stop``
    until_stop: bool


def _run_plan(queries, seeds, init, audit_every, stop_rule, until_stop) -> _RunPlan:
    """The run settings of :func:`simulate`, checked (a ``ValueError`` naming the argument)."""
    queries = _check_count(queries, "queries", minimum=1)
    chosen = None
    if isinstance(init, Sequence | np.ndarray):
        chosen = np.asarray(init, dtype=np.intp)
        init = int(chosen.size)
    init = _check_count(init, "init", minimum=0)
    seed_list = _seed_list(seeds)
    audit_every = _check_count(audit_every, "audit_every", minimum=0)
    if until_stop and stop_rule is None:
        raise ValueError("until_stop needs a stop_rule: the rule whose stop ends the run")
    rules = [stop_rule] if isinstance(stop_rule, str) else list(stop_rule or [])
    for rule in rules:
        if rule not in STOP_RULE_PARAMS:
            raise ValueError(
                f"stop rule {rule!r} is unknown: choose one of {list(STOP_RULE_PARAMS)}"
            )
    return _RunPlan(queries, init, chosen, seed_list, audit_every, rules, until_stop)


@dataclass(frozen=True)
class _Pool:
    """What every run of a simulation labels and is measured on."""

    X: np.ndarray
    y: np.ndarray  # the oracle's answers
    classes: np.ndarray
    K: np.ndarray | None  # the pool kernel, shared by the runs (None: the strategy needs none)
    X_val: np.ndarray | None  # None: the error is measured on the unlabeled pool points
    y_val: np.ndarray


class _QueryCounter:
    """The queries done over all runs, reported to ``progress(done, total)``."""

    def __init__(self, progress: ProgressCallback | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def add(self, queries: int) -> None:
        """Count ``queries`` more (a run ending early counts the queries it skips)."""
        self.done += queries
        if self.progress is not None:
            self.progress(self.done, self.total)


def _run(
    template: QueryStrategy, seed: int, pool: _Pool, plan: _RunPlan, counter: _QueryCounter
) -> Run:
    """One simulated labeling session: the initial labels, then up to ``plan.queries``
    queries, each answered by the oracle and recorded."""
    q = clone(template)
    if "seed" in q.get_params():
        q.set_params(seed=seed)
    q.start(pool.X, pool.classes, K=pool.K)
    start = _teach_initial_labels(q, seed, pool, plan)
    run = Run(seed=int(seed), init=[int(i) for i in start])
    run.steps.append(_record(q, 0, None, None, None, 0.0, pool.X_val, pool.y_val))
    tracker = _StopTracker(pool.X, pool.y, pool.classes, pool.K, plan.rules)
    if plan.chosen is None:  # drawn uniformly from the pool: random checks
        tracker.checks.update(int(i) for i in start)
    audit_rng = np.random.default_rng([int(seed), 24])  # its own stream: audits only
    fired = tracker.update(q, run.steps[-1], None)
    for t in range(1, plan.queries + 1):
        step = None if plan.until_stop and fired else _query(q, t, pool, plan, audit_rng)
        if step is None:  # stopped, or no point left to query: the rest counts as done
            counter.add(plan.queries - t + 1)
            break
        run.steps.append(step)
        if step.check:
            tracker.checks.add(step.index)
        fired = tracker.update(q, step, (step.index, step.label) if step.audit else None)
        counter.add(1)
    if plan.rules:
        run.stop = tracker.report()
    return run


def _teach_initial_labels(q: QueryStrategy, seed: int, pool: _Pool, plan: _RunPlan):
    """Teach ``q`` the run's initial labels (drawn with ``seed`` unless given); returns
    their pool indices."""
    start = (
        np.random.default_rng(seed).choice(pool.X.shape[0], size=plan.init, replace=False)
        if plan.chosen is None
        else plan.chosen
    )
    if hasattr(q, "teach_many"):  # one build instead of one update per label
        q.teach_many([int(i) for i in start], [pool.y[i] for i in start])
    else:
        for i in start:
            q.teach(int(i), pool.y[i])
    return start


def _query(q: QueryStrategy, t: int, pool: _Pool, plan: _RunPlan, audit_rng) -> Step | None:
    """Query ``t``: the strategy's choice (or an audit draw), answered by the oracle and
    recorded; None when no point is left to query."""
    tic = time.perf_counter()
    audit = audit_due(t, plan.audit_every)
    if audit:
        unlabeled = np.flatnonzero(unlabeled_mask(pool.X.shape[0], q.labeled_))
        if unlabeled.size == 0:  # every point is labeled
            return None
        i, score = audit_draw(unlabeled, audit_rng), None
        drawn = i
    else:
        drawn = q.uniform_draw()
        try:
            i, score = q.next_query()
        except NoCandidatesError:
            return None
    q.teach(i, pool.y[i])
    seconds = time.perf_counter() - tic
    step = _record(q, t, i, pool.y[i], score, seconds, pool.X_val, pool.y_val, audit)
    step.check = drawn == i
    return step


def _record(q, t, i, label, score, seconds, X_val, y_val, audit=False) -> Step:
    """The state after query ``t``; ``X_val`` None: measured on the unlabeled pool points."""
    if X_val is None:
        unlabeled = unlabeled_mask(y_val.size, q.labeled_)
        error, balanced = validation_errors(y_val[unlabeled], q.predict()[unlabeled])
    else:
        error, balanced = validation_errors(y_val, _predict_outside(q, X_val))
    return Step(
        step=t,
        n_labels=len(q.labeled_),
        index=None if i is None else int(i),
        label=label,
        score=None if score is None else float(score),
        estimated_risk=float(q.estimated_risk()),
        validation_error=error,
        balanced_error=balanced,
        seconds=float(seconds),
        audit=bool(audit),
    )


class _StopTracker:
    """The curves of one run for its stopping rule and accuracy estimate
    (:class:`~rlscore.sessions.stopping.curves.StopCurves`)."""

    def __init__(self, X, y, classes, K, rules: list[str]) -> None:
        self.X, self.y, self.classes, self.K = X, y, list(classes), K
        self.rules = rules
        self.stop = stop_set(X.shape[0])
        self.curves = StopCurves()
        self.model = None  # the labeled RLS before the newest label (audit predictions)
        self.model_index: list[int] = []  # its training points (a graph kernel's columns)
        self.fired: dict[str, int | None] = dict.fromkeys(rules)
        self.checks: set[int] = set()  # the labeled points that are random checks

    def update(self, q: QueryStrategy, step: Step, audit) -> bool:
        """Record the state after ``step``; ``audit`` the (point, label) of an audit query.
        Returns whether the first rule has fired (False without a rule)."""
        correct = None
        if audit is not None and self.model is not None:
            i, label = audit
            Z = self.K[np.ix_([i], self.model_index)] if self._on_pool() else self.X[[i]]
            correct = bool(self.model.predict(Z)[0] == label)
        labels = {int(i): self.y[i] for i in q.labeled_}
        lam = getattr(q, "lam_", None) or q.get_params().get("lam", 1.0)  # or "auto"
        state = learner_state(
            q, self.X, labels, lam, self.classes, self.stop, self.K, checks=self.checks
        )
        if state.accuracy is not None:
            step.accuracy_estimate = state.accuracy.estimate
            step.accuracy_interval = [state.accuracy.low, state.accuracy.high]
        step.expected_error_rate = state.expected_error_rate
        self.model, self.model_index = state.model, list(labels)
        truth = None if step.validation_error is None else 1.0 - step.validation_error
        seen = len(set(labels.values()))
        self.curves.append(
            state,
            risk=step.estimated_risk,
            classes_seen=seen,
            audit_correct=correct,
            truth_accuracy=truth,
        )
        last = len(self.curves) - 1
        for rule, fired in self.fired.items():
            if fired is None:
                self.fired[rule] = first_stop(self.curves, rule, len(self.classes), last)
        return bool(self.rules) and self.fired[self.rules[0]] is not None

    def _on_pool(self) -> bool:
        return self.model is not None and self.model.kernel == "precomputed"

    def report(self) -> dict:
        """Per rule: where it fired and the estimate there (or at the last step)."""
        out = {}
        for rule, fired in self.fired.items():
            t = len(self.curves) - 1 if fired is None else fired
            out[rule] = {
                "step": fired,
                "n_labels": None if fired is None else self.curves.n_labels[t],
                "estimate": accuracy_estimate(self.curves, t).as_dict(),
            }
        return jsonable(out)


def can_predict_outside(q: QueryStrategy) -> bool:
    """Whether the strategy's classifier can label points outside its pool (``predict_at``;
    graph kernels exist on the pool only)."""
    return hasattr(q, "predict_at") and not is_graph_kernel(q.get_params().get("kernel", "rbf"))


def _predict_outside(q: QueryStrategy, Z: np.ndarray) -> np.ndarray:
    if not can_predict_outside(q):
        raise ValueError(
            f"{type(q).__name__} (kernel {q.get_params().get('kernel')!r}) cannot predict points "
            "outside the pool: measure the error on the pool instead (validation=None)"
        )
    return q.predict_at(Z)


def _pool_and_validation(X, y, validation, K, init: int):
    """:func:`_validation_split`, refused when a precomputed ``K`` meets a held-out fraction
    (the pool changes) or when ``init`` labels leave no point to query."""
    if K is not None and isinstance(validation, float):
        raise ValueError("a precomputed K cannot be combined with a validation fraction")
    X, y, X_val, y_val, where = _validation_split(X, y, validation)
    if init >= X.shape[0]:
        raise ValueError(f"init={init} labels leave no point to query in a pool of {X.shape[0]}")
    return X, y, X_val, y_val, where


def _validation_split(X, y, validation):
    """(X_pool, y_pool, X_val or None, y_val, description); X_val None = the pool itself."""
    if validation is None:
        return X, y, None, y, POOL_VALIDATION
    if isinstance(validation, float | int) and not isinstance(validation, bool):
        frac = float(validation)
        if not 0.0 < frac < 1.0:
            raise ValueError(f"validation fraction must be between 0 and 1, got {validation!r}")
        rng = np.random.default_rng(0)
        held = []
        for c in np.unique(y):
            members = np.flatnonzero(y == c)
            k = int(round(frac * members.size))
            if k >= members.size:
                k = members.size - 1
            held.extend(rng.choice(members, size=k, replace=False).tolist())
        held = np.sort(np.asarray(held, dtype=int))
        keep = np.setdiff1d(np.arange(y.size), held)
        if held.size == 0:
            raise ValueError(f"validation fraction {frac} of {y.size} points holds out no point")
        return X[keep], y[keep], X[held], y[held], f"{held.size} points held out ({frac:g})"
    try:
        X_val, y_val = validation
    except (TypeError, ValueError):
        raise ValueError(
            "validation must be None, a fraction in (0, 1) or a pair (X_val, y_val)"
        ) from None
    X_val = check_matrix(X_val, "X_val")
    y_val = check_labels(y_val, X_val.shape[0], "y_val")
    if X_val.shape[1] != X.shape[1]:
        raise ValueError(
            f"X_val has {X_val.shape[1]} features but the pool has {X.shape[1]}: "
            "use the same columns"
        )
    return X, y, X_val, y_val, f"{X_val.shape[0]} separate points"


def _classes(y: np.ndarray, classes) -> np.ndarray:
    found = sorted_values(y.tolist())
    if classes is None:
        if len(found) < 2:
            raise ValueError(f"y has only one class ({found[0]!r}): a classifier needs at least 2")
        return np.asarray(found, dtype=object if y.dtype.kind == "O" else None)
    classes = list(classes)
    unknown = [v for v in found if v not in classes]
    if unknown:
        raise ValueError(f"labels {unknown} of y are not among the classes {classes}")
    return np.asarray(classes)


def _template_and_kernel(strategy, params: dict, X, X_val, K) -> tuple[QueryStrategy, object]:
    """The strategy every run clones, refused when it cannot predict the separate validation
    points, and the pool kernel: ``K`` if given, else computed once (if the strategy needs
    one) and shared by the runs."""
    template = _strategy(strategy, params)
    if X_val is not None and not can_predict_outside(template):
        _predict_outside(template, X_val)  # raises the explanation
    if K is None and template.needs_pool_kernel():
        K = template.pool_kernel(X)
    return template, K


def _strategy(strategy, params: dict) -> QueryStrategy:
    if isinstance(strategy, str):
        return make_strategy(strategy, **params)
    if not isinstance(strategy, QueryStrategy):
        raise ValueError(
            f"strategy must be a name in {sorted(STRATEGIES)} or a QueryStrategy, got {strategy!r}"
        )
    return clone(strategy).set_params(**params) if params else strategy


def _seed_list(seeds) -> list[int]:
    if isinstance(seeds, int | np.integer) and not isinstance(seeds, bool):
        return list(range(_check_count(seeds, "seeds", minimum=1)))
    try:
        out = [int(s) for s in seeds]
    except (TypeError, ValueError):
        raise ValueError(f"seeds must be a count or a list of integers, got {seeds!r}") from None
    if not out:
        raise ValueError("seeds is empty: give at least one seed")
    return out


def _check_count(value, name: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    return int(value)
