"""Which point each annotator is shown: claims on queries, kept in the label store.

An annotator's next query is *claimed* for them in the store (with an expiry), so annotators
in other tabs or on other servers sharing the database are shown other points, and one
annotator sees the same point again after a reload. :func:`claimed_point` is the rule;
:class:`~rlscore.sessions.LabelingSession` calls it from ``query(annotator=…)``.
"""

from __future__ import annotations

import itertools
import time
from typing import NamedTuple

import numpy as np

from rlscore.query import NoCandidatesError, QueryStrategy
from rlscore.query.protocol.batch import state_given
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.team.overlap import Overlap
from rlscore.storage import LabelStore, StaleActionError

#: rounds of choosing when teammates take every candidate between our reading and writing
CLAIM_ATTEMPTS = 8
#: candidates tried per round (a claim is one short transaction)
MAX_CANDIDATES = 64


class ClaimedPoint(NamedTuple):
    """A point claimed for an annotator, and whether it was drawn as a random check."""

    point: int
    audit: bool


def claimed_point(
    store: LabelStore,
    project: str,
    engine: QueryStrategy,
    log: LabelLog,
    annotator: str,
    ttl: float,
    overlap: Overlap | None = None,
    audit: tuple[int, np.random.Generator] | None = None,
) -> ClaimedPoint | None:
    """The point to show ``annotator``, claimed for them for ``ttl`` seconds.

    Their own unexpired claim on a point still open for them (unlabeled and not skipped, or
    waiting for their label under ``overlap``) comes first; then, with ``overlap``, the
    oldest point waiting for their label that nobody else holds
    (:meth:`~rlscore.sessions.team.overlap.Overlap.wanted_from`); otherwise the engine's best
    point given that the points other annotators hold will be labeled — the greedy batch
    rule, their believed labels taught to a copy of the engine
    (:func:`~rlscore.query.protocol.batch.next_query_given`), so annotators labeling at once get one
    diverse batch rather than neighbouring points. A claim with more than half of ``ttl``
    left is not written again (every page view would be a commit).

    With ``audit`` (the pool size and a seeded generator: this query is a *random check*,
    :mod:`rlscore.sessions.team.handout`) the engine's pick is replaced by a point drawn uniformly
    at random from the open points nobody else holds (:func:`audit_candidates`); the claim
    rule is the same, so teammates still never share a point. Their own claim and the points
    waiting for their label still come first: those are not random checks. The engine's pick
    is one too when it is the engine's own uniform draw of the state it was chosen in (focused
    ARLS's exploring query, random sampling:
    :meth:`~rlscore.query.protocol.strategy.QueryStrategy.uniform_draw`).

    Returns
    -------
    ClaimedPoint or None
        The pool index, and whether it is a random check — told here, where it is chosen: the
        state with the teammates' points believed labeled draws from other points than the
        engine's own state would; None when no point is left.

    Raises
    ------
    ClaimContention
        Every candidate was claimed or labeled by teammates meanwhile: sync the log and ask
        again.
    """
    wanted = [] if overlap is None else overlap.wanted_from(log, annotator)
    claims = store.claims(project)
    mine = (
        (p, expires)
        for p, (who, expires) in sorted(claims.items())
        if who == annotator and ((p not in log.labels and p not in log.skipped) or p in wanted)
    )
    point, expires = next(mine, (None, 0.0))
    if point is not None and expires - time.time() > ttl / 2:
        return ClaimedPoint(point, False)
    taken = {p for p, (who, _) in claims.items() if who != annotator}
    waiting = ((p, False) for p in wanted if p not in taken)
    if audit is None:
        candidates = itertools.chain(waiting, _candidates(engine, log, taken))
    else:
        n, rng = audit
        drawn = audit_candidates(n, log, taken, rng)
        candidates = itertools.chain(waiting, ((p, True) for p in drawn))
    if point is not None:  # renew our own claim first
        candidates = itertools.chain([(point, False)], candidates)
    tried = 0
    for point, check in candidates:
        tried += 1
        try:
            # the claim is refused when the point changed after the log's last event (a
            # teammate labeled it: their claim went with their label), so a point claimed
            # here is open now even if the log is behind
            if store.claim(project, point, annotator, ttl, unchanged_since=log.last_id):
                return ClaimedPoint(point, check)
        except StaleActionError:
            pass
    if tried == 0:
        return None
    raise ClaimContention(f"{tried} candidate points were taken or labeled by teammates meanwhile")


class ClaimContention(RuntimeError):
    """Every candidate point was claimed or labeled by others while choosing: sync the log
    and ask again."""


def audit_candidates(n: int, log: LabelLog, taken: set[int], rng: np.random.Generator) -> list[int]:
    """Points to try claiming for a random check: the open points of a pool of ``n`` (not
    labeled, not skipped, not held by a teammate) in an order drawn uniformly at random by
    ``rng``, the first :data:`MAX_CANDIDATES` + 1 of them. The first is a uniform draw from
    the open points; the next ones are tried only when teammates took it meanwhile.

    While at least half the pool is open the points are drawn by rejection (uniform over the
    pool, a blocked or drawn point drawn again): no array of pool length, so a pool on a
    cluster draws its checks in O(labels) memory on the app server. Beyond, the open points
    are listed.
    """
    blocked = {b for b in log.skipped | taken | set(log.labels) if 0 <= b < n}
    n_open = n - len(blocked)
    size = min(n_open, MAX_CANDIDATES + 1)
    if 2 * n_open < n:
        open_mask = np.ones(n, dtype=bool)
        open_mask[np.fromiter(blocked, dtype=np.intp, count=len(blocked))] = False
        open_points = np.flatnonzero(open_mask)
        return [int(p) for p in open_points[rng.choice(open_points.size, size=size, replace=False)]]
    drawn: list[int] = []
    seen = set(blocked)
    while len(drawn) < size:
        p = int(rng.integers(n))
        if p not in seen:
            seen.add(p)
            drawn.append(p)
    return drawn


def _candidates(engine: QueryStrategy, log: LabelLog, taken: set[int]):
    """The engine's points to try claiming, best first, each with whether it is a random
    check: the greedy pick given the teammates' claims (a check when it is that state's
    uniform draw), then the next best of the same scores (never checks)."""
    # teammates' claimed points count as labeled with their believed labels: the
    # annotators together label one greedy batch (rlscore.query.protocol.batch)
    state, closed = state_given(engine, taken, exclude=log.skipped)
    try:
        first, _ = state.next_query(closed)
    except NoCandidatesError:
        return
    draw = getattr(state, "uniform_draw", None)
    yield first, draw is not None and draw(closed) == first
    # reached only when teammates took the first meanwhile: the next best of the same scores
    # (no rescoring), as many as a busy team may have taken since our last look at the log
    scores = np.asarray(engine.scores(), dtype=float)
    order = np.argsort(np.where(np.isnan(scores), np.inf, scores), kind="stable")
    blocked = log.skipped | taken | {first} | set(log.labels)
    rest = ((int(p), False) for p in order if np.isfinite(scores[p]) and int(p) not in blocked)
    yield from itertools.islice(rest, MAX_CANDIDATES)


__all__ = [
    "CLAIM_ATTEMPTS",
    "MAX_CANDIDATES",
    "ClaimContention",
    "ClaimedPoint",
    "audit_candidates",
    "claimed_point",
]
