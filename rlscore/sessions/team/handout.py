"""How a session hands out points: the next query, to whom, and since when it is shown.

Without an annotator the proposal is the engine's next query, cached until the state
changes. With one, the point is claimed for them in the store
(:func:`~rlscore.sessions.team.claims.claimed_point`: their own claim first, then under overlap
the points waiting for their label, then the greedy batch pick), so annotators in any tab on
any server are shown different points. :class:`Handout` also keeps when the point it
proposed was first shown, so that a label records the time spent on it.
"""

from __future__ import annotations

import time
import zlib

import numpy as np

from rlscore.query import NoCandidatesError
from rlscore.sessions.state.replay import Replay
from rlscore.sessions.stopping.accuracy_estimate import (
    audit_due,
)
from rlscore.sessions.team.claims import CLAIM_ATTEMPTS, ClaimContention, claimed_point
from rlscore.sessions.team.overlap import Overlap
from rlscore.storage import StaleActionError

#: seconds a proposed point stays reserved for the annotator it was shown to; every call of
#: ``query(annotator=…)`` (each page view) renews it
CLAIM_SECONDS = 600.0
#: first word of the seed of the random checks' generator (the others: project, log, annotator)
AUDIT_SEED = 24


class Handout:
    """The points a session proposes: the engine's query, or one claimed for an annotator.

    Not thread-safe on its own: :class:`~rlscore.sessions.actions.session.LabelingSession` calls it
    under its lock.

    Parameters
    ----------
    replay
        The session's state, kept in step with the project's log.
    claim_seconds
        How long a point proposed to an annotator stays reserved for them.
    overlap
        Annotators per point; change it with :meth:`set_overlap`.
    audit_every
        Every k-th query to an annotator is a random check (0: none; module docstring).
    """

    def __init__(
        self,
        replay: Replay,
        claim_seconds: float = CLAIM_SECONDS,
        overlap: Overlap | None = None,
        audit_every: int = 0,
    ) -> None:
        self._replay = replay
        self.claim_seconds = float(claim_seconds)
        self.overlap = Overlap() if overlap is None else overlap
        self.audit_every = check_audit_every(audit_every)
        self._audits: dict[int, str] = {}  # random checks proposed, not labeled yet -> to whom
        self._cache: tuple[int, tuple[int, float] | None] | None = None  # (version, query)
        self._shown: tuple[int, float] | None = None  # (point, monotonic time first proposed)

    def propose(self, annotator: str | None = None) -> tuple[int, float] | None:
        """The point to show and its score (lower is better); None when none is left.

        Without ``annotator``: the engine's next query, skipped points excluded, cached
        until the state changes. With one: the point claimed for them for
        :attr:`claim_seconds` (see the module's docstring).
        """
        if annotator is not None:
            return self._claimed(annotator)
        if self._cache is None or self._cache[0] != self._replay.version:
            state = self._replay.state
            try:
                q = state.engine.next_query(exclude=state.log.skipped)
            except NoCandidatesError:
                q = None
            if q is not None and self._is_uniform_draw(q[0]):
                self._audits[q[0]] = None  # a random check for whoever labels it
            self._cache = (self._replay.version, q)
        q = self._cache[1]
        if q is not None:
            self._mark_shown(q[0])
        return q

    def _claimed(self, annotator: str) -> tuple[int, float] | None:
        for _ in range(CLAIM_ATTEMPTS):
            state = self._replay.state
            audit = self._audit_draw(annotator)
            try:
                claimed = claimed_point(
                    self._replay.store,
                    self._replay.project_name,
                    state.engine,
                    state.log,
                    annotator,
                    self.claim_seconds,
                    self.overlap,
                    audit,
                )
            except ClaimContention:
                # teammates took every candidate while we chose: choose again on the newer log
                self._replay.sync()
                continue
            if claimed is None:
                return None
            point = claimed.point
            if claimed.audit:
                self._audits[point] = annotator
            self._mark_shown(point)
            return point, state.engine.score_at(point)
        # every sync brings the log closer to the database, so this means dozens of labels
        # landed during one query: not "nothing left", say so
        raise RuntimeError(
            "the project changed faster than a point could be handed out (teammates labeling "
            "very fast): ask for the next point again"
        )

    def _audit_draw(self, annotator: str) -> tuple[int, np.random.Generator] | None:
        """The pool size and the seeded generator of a random check when the next query is
        one, else None."""
        log = self._replay.state.log
        if not audit_due(len(log.labels) + 1, self.audit_every):
            return None
        project = self._replay.project
        seed = [AUDIT_SEED, int(project.uid or 0), int(log.last_id or 0)]
        seed.append(zlib.crc32(annotator.encode("utf-8")))
        return project.n, np.random.default_rng(seed)

    def is_audit(self, point: int, annotator: str | None = None) -> bool:
        """Whether ``point`` was proposed as a random check (to ``annotator``, when given:
        a check whose claim expired and that the strategy then handed to someone else is not
        one for them) and is not labeled yet — a label of it now is marked so in the log for
        the accuracy estimate. A check is one of the hand-out's own (``audit_every``) or the
        engine's uniform draw in the state it was proposed from (focused ARLS's exploration
        share, a random order:
        :meth:`~rlscore.query.protocol.strategy.QueryStrategy.uniform_draw`); a point the
        annotator picked themselves is never one, even when it is the point the engine would
        draw."""
        if point in self._replay.state.log.labels or point not in self._audits:
            return False
        holder = self._audits[point]
        return annotator is None or holder is None or holder == annotator

    def _is_uniform_draw(self, point: int) -> bool:
        state = self._replay.state
        if point in state.log.labels:
            return False
        draw = getattr(state.engine, "uniform_draw", None)
        try:
            return draw is not None and draw(state.log.skipped) == point
        except NoCandidatesError:  # only skipped points left
            return False

    def labeled(self, point: int) -> None:
        """Forget ``point`` as a random check (its label was written)."""
        self._audits.pop(point, None)

    def _mark_shown(self, point: int) -> None:
        if self._shown is None or self._shown[0] != point:
            self._shown = (point, time.monotonic())

    def seconds_shown(self, point: int) -> float | None:
        """Seconds since ``point`` was first proposed (to the millisecond); None unless it is
        the point proposed last."""
        if self._shown is None or self._shown[0] != point:
            return None
        return round(time.monotonic() - self._shown[1], 3)

    def waiting_for(self, annotator: str) -> list[int]:
        """Labeled points waiting for ``annotator``'s own label under the overlap setting,
        oldest first (:meth:`~rlscore.sessions.team.overlap.Overlap.wanted_from`)."""
        return self.overlap.wanted_from(self._replay.state.log, annotator)

    def check_skippable(self, point: int, annotator: str, seen: int | None = None) -> None:
        """Refuse to let ``annotator`` skip a labeled ``point``, unless it waits for their
        own label under overlap (then it is not proposed to them again).

        Raises
        ------
        StaleActionError
            The point was labeled after ``seen`` (the annotator was shown it unlabeled).
        ValueError
            The point is labeled: undo or relabel it instead.
        """
        log = self._replay.state.log
        if point not in log.labels or point in self.waiting_for(annotator):
            return
        if seen is not None and log.label_events[point].id > seen:
            raise StaleActionError(point, [log.label_events[point]])
        raise ValueError(
            f"point {point} is labeled ({log.labels[point]!r}): undo or relabel it instead of "
            "skipping"
        )

    def show_again(self, point: int, annotator: str, check: bool = False) -> None:
        """Claim ``point`` for ``annotator`` if it is open (they undid their action on it to
        look at it again: it is their next query); ``check``: the undone label was a random
        check, and so is their label of it again (the draw stands; only the label changed)."""
        log = self._replay.state.log
        if point not in log.labels and point not in log.skipped:
            self._replay.store.claim(
                self._replay.project_name, point, annotator, self.claim_seconds
            )
            if check:
                self._audits[point] = annotator

    def release(self, annotator: str) -> None:
        """Give back the points proposed to ``annotator``."""
        self._replay.store.release_claims(self._replay.project_name, annotator)

    def set_overlap(self, overlap: Overlap) -> None:
        """Change the overlap setting, and with it the log's final-label rule."""
        self.overlap = overlap
        self._replay.update_rule(overlap.rule)


def check_audit_every(every) -> int:
    """``every`` as the random checks' period: a whole number ≥ 0 (0: no random checks)."""
    if isinstance(every, bool) or not isinstance(every, int | np.integer) or every < 0:
        raise ValueError(f"audit_every must be a whole number ≥ 0 (0: none), got {every!r}")
    return int(every)


__all__ = ["AUDIT_SEED", "CLAIM_SECONDS", "Handout", "check_audit_every"]
