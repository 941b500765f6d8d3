"""Overlap: several annotators label the same points, for agreement and a majority label.

A project's *overlap* setting asks for ``k`` annotators per point, on every point or on a
random share of them (``fraction``). A point in the overlap sample that one annotator labeled
is handed to other annotators — before the learner's next query — until ``k`` different
annotators have labeled it, skipped it or a reviewer decided it. With ``k > 1`` the learner
trains on the majority of the annotators' labels (:mod:`rlscore.sessions.state.label_log`, rule
``"majority"``); the agreement measures (:mod:`rlscore.sessions.team.agreement_report`) use the
overlapping points and a reviewer settles disagreements (the Review page).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rlscore.sessions.state.label_log import LabelLog

#: most annotators a point can ask for
MAX_OVERLAP = 20
_MASK64 = (1 << 64) - 1


def _unit_hash(point: int, seed: int) -> float:
    """A uniform number in [0, 1) fixed by ``(point, seed)`` (SplitMix64's finaliser): the
    overlap sample is the same on every server, without storing it."""
    z = (int(point) * 0x9E3779B97F4A7C15 + int(seed) * 0xBF58476D1CE4E5B9 + 1) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return ((z ^ (z >> 31)) >> 11) / float(1 << 53)


@dataclass(frozen=True)
class Overlap:
    """How many annotators label each point.

    Parameters
    ----------
    k : int
        Annotators per point (1: no overlap, the latest label is final).
    fraction : float
        Share of the pool that gets ``k`` annotators, a fixed pseudo-random sample (1: all).
    seed : int
        Seed of the sample.
    """

    k: int = 1
    fraction: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int) or not 1 <= self.k:
            raise ValueError(f"overlap must be a whole number of annotators ≥ 1, got {self.k!r}")
        if self.k > MAX_OVERLAP:
            raise ValueError(f"overlap must be at most {MAX_OVERLAP} annotators, got {self.k}")
        f = self.fraction
        if isinstance(f, bool) or not isinstance(f, int | float) or not math.isfinite(f):
            raise ValueError(f"overlap_fraction must be a number in (0, 1], got {f!r}")
        if not 0 < f <= 1:
            raise ValueError(f"overlap_fraction must be in (0, 1], got {f!r}")

    @classmethod
    def of_settings(cls, settings: dict) -> Overlap:
        """The overlap a project's settings (``overlap``, ``overlap_fraction``) say."""
        return cls(settings["overlap"], settings["overlap_fraction"])

    @property
    def rule(self) -> str:
        """The final-label rule of the log: ``"majority"`` with overlap, else ``"latest"``."""
        return "majority" if self.k > 1 else "latest"

    def describe(self) -> str:
        """The rule in words, as the app shows it."""
        if self.k == 1:
            return "One annotator per point; a relabel replaces the label. A review decides."
        share = "every point" if self.fraction >= 1 else f"{self.fraction:.0%} of the points"
        return (
            f"{self.k} annotators per point on {share}; the learner uses the majority label "
            "(a tie goes to the most recent label) until a reviewer decides."
        )

    def in_sample(self, point: int) -> bool:
        """Whether ``point`` asks for ``k`` annotators."""
        return self.fraction >= 1 or _unit_hash(point, self.seed) < self.fraction

    def wanted_from(self, log: LabelLog, annotator: str) -> list[int]:
        """Points waiting for ``annotator``'s label, oldest first: labeled by fewer than ``k``
        annotators (others), in the sample, not reviewed, not skipped by ``annotator``."""
        if self.k == 1:
            return []
        wanted = [
            p
            for p, current in log.annotations.items()
            if len(current) < self.k
            and annotator not in current
            and p not in log.reviews
            and annotator not in log.skipped_by.get(p, ())
            and self.in_sample(p)
        ]
        return sorted(wanted, key=lambda p: min(e.id for e in log.annotations[p].values()))


__all__ = ["MAX_OVERLAP", "Overlap"]
