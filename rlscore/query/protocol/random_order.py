"""A random order of ``n`` points drawn on demand: its first k elements in O(k) memory.

The order is the forward Fisher–Yates shuffle of ``0 … n − 1``: for ``i = 0, 1, …, n − 2``,
``j = rng.integers(i, n)``, swap the elements at ``i`` and ``j``; the element left at ``i``
is the order's i-th (the last one needs no draw). :class:`SparseShuffle` keeps only the
positions moved so far (a dict), so the first k elements cost O(k) memory and time whatever
``n`` is: a pool on a cluster draws the in-memory engine's random points without an n-vector on
the app server, and the in-memory engine draws by the same code, so the two give the same
points. The draws are made in batches (``rng.integers`` with an array of lower bounds draws as
the scalar calls in turn), never past the elements asked for: the generator is left where the
k scalar calls would leave it, so a caller may go on drawing from it.
"""

from __future__ import annotations

import numpy as np

#: lower bounds drawn per ``rng.integers`` call (bounds the batch's int64 arrays)
BATCH = 65_536


class SparseShuffle:
    """The uniformly random order of ``range(n)`` made by ``rng`` (module docstring).

    Parameters
    ----------
    rng : numpy.random.Generator
        Drawn from only by :meth:`take`, one ``integers(i, n)`` per element ``i < n − 1``.
    n : int
        The number of points ordered.
    """

    def __init__(self, rng: np.random.Generator, n: int) -> None:
        if n < 0:
            raise ValueError(f"n must be at least 0, got {n}")
        self._rng, self.n = rng, int(n)
        self._moved: dict[int, int] = {}  # position → element, for positions ≥ len(self)
        self._chunks: list[np.ndarray] = []
        self._drawn = 0

    def __len__(self) -> int:
        """Elements drawn so far."""
        return self._drawn

    def take(self, k: int) -> np.ndarray:
        """The order's first ``min(k, n)`` elements (int64), drawing those not drawn yet."""
        target = min(max(int(k), 0), self.n)
        while self._drawn < target:
            self._draw(min(target, self._drawn + BATCH))
        if len(self._chunks) > 1:
            self._chunks = [np.concatenate(self._chunks)]
        prefix = self._chunks[0] if self._chunks else np.empty(0, dtype=np.int64)
        return prefix[:target]

    def _draw(self, stop: int) -> None:
        """Elements ``len(self) … stop − 1``."""
        start, n = self._drawn, self.n
        last = min(stop, n - 1)  # position n − 1 takes what is left, without a draw
        swaps = self._rng.integers(np.arange(start, last), n).tolist() if last > start else []
        if stop == n:
            swaps.append(n - 1)
        moved = self._moved
        get, pop = moved.get, moved.pop
        out = []
        for i, j in enumerate(swaps, start):
            out.append(get(j, j))
            if j != i:
                moved[j] = get(i, i)
            pop(i, None)
        self._chunks.append(np.asarray(out, dtype=np.int64))
        self._drawn = stop


def shuffled(rng: np.random.Generator, n: int) -> np.ndarray:
    """The whole order of :class:`SparseShuffle`: a permutation of ``range(n)``, int32 when
    ``n < 2³¹`` (half the memory of int64)."""
    order = SparseShuffle(rng, n).take(n)
    return order.astype(np.int32) if n < 2**31 else order


def first_outside(order: SparseShuffle, out: np.ndarray) -> tuple[int, int]:
    """The first element of ``order`` not in ``out`` (distinct) and its position in the
    order: it is among the first ``len(out) + 1``, so only those are drawn."""
    prefix = order.take(out.size + 1)
    inside = np.isin(prefix, out)
    if inside.all():
        raise ValueError("every element of the order is in out")
    pos = int(np.argmin(inside))
    return int(prefix[pos]), pos


__all__ = ["BATCH", "SparseShuffle", "first_outside", "shuffled"]
