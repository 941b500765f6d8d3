"""Batch queries: ``k`` distinct points for ``k`` annotators labeling one project at once.

:meth:`QueryStrategy.next_queries <rlscore.query.protocol.strategy.QueryStrategy.next_queries>`
dispatches here. Both rules start with the strategy's own
:meth:`~rlscore.query.protocol.strategy.QueryStrategy.next_query` (so a batch of one is exactly the
single query), then pick again with the points chosen so far excluded:

* ``"greedy"`` — *kriging believer*: after choosing point ``i`` the state is updated as if ``i``
  had been labeled with its most probable label under the current model
  (:func:`believed_label`), and the next point is chosen on that state. For ARLS the
  covariance update ``D ← D − d_i d_iᵀ/s_i`` does not depend on the label (it is exact), only
  the predictions ``m`` use the believed one; A-optimal KLR refits its model with it. The
  next point is thus scored knowing that ``i`` will be labeled: a point whose information
  ``i`` already brings loses its appeal, which spreads the batch. Cost: ``k`` scorings and
  ``k − 1`` label updates, plus one copy of the state.
* ``"top"`` — the ``k`` best scores of the current state (each pick is the best point with
  the previous picks excluded, nothing is taught): less diverse, as neighbouring points
  tend to score alike, and cheaper — one scoring for ARLS and low-rank ARLS (their scores
  are cached per state), an O(n) pass per pick for the baselines. A-optimal KLR scores only
  the candidates not excluded (its cache is keyed by that set), so it rescores for each
  pick, as does a strategy drawing a candidate subset among the points not excluded; for
  them "top" saves only the refits of "greedy".

For the random baseline both rules give the same points: its scores are a fixed random order,
independent of any label. The uncertainty and entropy baselines refit their RLS predictor
with the believed label, so their greedy batch moves with it (a neighbour on the believed
side of the boundary becomes more certain) and differs from their top-k.

**The engine is left as it was, bit for bit** (a session replays its state from the labels and
relies on it): only the first pick queries the engine (so its caches hold what
``next_query(exclude)`` leaves); the other picks run on a copy (:func:`lookahead_copy`). The copy
shares the arrays that :meth:`~rlscore.query.protocol.strategy.QueryStrategy.start` sets once and no
update writes (:data:`READ_ONLY_STATE`: the pool, its kernel, the low-rank features), and copies the
rest: for dense ARLS one ``n × n`` covariance per group of columns (``8 n²`` bytes, 32 MB at n =
2000), for the others a few vectors, a small ``r × r`` state or the labeled kernel columns. Saving
and restoring the engine's arrays instead would need the same extra memory, copy the covariance
twice rather than once, and show a hypothetical state to any reader of the engine meanwhile (another
annotator's request); undoing the believed labels by the downdate formulas would not restore it bit
for bit. Measured at n = 2000 (dense ARLS, one BLAS thread, three runs at load average 1–2 on 2
cores, ``benchmarks/batch_queries.py --copy-cost``): the copy takes 3–4 ms and 31 MiB (a full
``copy.deepcopy`` 10–19 ms and 61 MiB, as it copies the kernel too; saving and restoring D 4–9 ms
and the same 31 MiB held aside), against 17–34 ms for one ARLS scoring and 77–146 ms for a greedy
batch of 4: about 3 % of the batch. The time is no reason to prefer either; safety is.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from numbers import Integral
from typing import Protocol

import numpy as np

#: batch rules of :func:`next_queries`
RULES = ("greedy", "top")

#: attributes set once by ``start`` and never written in place by an update (the pool, its
#: kernel and diagonal, the low-rank features and their map): the lookahead copy shares them
READ_ONLY_STATE = ("X_", "_K", "_K_given", "_diagK", "features_", "lowrank_")


class QueryState(Protocol):
    """What the batch rules use of a started :class:`~rlscore.query.protocol.strategy.QueryStrategy`
    (described here: :mod:`rlscore.query.protocol.strategy` imports this module, not the
    reverse)."""

    classes_: np.ndarray
    n_pool_: int
    labeled_: list[int]

    def next_query(self, exclude: Iterable[int] | None = None) -> tuple[int, float]: ...

    def teach(self, i: int, label) -> None: ...

    def predict_proba(self) -> np.ndarray: ...


def next_queries(
    strategy: QueryState,
    k: int,
    exclude: Iterable[int] | None = None,
    rule: str = "greedy",
) -> list[tuple[int, float]]:
    """Up to ``k`` distinct points to label next, each with its score (module docstring).

    Parameters
    ----------
    strategy
        A started query strategy; it is left exactly as it was (its score caches aside).
    k
        Number of points wanted, ≥ 1.
    exclude
        Pool indices never to return (skipped points, points claimed by other annotators).
    rule
        ``"greedy"`` (kriging believer) or ``"top"`` (the k best current scores).

    Returns
    -------
    list of (int, float)
        ``(index, score)`` in the order chosen, distinct, none labeled or excluded; fewer
        than ``k`` only when the candidates run out. The first pair is ``next_query(exclude)``.
        With ``"greedy"`` the score of a later pick is its score in the state that believes
        the labels of the picks before it.

    Raises
    ------
    ValueError
        ``k`` is not an integer ≥ 1, or ``rule`` is unknown.
    NoCandidatesError
        No candidate at all (as :meth:`~rlscore.query.protocol.strategy.QueryStrategy.next_query`).

    Whatever teaching a believed label raises (e.g. a KLR refit that does not converge) is
    raised as it is; the engine is unchanged then too.
    """
    if isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
        raise ValueError(f"k must be an integer ≥ 1 (the number of points wanted), got {k!r}")
    if rule not in RULES:
        raise ValueError(f"unknown batch rule {rule!r}: choose one of {list(RULES)}")
    taken = set() if exclude is None else {int(e) for e in exclude}
    picks = [strategy.next_query(taken)]  # NoCandidatesError when no point is left
    # next_query fails exactly when every point is labeled or excluded (the protocol), and
    # each pick takes one free point: the batch size is known in advance
    blocked = set(strategy.labeled_) | {e for e in taken if 0 <= e < strategy.n_pool_}
    size = min(k, strategy.n_pool_ - len(blocked))
    greedy = rule == "greedy"
    # greedy teaches an independent copy; top queries a shallow one, which reads the
    # engine's arrays and cached scores but keeps the caches its queries set to itself
    state = lookahead_copy(strategy, deep=greedy) if size > 1 else strategy
    while len(picks) < size:
        i = picks[-1][0]
        if greedy:
            state.teach(i, believed_label(state, i))
        taken.add(i)  # greedy: already labeled in the copy; top: excluded from now on
        picks.append(state.next_query(taken))
    return picks


def next_query_given(
    strategy: QueryState, pending: Iterable[int], exclude: Iterable[int] | None = None
) -> tuple[int, float]:
    """The next point when ``pending`` points are already handed out (being labeled by
    others): the greedy rule's next pick with those points believed labeled.

    This is how one annotator after another gets a point of one greedy batch without a batch
    being computed at once: a point claimed by a teammate counts as labeled with its believed
    label (:func:`believed_label`), on a copy of the state; the engine is unchanged. With no
    pending point it is ``next_query(exclude)``.

    Parameters
    ----------
    strategy
        A started query strategy.
    pending
        Pool indices handed out and not yet labeled (labeled ones are ignored).
    exclude
        Further indices never to return (e.g. skipped points).

    Returns
    -------
    (int, float)
        The point and its score in the state that believes the pending labels.
    """
    state, closed = state_given(strategy, pending, exclude)
    return state.next_query(closed)


def state_given(
    strategy: QueryState, pending: Iterable[int], exclude: Iterable[int] | None = None
) -> tuple[QueryState, set[int]]:
    """The state :func:`next_query_given` queries, and the points it must not return: a copy
    of ``strategy`` that believes the ``pending`` points labeled with their believed labels
    (``strategy`` itself when none is pending), and ``exclude`` with the pending points. Its
    ``next_query`` and ``uniform_draw`` of those points say what the greedy rule hands out
    and whether that is a draw uniformly at random (a random check)."""
    labeled = set(strategy.labeled_)
    pending = sorted({int(p) for p in pending} - labeled)
    taken = set() if exclude is None else {int(e) for e in exclude}
    if not pending:
        return strategy, taken
    state = lookahead_copy(strategy)
    for i in pending:
        state.teach(i, believed_label(state, i))
    return state, taken | set(pending)


def believed_label(strategy: QueryState, i: int):
    """The most probable label of pool point ``i`` under the strategy's current model.

    The class of largest :meth:`~rlscore.query.protocol.strategy.QueryStrategy.predict_proba` at
    ``i`` (the first class on ties, e.g. before any label), as a Python scalar of ``classes_``;
    a strategy with its own ``believed_label(i)`` (multi-label: the predicted label set) says.
    """
    own = getattr(strategy, "believed_label", None)
    if own is not None:
        return own(i)
    c = int(np.argmax(strategy.predict_proba()[i]))
    return strategy.classes_[c].item()


def lookahead_copy(strategy: QueryState, deep: bool = True) -> QueryState:
    """A copy of a started strategy to teach hypothetical labels to, or to query.

    Parameters
    ----------
    strategy
        The engine; never modified.
    deep
        True: an independent copy — everything is deep-copied except the
        :data:`READ_ONLY_STATE` arrays, which are shared (also where the state holds them
        elsewhere, e.g. the dense kernel inside a helper object). False: a shallow copy,
        sharing every attribute's value, for queries only (a query rebinds its caches on
        the copy instead of the engine).

    Returns
    -------
    The copy, built from the instance dictionary rather than through pickling hooks, so it
    has exactly the engine's attributes.
    """
    state = vars(strategy)
    if deep:
        memo = {id(state[name]): state[name] for name in READ_ONLY_STATE if name in state}
        state = copy.deepcopy(state, memo)
    clone = object.__new__(type(strategy))
    clone.__dict__.update(state)
    return clone


__all__ = [
    "READ_ONLY_STATE",
    "RULES",
    "QueryState",
    "believed_label",
    "lookahead_copy",
    "next_queries",
    "next_query_given",
    "state_given",
]
