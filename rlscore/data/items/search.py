"""Finding items to label: text search and "more like this" (cold start for rare classes).

On a fresh project the learner knows nothing and a rare class may be 1 % of the pool; an
annotator who knows what the rare items say can find seeds by searching. :func:`search_texts`
matches a plain substring or a regular expression against the items' texts;
:func:`more_like_this` returns the points nearest to a chosen one in feature space: by
Euclidean distance (the geometry the RBF kernel sees) or, for texts, by the cosine of their
text features (latent semantic analysis: the angle, not the length, says what a text is
about; on four labeled text tasks it ranked more same-class items in the top 20 than the
Euclidean distance and than the cosine in the full TF-IDF space, docs/benchmarks/text.md).
Both are pure functions of their inputs; the UI labels the results in place.
"""

from __future__ import annotations

import re

import numpy as np

#: a pattern longer than this is refused (a search box, not a program)
MAX_PATTERN_CHARS = 500


class SearchError(ValueError):
    """A search cannot run; the message says what to fix (e.g. a bad regular expression)."""


def compile_query(query: str, *, regex: bool = False, case_sensitive: bool = False) -> re.Pattern:
    """The pattern a search box's text stands for.

    Parameters
    ----------
    query
        Plain text (matched literally) or, with ``regex``, a Python regular expression.
    regex
        Read ``query`` as a regular expression.
    case_sensitive
        Match case exactly (default: ignore case).

    Raises
    ------
    SearchError
        Empty query, a query longer than :data:`MAX_PATTERN_CHARS`, or a regular expression
        that does not compile (with the position of the error).
    """
    if not isinstance(query, str) or not query:
        raise SearchError("type something to search for")
    if len(query) > MAX_PATTERN_CHARS:
        raise SearchError(f"the search is longer than {MAX_PATTERN_CHARS} characters: shorten it")
    flags = 0 if case_sensitive else re.IGNORECASE
    try:
        return re.compile(query if regex else re.escape(query), flags)
    except re.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        raise SearchError(
            f"not a valid regular expression: {exc.msg}{where}; untick 'regular expression' "
            "to search for the text as typed"
        ) from None


def search_texts(
    texts: list[str],
    query: str,
    *,
    regex: bool = False,
    case_sensitive: bool = False,
    candidates: np.ndarray | None = None,
    limit: int | None = None,
) -> np.ndarray:
    """Indexes of the texts that contain ``query`` (see :func:`compile_query`), ascending.

    Parameters
    ----------
    texts
        One text per point (e.g. ``Project.texts``).
    candidates
        Search only these point indexes (e.g. the unlabeled ones); default all.
    limit
        Return at most this many matches (the first ones).
    """
    pattern = compile_query(query, regex=regex, case_sensitive=case_sensitive)
    pool = np.arange(len(texts)) if candidates is None else np.sort(np.asarray(candidates, int))
    found = []
    for i in pool.tolist():
        if pattern.search(texts[i]) is not None:
            found.append(i)
            if limit is not None and len(found) >= limit:
                break
    return np.asarray(found, dtype=np.int64)


#: how :func:`more_like_this` measures nearness
METRICS = ("euclidean", "cosine")


def more_like_this(
    X: np.ndarray,
    point: int,
    k: int = 10,
    *,
    candidates: np.ndarray | None = None,
    metric: str = "euclidean",
) -> np.ndarray:
    """The ``k`` points nearest to ``point`` in feature space, nearest first (the point itself
    left out; ties broken by the lower index).

    Parameters
    ----------
    X : ndarray (n, d)
        The project's features.
    point
        The chosen item.
    k
        How many neighbours.
    candidates
        Consider only these point indexes (e.g. the unlabeled ones); default all.
    metric
        ``"euclidean"`` (distance) or ``"cosine"`` (the angle between feature vectors; a
        point whose features are all zero is farthest from every other).

    Returns
    -------
    ndarray of int
        Point indexes.
    """
    if metric not in METRICS:
        raise SearchError(f"metric must be one of {METRICS}, got {metric!r}")
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if not 0 <= int(point) < n:
        raise SearchError(f"point {point} is not in the pool of {n} points")
    pool = np.arange(n) if candidates is None else np.unique(np.asarray(candidates, int))
    pool = pool[pool != point]
    if pool.size == 0 or k < 1:
        return np.zeros(0, dtype=np.int64)
    if metric == "cosine":
        norms = np.linalg.norm(X[pool], axis=1) * np.linalg.norm(X[point])
        dots = X[pool] @ X[point]
        # 1 - cosine; a zero vector has no direction: ranked last
        far = np.where(norms > 0, 1.0 - dots / np.where(norms > 0, norms, 1.0), np.inf)
    else:
        # one row of the distance matrix, from the differences (no cancellation): O(n d)
        diff = X[pool] - X[point]
        far = np.einsum("ij,ij->i", diff, diff)
    order = np.lexsort((pool, far))[: int(k)]
    return pool[order].astype(np.int64)


__all__ = [
    "MAX_PATTERN_CHARS",
    "METRICS",
    "SearchError",
    "compile_query",
    "more_like_this",
    "search_texts",
]
