"""Which point each annotator is shown: claims on queries, kept in the label store.

An annotator's next query is *claimed* for them in the store (with an expiry), so annotators
in other tabs or on other servers sharing the database are shown other points, and one
annotator sees the same point again after a reload. :func:`claimed_point` is the rule;
:class:`~rlscore.sessions.LabelingSession` calls it from ``query(annotator=…)``.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from rlscore.query import NoCandidatesError, QueryStrategy
from rlscore.query.batch import next_query_given
from rlscore.sessions.log import LabelLog
from rlscore.sessions.overlap import Overlap
from rlscore.storage import LabelStore, StaleActionError

#: rounds of choosing when teammates take every candidate between our reading and writing
CLAIM_ATTEMPTS = 8
#: candidates tried per round (a claim is one short transaction)
MAX_CANDIDATES = 64


def claimed_point(
    store: LabelStore,
    project: str,
    engine: QueryStrategy,
    log: LabelLog,
    annotator: str,
    ttl: float,
    overlap: Overlap | None = None,
) -> int | None:
    """The point to show ``annotator``, claimed for them for ``ttl`` seconds.

    Their own unexpired claim on a point still open for them (unlabeled and not skipped, or
    waiting for their label under ``overlap``) comes first; then, with ``overlap``, the
    oldest point waiting for their label that nobody else holds
    (:meth:`~rlscore.sessions.overlap.Overlap.wanted_from`); otherwise the engine's best
    point given that the points other annotators hold will be labeled — the greedy batch
    rule, their believed labels taught to a copy of the engine
    (:func:`~rlscore.query.batch.next_query_given`), so annotators labeling at once get one
    diverse batch rather than neighbouring points. A claim with more than half of ``ttl``
    left is not written again (every page view would be a commit).

    Returns
    -------
    int or None
        The pool index; None when no point is left.

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
        return point
    taken = {p for p, (who, _) in claims.items() if who != annotator}
    candidates = _candidates(engine, log, taken, wanted)
    if point is not None:  # renew our own claim first
        candidates = itertools.chain([point], candidates)
    tried = 0
    for point in candidates:
        tried += 1
        try:
            # the claim is refused when the point changed after the log's last event (a
            # teammate labeled it: their claim went with their label), so a point claimed
            # here is open now even if the log is behind
            if store.claim(project, point, annotator, ttl, unchanged_since=log.last_id):
                return point
        except StaleActionError:
            pass
    if tried == 0:
        return None
    raise ClaimContention(f"{tried} candidate points were taken or labeled by teammates meanwhile")


class ClaimContention(RuntimeError):
    """Every candidate point was claimed or labeled by others while choosing: sync the log
    and ask again."""


def _candidates(engine: QueryStrategy, log: LabelLog, taken: set[int], wanted: list[int]):
    """Points to try claiming, best first: those waiting for the annotator under overlap,
    the greedy pick given the teammates' claims, then the next best of the same state."""
    yield from (p for p in wanted if p not in taken)
    try:
        # teammates' claimed points count as labeled with their believed labels: the
        # annotators together label one greedy batch (rlscore.query.batch)
        first, _ = next_query_given(engine, taken, exclude=log.skipped)
    except NoCandidatesError:
        return
    yield first
    # reached only when teammates took the first meanwhile: the next best of the same scores
    # (no rescoring), as many as a busy team may have taken since our last look at the log
    scores = np.asarray(engine.scores(), dtype=float)
    order = np.argsort(np.where(np.isnan(scores), np.inf, scores), kind="stable")
    blocked = log.skipped | taken | {first} | set(log.labels)
    rest = (int(p) for p in order if np.isfinite(scores[p]) and int(p) not in blocked)
    yield from itertools.islice(rest, MAX_CANDIDATES)


__all__ = ["CLAIM_ATTEMPTS", "MAX_CANDIDATES", "ClaimContention", "claimed_point"]
