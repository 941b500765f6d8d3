"""A session's query engine: built from the session's parameters, checked against the memory,
started on a pool kernel that is cached across rebuilds."""

from __future__ import annotations

import numpy as np

from rlscore.core.conventions.memory_budget import memory_shortfall, square_matrices_bytes
from rlscore.core.conventions.parameters import fresh_copy
from rlscore.core.kernels.functions import VECTOR_KERNELS
from rlscore.query import (
    MULTILABEL_STRATEGIES,
    STRATEGIES,
    QueryStrategy,
    make_strategy,
    strategy_class,
)

#: parameters of a session that define the engine (a change rebuilds it)
ENGINE_PARAMS = ("strategy", "kernel", "sigma", "lam", "class_weight")
#: dense n × n float64 matrices (kernel, state) held by a strategy that does not estimate its
#: own needs (``memory_bytes``): the KLR strategies and strategy instances
_DEFAULT_MATRICES = 2


class PoolTooLargeError(ValueError):
    """The pool does not fit in memory for the chosen strategy; the message says what to do."""


def strategy_name(strategy: str | QueryStrategy) -> str:
    """The name of a strategy given by name or as an instance (its class name)."""
    return strategy if isinstance(strategy, str) else type(strategy).__name__


def multi_label_strategy(name: str) -> str:
    """``name`` if a multi-label project can run it (:data:`~rlscore.query.MULTILABEL_STRATEGIES`:
    the multi-label variants have the names of their single-label strategies).

    Raises
    ------
    ValueError
        ``name`` has no multi-label variant yet; the message lists those that have one.
    """
    if name not in MULTILABEL_STRATEGIES:
        raise ValueError(
            f"strategy {name!r} is not available for multi-label projects yet: choose one of "
            f"{list(MULTILABEL_STRATEGIES)}"
        )
    return name


def make_engine(
    params: dict, lam: float, meta: dict | None = None, *, multi_label: bool = False
) -> QueryStrategy:
    """An unstarted strategy from a session's parameters, with ``lam`` as its λ.

    Parameters
    ----------
    params
        The session's parameters: :data:`ENGINE_PARAMS` and further strategy parameters
        (``None`` values leave the strategy's default).
    lam
        The λ in effect (a number: the session resolves ``"auto"``).
    meta
        The project's meta: a cluster-backed project's (``meta["cluster"]``) gets a
        :class:`~rlscore.sessions.cluster.engine.ClusterEngine` running the strategy's
        block passes on the cluster.
    multi_label
        A multi-label project's engine (labels are label sets): the strategy of
        :func:`multi_label_strategy`, by name only.
    """
    extra = {k: v for k, v in params.items() if k not in ENGINE_PARAMS and v is not None}
    if multi_label:
        return _multi_label_engine(params, lam, extra)
    if meta and meta.get("cluster"):
        return _cluster_engine(params, lam, meta["cluster"], extra)
    kw = {"kernel": params["kernel"], "sigma": params["sigma"], "lam": lam, **extra}
    if params["class_weight"] is not None:  # None would override a strategy's default
        kw["class_weight"] = params["class_weight"]
    strategy = params["strategy"]
    if uses_own_lam_rule(strategy):
        # a KLR strategy's automatic λ is its own rule (t and λ by the LOO log-loss of the
        # labels, rlscore.core.klr.tuning); a λ the user set is kept
        kw["tune"] = "loo" if params.get("lam") == "auto" else "none"
    if isinstance(strategy, QueryStrategy):
        engine = fresh_copy(strategy)
        accepted = engine.get_params()
        engine.set_params(**{k: v for k, v in kw.items() if k in accepted})
        return engine
    return make_strategy(strategy, **kw)


def _multi_label_engine(params: dict, lam: float, extra: dict) -> QueryStrategy:
    """A multi-label project's engine: the multi-label variant of the session's strategy."""
    strategy = params["strategy"]
    if not isinstance(strategy, str):
        raise ValueError("a multi-label project takes a strategy by name")
    kw = {"kernel": params["kernel"], "sigma": params["sigma"], "lam": lam, **extra}
    if params["class_weight"] is not None:
        kw["class_weight"] = params["class_weight"]
    return make_strategy(multi_label_strategy(strategy), multi_label=True, **kw)


def _cluster_engine(params: dict, lam: float, pool: dict, extra: dict) -> QueryStrategy:
    """The engine of a cluster-backed project (imported here: only such a project needs it)."""
    from rlscore.sessions.cluster.engine import ClusterEngine

    strategy = params["strategy"]
    if not isinstance(strategy, str):
        raise ValueError("a project on a cluster takes a strategy by name")
    accepted = set(ClusterEngine().get_params())
    kw = {k: v for k, v in extra.items() if k in accepted}
    if params.get("class_weight") is not None:
        kw["class_weight"] = params["class_weight"]
    return ClusterEngine(
        pool=dict(pool), strategy=strategy, kernel=params["kernel"], sigma=params["sigma"],
        lam=lam, tune="loo" if params.get("lam") == "auto" else "none", **kw,
    )  # fmt: skip


def uses_own_lam_rule(strategy: str | QueryStrategy) -> bool:
    """Whether the strategy chooses λ itself (``tune``), so the session's automatic λ of
    :mod:`rlscore.sessions.state.auto_lam` (RLS leave-one-out) does not apply to it."""
    if isinstance(strategy, QueryStrategy):
        return "tune" in strategy.get_params()
    return "tune" in strategy_class(strategy).param_names()


def class_weight_of(engine: QueryStrategy) -> None | str | dict:
    """The class weights the engine learns with (its own default included, e.g.
    ``"arls-weighted"``'s ``"balanced"``); None for strategies without weights."""
    return engine.get_params().get("class_weight")


def memory_need(engine: QueryStrategy, n: int) -> int:
    """Bytes ``engine`` needs on a pool of ``n`` points: its own ``memory_bytes(n)`` if it has
    one, else :data:`_DEFAULT_MATRICES` dense n × n matrices."""
    estimate = getattr(engine, "memory_bytes", None)
    if callable(estimate):
        return int(estimate(n))
    return square_matrices_bytes(n, _DEFAULT_MATRICES)


def strategies_that_fit(n: int, kernel_params: dict) -> list[str]:
    """The names of :data:`~rlscore.query.STRATEGIES` whose memory need for a pool of ``n``
    points, with these kernel parameters, fits in the available memory (registry order)."""
    return [
        name
        for name in STRATEGIES
        if memory_shortfall(memory_need(make_strategy(name, **kernel_params), n), name) is None
    ]


def pool_size_advice(engine: QueryStrategy, n: int, name: str) -> str:
    """What to choose instead when strategy ``name`` (``engine``) does not fit a pool of ``n``
    points: the other strategies that do, with its kernel or else with a vector kernel (a
    graph kernel is an n × n inverse for every strategy), and subsampling."""
    params = engine.kernel_params()
    kernel = params.get("kernel")
    subsample = "create a project from a random subsample of the data (a few thousand points)"
    for alternative, where in (
        (params, f"with kernel {kernel!r}"),
        ({**params, "kernel": "rbf"}, f"with a vector kernel ({', '.join(VECTOR_KERNELS)})"),
    ):
        fit = [f for f in strategies_that_fit(n, alternative) if f != name]
        if fit:
            names = ", ".join(repr(f) for f in fit)
            return f"strategies that fit this pool {where}: {names}; or {subsample}"
        if kernel in VECTOR_KERNELS:
            break  # another vector kernel needs the same memory
    return f"no strategy fits a pool of {n} points: {subsample}"


def check_pool_size(engine: QueryStrategy, n: int, name: str) -> None:
    """Refuse, before anything is allocated, a pool the strategy's memory does not fit; the
    :class:`PoolTooLargeError` names the strategies that would take the pool."""
    problem = memory_shortfall(memory_need(engine, n), f"strategy {name!r} on a pool of {n} points")
    if problem is not None:
        raise PoolTooLargeError(
            f"pool too large for {name!r}: {problem}; {pool_size_advice(engine, n, name)}"
        )


def start_engine(
    engine: QueryStrategy, X: np.ndarray, classes, K: np.ndarray | None, name: str
) -> None:
    """Start the engine on the pool; a memory shortfall becomes :class:`PoolTooLargeError`."""
    try:
        engine.start(X, classes, K=K)
    except MemoryError as exc:
        advice = pool_size_advice(engine, X.shape[0], name)
        raise PoolTooLargeError(f"pool too large for strategy {name!r}: {exc}; {advice}") from None


class KernelCache:
    """The pool kernel of the last engine asked for, reused while its kernel parameters hold.

    A change of λ, class weights or strategy then costs no kernel computation (a graph
    kernel is an n × n inverse).
    """

    def __init__(self) -> None:
        self._key: str | None = None
        self.matrix: np.ndarray | None = None

    def get(self, engine: QueryStrategy, X: np.ndarray) -> np.ndarray | None:
        """The pool kernel for ``engine``'s kernel parameters; None for a strategy without
        a ``kernel`` parameter or that needs no pool kernel (``needs_pool_kernel()`` false:
        the low-memory baselines compute their few kernel columns themselves)."""
        if not engine.needs_pool_kernel():
            # not even a cached matrix: the engine's path must not depend on what the
            # cache holds, or a reopened session would not replay bit for bit
            return None
        # the strategy's own list of the parameters its pool kernel depends on
        key = repr(sorted(engine.kernel_params().items()))
        if self._key != key:
            self._key, self.matrix = None, None  # free the old matrix before building the new
            self.matrix = engine.pool_kernel(X)
            self._key = key
        return self.matrix


__all__ = [
    "ENGINE_PARAMS",
    "KernelCache",
    "PoolTooLargeError",
    "check_pool_size",
    "class_weight_of",
    "make_engine",
    "memory_need",
    "multi_label_strategy",
    "pool_size_advice",
    "start_engine",
    "strategies_that_fit",
    "strategy_name",
]
