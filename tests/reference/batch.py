"""A greedy batch of queries by hand: deep copies taught the believed label, one query at a time."""

from __future__ import annotations

import copy

import numpy as np

from rlscore.query import NoCandidatesError


def brute_force(q, k: int, exclude=()) -> list[tuple[int, float]]:
    """Greedy batch by hand: query a deep copy, teach it the believed label, repeat."""
    c = copy.deepcopy(q)
    out: list[tuple[int, float]] = []
    for _ in range(k):
        try:
            i, s = c.next_query(exclude)
        except NoCandidatesError:
            break
        out.append((i, s))
        c.teach(i, c.classes_[int(np.argmax(c.predict_proba()[i]))].item())
    return out
