"""The state of a search on the Label page: the points a query finds, with their labels.

Cold start for rare classes (issue 22, item 4): an annotator finds seeds by text search or by
"more like this" (:mod:`rlscore.data.items.search`) and labels the results in place. This module
holds what a result list shows, computed once from the session: the points found, at most
:data:`MAX_RESULTS`, and each one's current label (hidden for a point the annotator must
label blind, as in the query panel, :mod:`rlscore.sessions.views.label_page`). No Streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlscore.data.items.search import SearchError, more_like_this, search_texts
from rlscore.sessions.actions.session import LabelingSession

#: results shown per search
MAX_RESULTS = 20


@dataclass(frozen=True)
class SearchResults:
    """One result list as drawn.

    Attributes
    ----------
    query
        What was searched, in words (for the header).
    points
        Pool indexes found, in the order shown.
    labels
        Each point's current label, None when unlabeled or shown blind.
    seen
        The log version the list was built from (its buttons are bound to it).
    """

    query: str
    points: tuple[int, ...]
    labels: tuple
    seen: int

    @property
    def empty(self) -> bool:
        """Nothing found."""
        return not self.points


def _blind(session: LabelingSession, annotator: str) -> set[int]:
    return set(session.overlap_queue(annotator)) if session.overlap.k > 1 else set()


def _results(
    session: LabelingSession, annotator: str, query: str, points: np.ndarray
) -> SearchResults:
    labels = session.labels
    blind = _blind(session, annotator)
    pts = tuple(int(i) for i in points[:MAX_RESULTS])
    return SearchResults(
        query=query,
        points=pts,
        labels=tuple(None if i in blind else labels.get(i) for i in pts),
        seen=int(session.last_event_id),
    )


def text_search(
    session: LabelingSession,
    annotator: str,
    query: str,
    *,
    regex: bool = False,
    case_sensitive: bool = False,
    limit: int = MAX_RESULTS,
) -> SearchResults:
    """The first ``limit`` points (by index) whose text contains ``query``.

    Raises
    ------
    SearchError
        The project has no texts, or the query is empty, too long or a bad regular expression.
    """
    texts = session.project.texts
    if texts is None:
        raise SearchError("this project has no text columns to search")
    found = search_texts(texts, query, regex=regex, case_sensitive=case_sensitive, limit=limit)
    kind = "regular expression" if regex else "text"
    return _results(session, annotator, f"{kind} {query!r}", found)


def similar_points(
    session: LabelingSession, annotator: str, point: int, limit: int = MAX_RESULTS
) -> SearchResults:
    """The ``limit`` points nearest to ``point`` in feature space, nearest first: by the cosine
    of the text features in a text project, else by Euclidean distance
    (:func:`~rlscore.data.items.search.more_like_this`)."""
    metric = "euclidean" if session.project.texts is None else "cosine"
    found = more_like_this(session.project.X, int(point), limit, metric=metric)
    return _results(session, annotator, f"more like point #{int(point)}", found)


__all__ = ["MAX_RESULTS", "SearchResults", "SearchError", "similar_points", "text_search"]
