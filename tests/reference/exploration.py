"""Focused ARLS's exploratory pick, written directly from its documented rule
(``FocusedARLS.exploration``): once every class has a label, with ``l`` labels the generator
``default_rng([l, *entropy])``, ``entropy`` that of ``SeedSequence(seed)``, draws ``u``; the
query explores when ``u < explore`` and then takes ``free[g.integers(free.size)]``."""

from __future__ import annotations

import numpy as np


def exploratory_pick(
    n: int, labeled, exclude, explore: float, seed: int, all_classes: bool = True
) -> int | None:
    """The pool index the rule draws, or None when the query exploits (always, while
    ``all_classes`` is false: some class has no label yet)."""
    if not all_classes:
        return None
    entropy = np.random.SeedSequence(seed).entropy
    g = np.random.default_rng([len(labeled), entropy])
    if not g.random() < explore:
        return None
    free = [i for i in range(n) if i not in set(labeled) and i not in set(exclude)]
    return free[int(g.integers(len(free)))]
