"""Which pool points a pool figure draws: every labeled and skipped point, the query and the
selected point, and at most a quota of the unlabeled ones.

The JSON of every drawn point is downloaded on every rerun, so above :data:`MAX_POINTS`
unlabeled points a random sample of them is drawn. Each point gets a fixed random priority and
the sample is the unlabeled points of highest priority, so a new label changes the sample by at
most one point instead of redrawing it. Over a density layer
(:mod:`~rlscore.viz.figures.density_layer`) the quota is smaller, :data:`DENSITY_SAMPLE`: the
layer shows where the pool is, the points on top are there to click and to show the predictions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

#: at most this many unlabeled points are sent to the browser
MAX_POINTS = 20_000
#: unlabeled points drawn over the density layer: enough to click and to show the predictions,
#: few enough that the shading stays visible between them
DENSITY_SAMPLE = 5_000


@dataclass(frozen=True)
class PoolMembers:
    """The pool's points by what they are, and which unlabeled ones are drawn.

    Attributes
    ----------
    labeled : ndarray of int
        The labeled points, in the order of the ``labels`` mapping.
    is_labeled, is_skipped : ndarray of bool, shape (n,)
        Masks; a labeled point is not skipped.
    unlabeled : ndarray of bool, shape (n,)
        The unlabeled (neither labeled nor skipped) points drawn: all of them until
        :meth:`sampled`.
    """

    labeled: np.ndarray
    is_labeled: np.ndarray
    is_skipped: np.ndarray
    unlabeled: np.ndarray

    @classmethod
    def split(cls, n: int, labels: Mapping[int, object], skipped: Sequence[int]) -> PoolMembers:
        """The ``n`` pool points split into labeled (the keys of ``labels``), skipped and
        unlabeled ones."""
        labeled = np.fromiter(labels.keys(), dtype=int, count=len(labels))
        is_labeled = np.zeros(n, dtype=bool)
        is_labeled[labeled] = True
        is_skipped = np.zeros(n, dtype=bool)
        is_skipped[np.asarray(list(skipped), dtype=int)] = True
        is_skipped &= ~is_labeled
        return cls(labeled, is_labeled, is_skipped, ~is_labeled & ~is_skipped)

    @property
    def n(self) -> int:
        """The pool's size."""
        return self.is_labeled.size

    @property
    def unlabeled_total(self) -> int:
        """The unlabeled points, drawn or not."""
        return int(self.n - self.is_labeled.sum() - self.is_skipped.sum())

    @property
    def drawn(self) -> int:
        """The points drawn: every labeled and skipped one and the unlabeled ones kept."""
        return int(self.unlabeled.sum() + self.is_labeled.sum() + self.is_skipped.sum())

    def sampled(self, quota: int | None, keep: Sequence[int | None], seed: int) -> PoolMembers:
        """These members with at most ``quota`` unlabeled points drawn (None: all), always with
        those of ``keep`` (the query, the selected point); see :func:`sample_mask`."""
        return replace(
            self, unlabeled=self.unlabeled & sample_mask(self.unlabeled, keep, quota, seed)
        )

    def meta(self, density_points: int | None) -> dict:
        """What the figure says of its sampling (its ``layout.meta``): ``points_total``,
        ``points_drawn``, ``unlabeled_total``, ``unlabeled_drawn`` and ``density_points`` (the
        points a density layer counts, None without one)."""
        return dict(
            points_total=self.n,
            points_drawn=self.drawn,
            unlabeled_total=self.unlabeled_total,
            unlabeled_drawn=int(self.unlabeled.sum()),
            density_points=density_points,
        )


def check_density_sample(density_sample: int) -> None:
    """``ValueError`` unless ``density_sample`` is a non-negative integer (not a bool)."""
    if isinstance(density_sample, bool) or not isinstance(density_sample, int | np.integer):
        raise ValueError(f"density_sample must be an integer, got {density_sample!r}")
    if density_sample < 0:
        raise ValueError(f"density_sample must be non-negative, got {density_sample}")


def drawn_quota(max_points: int | None, density_sample: int, shaded: bool) -> int | None:
    """The unlabeled points drawn at most: ``max_points`` (None: all), and over a density
    layer (``shaded``) also at most ``density_sample``."""
    if not shaded:
        return max_points
    return density_sample if max_points is None else min(max_points, density_sample)


def sample_mask(
    candidates: np.ndarray, keep: Sequence[int | None], max_points: int | None, seed: int
) -> np.ndarray:
    """Mask of at most ``max_points`` of the ``candidates`` (a mask), always with ``keep``.

    The points of highest fixed random priority win, so the sample of a pool changes little
    when a point leaves the candidates (is labeled).

    Parameters
    ----------
    candidates : ndarray of bool, shape (n,)
    keep : sequence of int or None
        Points kept whenever they are candidates (None entries are ignored).
    max_points : int or None
        None: every candidate.
    seed : int
        Seed of the priorities.

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    if max_points is not None and max_points < 0:
        raise ValueError(f"max_points must be non-negative, got {max_points}")
    if max_points is None or int(candidates.sum()) <= max_points:
        return candidates.copy()
    chosen = np.zeros_like(candidates)
    forced = [i for i in dict.fromkeys(keep) if i is not None and candidates[i]]
    chosen[forced] = True
    rest = candidates & ~chosen
    quota = max(max_points - len(forced), 0)
    order = priority_order(len(candidates), seed)
    chosen[order[rest[order]][:quota]] = True
    return chosen


@lru_cache(maxsize=4)
def priority_order(n: int, seed: int) -> np.ndarray:
    """The ``n`` pool points by their fixed random priority (seeded by ``seed``), the one
    :func:`sample_mask` takes: the sample is the first candidates in this order.

    Sorted once per pool size and seed (a read-only array, kept for the process's life):
    a large pool's sample is drawn on every rerun of its plot, and ordering a million
    priorities costs far more than taking the first candidates of the order.
    """
    order = np.argsort(np.random.default_rng(seed).random(n), kind="stable")
    order.flags.writeable = False
    return order


__all__ = [
    "DENSITY_SAMPLE",
    "MAX_POINTS",
    "PoolMembers",
    "check_density_sample",
    "drawn_quota",
    "priority_order",
    "sample_mask",
]
