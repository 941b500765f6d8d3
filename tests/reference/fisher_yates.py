"""The textbook forward Fisher–Yates shuffle on a full array, written independently of
rlscore.query.protocol.random_order: for i = 0 … n − 2, j = rng.integers(i, n) (one scalar call
each), swap
a[i] and a[j]. The reference the sparse, on-demand shuffle must equal."""

from __future__ import annotations

import numpy as np


def fisher_yates(rng: np.random.Generator, n: int) -> np.ndarray:
    """A permutation of ``range(n)`` (int64), the generator advanced by n − 1 scalar draws."""
    a = np.arange(n, dtype=np.int64)
    for i in range(n - 1):
        j = int(rng.integers(i, n))
        a[i], a[j] = a[j], a[i]
    return a


def first_unlabeled(order: np.ndarray, taken) -> tuple[int, int]:
    """The first element of ``order`` not in ``taken`` and its position, by a plain scan."""
    taken = {int(t) for t in taken}
    for pos, i in enumerate(order.tolist()):
        if i not in taken:
            return i, pos
    raise ValueError("every element is taken")
