"""Agreement of annotators who label points with sets: Krippendorff's α with the MASI distance
and Cohen's κ per class (docs/multilabel.md §4).

Ratings are an **items × raters** table as in :mod:`rlscore.core.evaluation.agreement`, each
entry a label set (a list, tuple or set of classes; empty for "none of these") or ``None``
when the rater did not label the item. Only items with two or more sets carry information on
agreement. A coefficient is ``nan`` when it is undefined: no item has two sets, or every set
given is the same (chance disagreement 0).

References
----------
Passonneau, R. (2006). Measuring agreement on set-valued items (MASI) for semantic and
pragmatic annotation. *Proceedings of LREC 2006*.

Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
Communication, University of Pennsylvania.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

from rlscore.core.conventions.label_sets import is_label_set
from rlscore.core.evaluation.agreement import _is_missing, _pairable_counts, cohen_kappa

__all__ = ["krippendorff_alpha_sets", "masi_distance", "per_label_kappa"]


def masi_distance(a, b) -> float:
    """The MASI distance of two label sets (Passonneau 2006): ``1 − J·M``.

    ``J = |A ∩ B| / |A ∪ B|`` is the Jaccard index and ``M`` the monotonicity: 1 for equal
    sets, 2/3 when one contains the other, 1/3 when they overlap otherwise, 0 when they are
    disjoint. Two empty sets are equal (distance 0).

    Examples
    --------
    >>> masi_distance({1, 2}, {1, 2, 3, 4})
    0.6666666666666667
    """
    A, B = frozenset(a), frozenset(b)
    if A == B:
        return 0.0
    common = len(A & B)
    if common == min(len(A), len(B)):
        monotonicity = 2 / 3
    elif common > 0:
        monotonicity = 1 / 3
    else:
        monotonicity = 0.0
    return 1 - common / len(A | B) * monotonicity


def _set_codes(ratings) -> tuple[np.ndarray, list[frozenset]]:
    """Items × raters codes of the distinct sets (``-1`` = missing), and the sets."""
    rows = [list(row) for row in ratings]
    if not rows or len({len(row) for row in rows}) > 1:
        raise ValueError("ratings must be 2-D (items × raters), with rows of one length")
    if len(rows[0]) < 2:
        raise ValueError(f"agreement needs at least two raters (columns), got {len(rows[0])}")
    index: dict[frozenset, int] = {}
    codes = np.full((len(rows), len(rows[0])), -1, dtype=np.intp)
    for i, row in enumerate(rows):
        for r, value in enumerate(row):
            if _is_missing(value):
                continue
            if not is_label_set(value):
                raise ValueError(
                    f"item {i}, rater {r}: a label set is a list of classes, got {value!r}"
                )
            codes[i, r] = index.setdefault(frozenset(value), len(index))
    return codes, list(index)


def krippendorff_alpha_sets(ratings) -> float:
    r"""Krippendorff's α of label sets with the MASI distance :math:`\delta`.

    Over the items u with :math:`m_u \ge 2` sets, :math:`n_{uc}` of them equal to set c,
    and :math:`n_c = \sum_u n_{uc}`, :math:`n = \sum_c n_c`:

    .. math::

        D_o = \frac{1}{n}\sum_u \frac{\sum_{c,k} n_{uc} n_{uk} \delta_{ck}}{m_u - 1},
        \qquad
        D_e = \frac{\sum_{c,k} n_c n_k \delta_{ck}}{n (n - 1)},
        \qquad
        \alpha = 1 - D_o / D_e.

    Returns
    -------
    float
        α; ``nan`` when no item has two sets or every set given is the same.
    """
    codes, sets = _set_codes(ratings)
    counts = _pairable_counts(codes, len(sets)).astype(np.float64)
    if counts.shape[0] == 0:
        return math.nan
    delta = np.array([[masi_distance(a, b) for b in sets] for a in sets])
    m_u = counts.sum(axis=1)
    n_c = counts.sum(axis=0)
    n = n_c.sum()
    observed = np.einsum("uc,ck,uk->u", counts, delta, counts) / (m_u - 1)
    expected = float(n_c @ delta @ n_c)
    if expected == 0.0:
        return math.nan
    return float(1.0 - (observed.sum() / n) / (expected / (n * (n - 1))))


def per_label_kappa(a: Sequence, b: Sequence, classes: Sequence[Hashable]) -> dict:
    """Cohen's κ of two annotators' yes/no decision on each class.

    Parameters
    ----------
    a, b
        The two annotators' label sets of the same items (``None`` where one did not label
        the item; such items are left out).
    classes
        The classes to compare.

    Returns
    -------
    dict
        class → κ (:func:`~rlscore.core.evaluation.agreement.cohen_kappa`; ``nan`` when both
        annotators made the same decision on every shared item).
    """
    if len(a) != len(b):
        raise ValueError(f"the raters labeled different numbers of items: {len(a)} and {len(b)}")
    out = {}
    for c in classes:
        x = [None if _is_missing(s) else c in set(s) for s in a]
        y = [None if _is_missing(s) else c in set(s) for s in b]
        out[c] = cohen_kappa(x, y)
    return out
