"""A session's query engine: built from the session's parameters, checked against the memory,
started on a pool kernel that is cached across rebuilds."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from rlscore.core.memory import require_memory, square_matrices_bytes
from rlscore.query import QueryStrategy, make_strategy

#: parameters of a session that define the engine (a change rebuilds it)
ENGINE_PARAMS = ("strategy", "kernel", "sigma", "lam", "class_weight")
#: dense n × n float64 matrices a strategy holds (kernel, state, scratch), for the memory check
#: of strategies that do not estimate their own needs (``memory_bytes``)
_MATRICES_PER_STRATEGY = {"arls": 2, "arls-weighted": 2, "aopt-klr": 2}
_DEFAULT_MATRICES = 2


class PoolTooLargeError(ValueError):
    """The pool does not fit in memory for the chosen strategy; the message says what to do."""


def strategy_name(strategy: str | QueryStrategy) -> str:
    """The name of a strategy given by name or as an instance (its class name)."""
    return strategy if isinstance(strategy, str) else type(strategy).__name__


def make_engine(params: dict, lam: float) -> QueryStrategy:
    """An unstarted strategy from a session's parameters, with ``lam`` as its λ.

    Parameters
    ----------
    params
        The session's parameters: :data:`ENGINE_PARAMS` and further strategy parameters
        (``None`` values leave the strategy's default).
    lam
        The λ in effect (a number: the session resolves ``"auto"``).
    """
    extra = {k: v for k, v in params.items() if k not in ENGINE_PARAMS and v is not None}
    kw = {"kernel": params["kernel"], "sigma": params["sigma"], "lam": lam, **extra}
    if params["class_weight"] is not None:  # None would override a strategy's default
        kw["class_weight"] = params["class_weight"]
    strategy = params["strategy"]
    if isinstance(strategy, QueryStrategy):
        engine = clone(strategy)
        accepted = engine.get_params()
        engine.set_params(**{k: v for k, v in kw.items() if k in accepted})
        return engine
    return make_strategy(strategy, **kw)


def class_weight_of(engine: QueryStrategy) -> None | str | dict:
    """The class weights the engine learns with (its own default included, e.g.
    ``"arls-weighted"``'s ``"balanced"``); None for strategies without weights."""
    return engine.get_params().get("class_weight")


def check_pool_size(engine: QueryStrategy, n: int, name: str) -> None:
    """Refuse, before anything is allocated, a pool the strategy's matrices do not fit."""
    estimate = getattr(engine, "memory_bytes", None)
    if callable(estimate):
        need = int(estimate(n))
    else:
        need = square_matrices_bytes(n, _MATRICES_PER_STRATEGY.get(name, _DEFAULT_MATRICES))
    try:
        require_memory(need, f"strategy {name!r} on a pool of {n} points")
    except MemoryError as exc:
        raise PoolTooLargeError(
            f"pool too large: {exc}. Create a project from a random subsample of the data "
            "(a few thousand points), or choose the 'random' strategy"
        ) from None


def start_engine(
    engine: QueryStrategy, X: np.ndarray, classes, K: np.ndarray | None, name: str
) -> None:
    """Start the engine on the pool; a memory shortfall becomes :class:`PoolTooLargeError`."""
    try:
        engine.start(X, classes, K=K)
    except MemoryError as exc:
        raise PoolTooLargeError(f"pool too large for strategy {name!r}: {exc}") from None


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
        a ``kernel`` parameter (it builds what it needs itself)."""
        if "kernel" not in engine.get_params():
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
    "start_engine",
    "strategy_name",
]
