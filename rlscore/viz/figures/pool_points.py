"""The pool's points as plotly traces, and the way back from a clicked point to its index.

Every drawn point carries its pool index as ``customdata``, so a click on any trace of the pool
scatter maps back to the point (:func:`clicked_index`). User strings reach the hover label only
as data (the trace's name, the point's text), never inside the template.

A trace is a plain dict in plotly's figure schema (``type`` and the properties): the figure
that holds them validates them once (:func:`~rlscore.viz.figures.pool_figure.pool_figure`), not
once per trace object and again when it is added. Per-point texts are numpy string arrays, which
plotly's validation takes whole instead of element by element (the same JSON as a list).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rlscore.viz.figures.precision import axis_decimals, compact

#: pools larger than this draw their points with WebGL (see :class:`PointTraces`)
WEBGL_MIN_POINTS = 1000
# one template for every pool trace: user strings reach the hover label only as data
_HOVER = "#%{customdata}<extra>%{fullData.name}</extra>"
_HOVER_TEXT = "#%{customdata} %{text}<extra>%{fullData.name}</extra>"


@dataclass(frozen=True)
class PointTraces:
    """Draws groups of pool points as marker traces, all in one way.

    Attributes
    ----------
    xy : ndarray of shape (n, 2)
        Plot coordinates of the whole pool.
    decimals : (int or None, int or None)
        Decimals kept of each axis (:func:`~rlscore.viz.figures.precision.axis_decimals`).
    webgl : bool
        ``scattergl`` instead of ``scatter``: every trace of a figure the same, since plotly
        draws WebGL above SVG and would hide an SVG mark (the query) under WebGL points.
    hover : sequence of str or None
        One hover text per pool point (e.g. an item's snippet,
        :func:`rlscore.data.items.item_map.hover_texts`), already HTML-escaped: plotly reads
        hover text as HTML.
    """

    xy: np.ndarray
    decimals: tuple[int | None, int | None]
    webgl: bool
    hover: Sequence[str] | None

    @classmethod
    def of_pool(
        cls,
        xy: np.ndarray,
        webgl: bool | None = None,
        hover: Sequence[str] | None = None,
        *,
        drawn: int,
    ) -> PointTraces:
        """The traces of the pool at ``xy``, each axis rounded to its own extent's precision.

        Parameters
        ----------
        xy : ndarray of shape (n, 2)
        webgl : bool, optional
            Default: when more than :data:`WEBGL_MIN_POINTS` points are drawn, where SVG
            markers make the browser slow.
        hover : sequence of str, optional
        drawn : int
            The points the figure draws.

        Returns
        -------
        PointTraces
        """
        decimals = (axis_decimals(xy[:, 0]), axis_decimals(xy[:, 1]))
        return cls(xy, decimals, drawn > WEBGL_MIN_POINTS if webgl is None else webgl, hover)

    def texts(self, members: np.ndarray, extra: Sequence[str] | None) -> np.ndarray | None:
        """The hover texts of ``members`` as a numpy string array: the pool's text of each,
        then ``extra`` (e.g. its confidence) after a dot; None when there is neither."""
        if self.hover is None:
            return None if extra is None else np.array(list(extra), dtype=str)
        texts = [self.hover[m] for m in members]
        if extra is not None:
            texts = [f"{t} · {e}" for t, e in zip(texts, extra, strict=True)]
        return np.array(texts, dtype=str)

    def trace(
        self,
        members: Sequence[int] | np.ndarray,
        color: str,
        size: float,
        name: str,
        opacity: float | np.ndarray = 1.0,
        extra: Sequence[str] | None = None,
        *,
        symbol: str = "circle",
        line: float = 0,
    ) -> dict:
        """One trace of the pool points ``members``, as plotly's figure schema has it.

        Parameters
        ----------
        members : sequence of int
            Pool indices (their ``customdata``).
        color : str
        size : float
        name : str
            The legend entry, already plain text
            (:func:`~rlscore.viz.figures.user_text.plain_text`).
        opacity : float or ndarray
            One for the trace or one per member.
        extra : sequence of str, optional
            One more hover text per member (see :meth:`texts`).
        symbol : str
        line : float
            Width of the marker's black outline (an open symbol draws it in ``color``).

        Returns
        -------
        dict
            A ``scatter`` or ``scattergl`` trace (``type`` and its properties).
        """
        members = np.asarray(members, dtype=int)
        if isinstance(opacity, np.ndarray):
            opacity = compact(opacity, 2)  # 1/100 of full opacity is below what the eye sees
        texts = self.texts(members, extra)
        trace = dict(
            type="scattergl" if self.webgl else "scatter",
            x=compact(self.xy[members, 0], self.decimals[0]),
            y=compact(self.xy[members, 1], self.decimals[1]),
            mode="markers",
            name=name,
            customdata=members,
            hovertemplate=_HOVER if texts is None else _HOVER_TEXT,
            marker=dict(
                color=color,
                size=size,
                symbol=symbol,
                opacity=opacity,
                line=dict(width=line, color="black"),
            ),
        )
        if texts is not None:
            trace["text"] = texts
        return trace


def clicked_index(point: Mapping) -> int | None:
    """Pool index of a clicked/selected point of a pool figure (None if not a pool point).

    Parameters
    ----------
    point : mapping
        A point dict of a plotly event as Streamlit reports it; ``customdata`` may arrive as a
        number or wrapped in a list.

    Returns
    -------
    int or None
        None for what is not a pool point (e.g. a contour line, which has no ``customdata``).
    """
    cd = point.get("customdata")
    if isinstance(cd, list | tuple):
        cd = cd[0] if cd else None
    if cd is None or isinstance(cd, bool):
        return None
    try:
        return int(cd)
    except (TypeError, ValueError):
        return None


__all__ = ["WEBGL_MIN_POINTS", "PointTraces", "clicked_index"]
