"""Inter-annotator agreement: Cohen's κ, Fleiss' κ and Krippendorff's α for nominal labels.

Ratings are an **items × raters** table (a 2-D list or object array): entry ``[i, r]`` is
rater ``r``'s label of item ``i``, any hashable value, or ``None`` (or a float NaN) when
``r`` did not rate ``i``. Labels are compared with ``==`` after hashing, so ``1`` and ``"1"``
are different classes.

Only items with **two or more ratings** carry information on agreement; the others are left
out. A coefficient is *undefined* (``nan``, not an exception) when no item has two ratings,
or when all the ratings that remain are of one class: then the agreement expected by chance
is 1 and every formula below is 0 / 0. :func:`undefined_reason` says which, so an app can
show "not enough overlap yet" instead of a number. Malformed input (not 2-D, fewer than two
raters, unhashable labels, lengths that differ) raises ``ValueError``.

References
----------
Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and
Psychological Measurement* 20(1), 37–46.

Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. *Psychological
Bulletin* 76(5), 378–382.

Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability*, 4th ed., Advanced Analytics,
ch. 2 ("Fleiss' generalized kappa" with missing ratings).

Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
Communication, University of Pennsylvania, https://repository.upenn.edu/asc_papers/43.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

#: :func:`undefined_reason`'s answers
NO_OVERLAP = "no item has two ratings yet"
ONE_CLASS = "all ratings are of one class, so chance agreement is 1"


def _is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float | np.floating) and math.isnan(value))


def _codes(ratings) -> tuple[np.ndarray, int]:
    """Validated ``ratings`` as items × raters integer class codes (``-1`` = missing), and
    the number of classes."""
    if isinstance(ratings, np.ndarray):
        if ratings.ndim != 2:
            raise ValueError(f"ratings must be 2-D (items × raters), got shape {ratings.shape}")
        rows, n_raters = ratings.tolist(), ratings.shape[1]  # (0, k): no rows, still k raters
    else:
        # a string is a label, not a row of one-letter labels
        rows = [
            list(row)
            if isinstance(row, Sequence | np.ndarray) and not isinstance(row, str | bytes)
            else row
            for row in ratings
        ]
        if any(not isinstance(row, list) for row in rows):
            raise ValueError("ratings must be 2-D (items × raters): a list of rows of labels")
        if len({len(row) for row in rows}) > 1:
            raise ValueError("ratings must be 2-D (items × raters): the rows differ in length")
        n_raters = len(rows[0]) if rows else 0
    if n_raters < 2:
        raise ValueError(f"agreement needs at least two raters (columns), got {n_raters}")
    classes: dict[Hashable, int] = {}
    codes = np.empty((len(rows), n_raters), dtype=np.intp)
    try:
        for i, row in enumerate(rows):
            codes[i] = [-1 if _is_missing(v) else classes.setdefault(v, len(classes)) for v in row]
    except TypeError as exc:
        raise ValueError(f"labels must be hashable: {exc}") from None
    return codes, len(classes)


def _pairable_counts(codes: np.ndarray, n_classes: int) -> np.ndarray:
    """Items × classes counts ``n_ik`` of the items with at least two ratings."""
    counts = np.zeros((codes.shape[0], n_classes), dtype=np.int64)
    items, raters = np.nonzero(codes >= 0)
    np.add.at(counts, (items, codes[items, raters]), 1)
    return counts[counts.sum(axis=1) >= 2]


def _ratings_counts(ratings) -> np.ndarray:
    return _pairable_counts(*_codes(ratings))


def _reason(counts: np.ndarray) -> str | None:
    if counts.shape[0] == 0:
        return NO_OVERLAP
    if np.count_nonzero(counts.sum(axis=0)) < 2:
        return ONE_CLASS
    return None


def undefined_reason(ratings) -> str | None:
    """Why the agreement of ``ratings`` is undefined (``nan``), or None when it is defined.

    One condition serves all three coefficients: :func:`fleiss_kappa` and
    :func:`krippendorff_alpha` of ``ratings`` are ``nan`` exactly when this is not None, and
    so is ``cohen_kappa(a, b)`` with ``ratings = list(zip(a, b))``.

    Returns
    -------
    str or None
        :data:`NO_OVERLAP` when no item has two ratings, :data:`ONE_CLASS` when every rating
        of the items that have two is of the same class, else None.
    """
    return _reason(_ratings_counts(ratings))


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    r"""Cohen's κ of two raters' labels of the same items (Cohen 1960).

    .. math::

        \kappa = \frac{p_o - p_e}{1 - p_e}, \qquad
        p_o = \frac{1}{n}\sum_i [a_i = b_i], \qquad
        p_e = \sum_k \frac{n_{a,k}}{n}\,\frac{n_{b,k}}{n}

    where :math:`n_{a,k}` is the number of items ``a`` put in class :math:`k`. κ is 1 for
    perfect agreement, 0 for agreement at chance level, negative below it.

    Parameters
    ----------
    a, b
        Labels (any hashable values) of item ``i`` by either rater, the same length. An item
        where either label is ``None`` (or NaN) is left out.

    Returns
    -------
    float
        κ; ``nan`` when no item is rated by both, or when both raters gave every item the
        same single class (:math:`p_e = 1`: agreement is perfect but not beyond chance).
        scikit-learn's ``cohen_kappa_score`` also gives ``nan`` there.

    Raises
    ------
    ValueError
        ``a`` and ``b`` differ in length, or a label is unhashable.
    """
    if len(a) != len(b):
        raise ValueError(f"the raters labeled different numbers of items: {len(a)} and {len(b)}")
    pairs = np.empty((len(a), 2), dtype=object)
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        pairs[i, 0], pairs[i, 1] = x, y
    codes, n_classes = _codes(pairs)
    return _cohen_of_codes(codes[:, 0], codes[:, 1], n_classes)


def _cohen_of_codes(x: np.ndarray, y: np.ndarray, n_classes: int) -> float:
    """:func:`cohen_kappa` of two columns of class codes (``-1`` = missing)."""
    both = (x >= 0) & (y >= 0)
    x, y = x[both], y[both]
    n = x.size
    n_x = np.bincount(x, minlength=n_classes)
    n_y = np.bincount(y, minlength=n_classes)
    # p_e = 1 exactly when both raters used one and the same class (undefined_reason's
    # ONE_CLASS); compared in integers, so no rounding decides it
    if n == 0 or int(n_x @ n_y) == n * n:
        return math.nan
    p_o = np.count_nonzero(x == y) / n
    p_e = float(n_x @ n_y) / n**2
    return float((p_o - p_e) / (1.0 - p_e))


def fleiss_kappa(ratings) -> float:
    r"""Fleiss' κ of any number of raters, each item rated by any number of them.

    Fleiss (1971) assumes every item has the same number :math:`m` of ratings. With
    :math:`n_i` ratings of item :math:`i`, :math:`n_{ik}` of them in class :math:`k`, over
    the :math:`N` items with :math:`n_i \ge 2`, this is the generalisation of Gwet (2014,
    ch. 2) in which **every item weighs the same**, in the chance term as in the observed
    one:

    .. math::

        \kappa = \frac{\bar P - P_e}{1 - P_e}, \qquad
        \bar P = \frac{1}{N}\sum_i \frac{\sum_k n_{ik}(n_{ik} - 1)}{n_i (n_i - 1)}, \qquad
        P_e = \sum_k \pi_k^2, \qquad \pi_k = \frac{1}{N}\sum_i \frac{n_{ik}}{n_i}.

    :math:`\bar P` is Fleiss' mean agreement of the items (the fraction of agreeing rater
    pairs of each item, averaged), :math:`\pi_k` the mean share of class :math:`k` in an
    item's ratings. With :math:`n_i = m` for all items, :math:`\pi_k = \sum_i n_{ik} / (Nm)`
    and this is Fleiss' formula exactly. Unlike Gwet, who averages :math:`\pi_k` over the
    items with one rating too, those items are left out here, as from :math:`\bar P`, so
    Fleiss' κ and Krippendorff's α describe the same items.

    Parameters
    ----------
    ratings
        Items × raters labels, ``None`` (or NaN) for a missing rating (module docstring).

    Returns
    -------
    float
        κ; ``nan`` when undefined (:func:`undefined_reason`).
    """
    counts = _ratings_counts(ratings)
    if _reason(counts) is not None:
        return math.nan
    n_i = counts.sum(axis=1)
    p_bar = np.mean((counts * (counts - 1)).sum(axis=1) / (n_i * (n_i - 1)))
    pi = (counts / n_i[:, None]).mean(axis=0)
    p_e = float(pi @ pi)
    return float((p_bar - p_e) / (1.0 - p_e))


def krippendorff_alpha(ratings) -> float:
    r"""Krippendorff's α for nominal labels, missing ratings allowed (Krippendorff 2011).

    From the coincidence matrix of the items with :math:`m_u \ge 2` ratings (the pairable
    values), each ordered pair of ratings of item :math:`u` counting :math:`1/(m_u - 1)`:

    .. math::

        o_{ck} = \sum_u \frac{n_{uc}\,(n_{uk} - [c = k])}{m_u - 1}, \qquad
        n_c = \sum_k o_{ck}, \qquad n = \sum_c n_c,

    .. math::

        \alpha = 1 - \frac{D_o}{D_e}
               = 1 - (n - 1)\,\frac{\sum_{c \ne k} o_{ck}}{\sum_{c \ne k} n_c n_k}.

    Parameters
    ----------
    ratings
        Items × raters labels, ``None`` (or NaN) for a missing rating (module docstring).

    Returns
    -------
    float
        α; ``nan`` when undefined (:func:`undefined_reason`).
    """
    counts = _ratings_counts(ratings)
    if _reason(counts) is not None:
        return math.nan
    m_u = counts.sum(axis=1)
    weighted = counts / (m_u - 1)[:, None]
    o = weighted.T @ counts - np.diag(weighted.sum(axis=0))
    n_c = o.sum(axis=1)
    n = n_c.sum()
    disagree = n - np.trace(o)
    expected = n**2 - n_c @ n_c
    return float(1.0 - (n - 1) * disagree / expected)


def pairwise_cohen(
    ratings, raters: Sequence[Hashable]
) -> dict[tuple[Hashable, Hashable], tuple[float, int]]:
    """Cohen's κ of every pair of raters on the items both rated.

    Parameters
    ----------
    ratings
        Items × raters labels, ``None`` (or NaN) for a missing rating (module docstring).
    raters
        The raters' names, one per column.

    Returns
    -------
    dict
        ``(raters[i], raters[j]) -> (κ, number of items both rated)`` for ``i < j`` in column
        order; κ is ``nan`` where undefined (:func:`cohen_kappa`).
    """
    codes, n_classes = _codes(ratings)  # once for all pairs
    if len(raters) != codes.shape[1]:
        raise ValueError(f"{len(raters)} rater names for {codes.shape[1]} columns of ratings")
    out = {}
    for i in range(len(raters)):
        for j in range(i + 1, len(raters)):
            n_both = int(np.count_nonzero((codes[:, i] >= 0) & (codes[:, j] >= 0)))
            out[raters[i], raters[j]] = (
                _cohen_of_codes(codes[:, i], codes[:, j], n_classes),
                n_both,
            )
    return out


__all__ = [
    "NO_OVERLAP",
    "ONE_CLASS",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "pairwise_cohen",
    "undefined_reason",
]
