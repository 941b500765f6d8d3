"""A map of the items: 2-D coordinates of the pool and a short, escaped hover text per point.

The pool plot of a text or image project cannot show its features (hundreds of dimensions);
it shows a map instead: the features projected on their two leading principal components
(scikit-learn's :class:`~sklearn.decomposition.PCA`: the 2-D view that keeps the most
variance, deterministic up to the sign of each axis, which is fixed here so the map does not
flip between runs). Each point's hover text is a short snippet of its text (or its image's
file name, or its id), escaped so that a plotting library never reads it as HTML.
"""

from __future__ import annotations

import html
import re
from pathlib import PurePosixPath
from urllib.parse import urlsplit

import numpy as np

from rlscore.core.conventions.user_names import without_bidi_controls
from rlscore.data.features.image_urls import is_url
from rlscore.data.items.columns import ItemColumn

#: characters of text shown in a hover
SNIPPET_CHARS = 80
_SPACE = re.compile(r"\s+")


def map_coordinates(X: np.ndarray, seed: int = 0) -> np.ndarray:
    """(n, 2) coordinates of the points: their first two principal components.

    A pool with one or two features is returned as it is (padded with zeros to 2 columns).
    Each axis's sign is chosen so that its largest-magnitude coordinate is positive.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.shape[1] <= 2:
        return np.column_stack([X, np.zeros((X.shape[0], 2 - X.shape[1]))])
    # imported here: the Label page imports this module for snippets; only items need a map
    from sklearn.decomposition import PCA

    solver = "full" if X.shape[0] * X.shape[1] <= 4_000_000 else "randomized"
    Z = PCA(n_components=2, svd_solver=solver, random_state=seed).fit_transform(X)
    flip = np.sign(Z[np.argmax(np.abs(Z), axis=0), [0, 1]])
    flip[flip == 0] = 1.0
    return Z * flip


def snippet(text: str, chars: int = SNIPPET_CHARS) -> str:
    """``text`` on one line, cut to ``chars`` characters (with "…"), HTML-escaped, without
    bidirectional controls (an item's U+202E reversed the hover's own "· p=0.55" after it)."""
    one_line = _SPACE.sub(" ", without_bidi_controls(str(text))).strip()
    if len(one_line) > chars:
        one_line = one_line[: chars - 1].rstrip() + "…"
    return html.escape(one_line, quote=True)


def hover_texts(items: list[ItemColumn], ids: list[str], chars: int = SNIPPET_CHARS) -> list[str]:
    """One escaped hover text per point: the first text column's snippet, else the image's
    file name, else the point's id."""
    text = next((c for c in items if c.kind == "text"), None)
    if text is not None:
        return [snippet(t, chars) for t in text.values]
    image = next((c for c in items if c.kind == "image"), None)
    if image is not None:
        return [snippet(image_name(p), chars) for p in image.values]
    return [snippet(i, chars) for i in ids]


def image_name(value: object) -> str:
    """An image cell's file name, as a hover may show it: a URL's user, password, query and
    fragment (where tokens travel) are left out."""
    text = str(value)
    if is_url(text):
        try:
            text = urlsplit(text.strip()).path
        except ValueError:
            return ""
    return PurePosixPath(text.replace("\\", "/")).name


__all__ = ["SNIPPET_CHARS", "hover_texts", "image_name", "map_coordinates", "snippet"]
