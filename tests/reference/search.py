"""Brute-force references for the Label page's search (rlscore.sessions.views.search_results):
a direct scan of the texts and a full sort of all distances."""

from __future__ import annotations

import math
import re


def matching(texts: list[str], query: str, regex: bool = False) -> list[int]:
    """Indexes of the texts containing ``query`` (case ignored), by a plain scan."""
    if regex:
        return [i for i, t in enumerate(texts) if re.search(query, t, re.IGNORECASE)]
    q = query.casefold()
    return [i for i, t in enumerate(texts) if q in t.casefold()]


def nearest(rows: list[list[float]], point: int, k: int) -> list[int]:
    """The ``k`` rows nearest to row ``point`` (itself left out), by sorting every distance
    computed coordinate by coordinate; ties by index."""
    d = [
        (math.fsum((a - b) ** 2 for a, b in zip(r, rows[point], strict=True)), i)
        for i, r in enumerate(rows)
        if i != point
    ]
    return [i for _, i in sorted(d)[:k]]


def nearest_by_angle(rows: list[list[float]], point: int, k: int) -> list[int]:
    """The ``k`` rows of the smallest angle to row ``point`` (itself left out), by sorting
    every cosine computed coordinate by coordinate; ties by index."""

    def norm(r: list[float]) -> float:
        return math.sqrt(math.fsum(a * a for a in r))

    me = rows[point]
    d = [
        (-math.fsum(a * b for a, b in zip(r, me, strict=True)) / (norm(r) * norm(me)), i)
        for i, r in enumerate(rows)
        if i != point
    ]
    return [i for _, i in sorted(d)[:k]]
