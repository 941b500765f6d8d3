"""The last few results of a deterministic feature builder, kept by a digest of its inputs.

The Data page builds its preview again on every widget change (a name typed, a class
renamed), while the features depend only on the cells and the feature settings: text features
are seeded, pixel features are a function of the files. Keeping the last results makes those
runs cost a digest of the inputs instead of a rebuild (seconds for thousands of texts or
images). Each result is handed out as a copy, so a caller changing it in place changes
nothing kept.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Generic, TypeVar

T = TypeVar("T")


def input_digest(parts: Iterable[str]) -> str:
    """A digest of ``parts`` in order; each part is length-prefixed, so ``["ab", "c"]`` and
    ``["a", "bc"]`` differ."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


class RecentResults(Generic[T]):
    """The ``size`` most recently used results, by key (safe to share between threads: the
    app builds previews in several sessions' threads).

    Parameters
    ----------
    size : int
        How many results to keep (0 keeps none).
    """

    def __init__(self, size: int):
        self.size = int(size)
        self._kept: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> T | None:
        """A copy of the result kept under ``key``, or None."""
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
        return None if kept is None else copy.deepcopy(kept)

    def put(self, key: str, result: T) -> None:
        """Keep a copy of ``result`` under ``key``, forgetting the least recently used."""
        kept = copy.deepcopy(result)
        with self._lock:
            self._kept[key] = kept
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)


__all__ = ["RecentResults", "input_digest"]
