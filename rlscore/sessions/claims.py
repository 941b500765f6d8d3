"""Which point each annotator is shown: claims on queries, kept in the label store.

An annotator's next query is *claimed* for them in the store (with an expiry), so annotators
in other tabs or on other servers sharing the database are shown other points, and one
annotator sees the same point again after a reload. :func:`claimed_point` is the rule;
:class:`~rlscore.sessions.LabelingSession` calls it from ``query(annotator=…)``.
"""

from __future__ import annotations

import time

from rlscore.query import NoCandidatesError, QueryStrategy
from rlscore.sessions.log import LabelLog
from rlscore.storage import LabelStore

#: attempts when another server takes the chosen point between reading and writing
CLAIM_ATTEMPTS = 8


def claimed_point(
    store: LabelStore,
    project: str,
    engine: QueryStrategy,
    log: LabelLog,
    annotator: str,
    ttl: float,
) -> int | None:
    """The point to show ``annotator``, claimed for them for ``ttl`` seconds.

    Their own unexpired claim on a point still open (unlabeled, not skipped) comes first;
    otherwise the engine's best point among those nobody else holds. A claim with more than
    half of ``ttl`` left is not written again (every page view would be a commit).

    Returns
    -------
    int or None
        The pool index; None when no point is left (or the claims kept changing).
    """
    for _ in range(CLAIM_ATTEMPTS):
        claims = store.claims(project)
        mine = (
            (p, expires)
            for p, (who, expires) in sorted(claims.items())
            if who == annotator and p not in log.labels and p not in log.skipped
        )
        point, expires = next(mine, (None, 0.0))
        if point is not None and expires - time.time() > ttl / 2:
            return point
        if point is None:
            taken = {p for p, (who, _) in claims.items() if who != annotator}
            try:
                point, _ = engine.next_query(exclude=log.skipped | taken)
            except NoCandidatesError:
                return None
        if store.claim(project, point, annotator, ttl):
            return point
    return None


__all__ = ["CLAIM_ATTEMPTS", "claimed_point"]
