"""Decision boundaries drawn over the pool: the contours of decision values on a grid.

The grids come from :mod:`rlscore.viz.plane.geometry` (:func:`~rlscore.viz.plane.geometry.
grid_surface`, :func:`~rlscore.viz.plane.geometry.margin_surfaces`); here they become contour
lines: the boundary ``f = 0`` (one per class when there are more than two), the confidence
contours ``f = ±0.5``, and the boundary moved to other offsets (:func:`add_offset_band`). Each
line is a ``contour`` trace as a plain dict in plotly's figure schema, validated once by the
figure that holds it.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rlscore.viz.figures.palette import class_color
from rlscore.viz.figures.precision import compact_axis
from rlscore.viz.figures.user_text import plain_text
from rlscore.viz.plane.geometry import blank_flat, margin_surfaces


def contour_lines(
    xs: np.ndarray,
    ys: np.ndarray,
    Z: np.ndarray,
    levels: tuple[float, ...],
    color: str,
    dash: str,
    name: str,
    legend: bool,
) -> dict:
    """Contour lines of ``Z`` at evenly spaced ``levels`` (one or more), in one style.

    Parameters
    ----------
    xs, ys : ndarray
        The grid's coordinates.
    Z : ndarray of shape (len(ys), len(xs))
        Values on the grid; NaN where no line is drawn.
    levels : tuple of float
        Evenly spaced: one trace sends the grid once for all of them.
    color, dash : str
        The lines' colour and dash (``"solid"`` lines are drawn thicker).
    name : str
        Legend entry, already plain text.
    legend : bool
        Shown in the legend.

    Returns
    -------
    dict
        A ``contour`` trace (``type`` and its properties).
    """
    step = levels[1] - levels[0] if len(levels) > 1 else 1.0
    return dict(
        type="contour",
        x=compact_axis(xs),
        y=compact_axis(ys),
        z=compact_axis(Z),
        contours=dict(start=levels[0], end=levels[-1], size=step, coloring="lines"),
        # with coloring="lines" the colour comes from the colorscale, not line.color
        colorscale=[[0.0, color], [1.0, color]],
        line=dict(width=2 if dash == "solid" else 1, dash=dash),
        showscale=False,
        hoverinfo="skip",
        name=name,
        showlegend=legend,
    )


def boundary_traces(
    grid: tuple[np.ndarray, np.ndarray, np.ndarray], confidence_contours: bool = False
) -> list[dict]:
    """The decision boundary ``f = 0`` of the decision values on a grid.

    Parameters
    ----------
    grid : (xs, ys, F)
        ``F`` of shape (len(ys), len(xs)) binary, or (len(ys), len(xs), T) multiclass: one
        black line, or one line per class in its colour (the margin of each class over the
        others). Values that are not finite, or numerically flat at 0, are left out.
    confidence_contours : bool
        Also draw, for binary data, the contours ``f = ±0.5`` (soft confidence 0.75).

    Returns
    -------
    list of dict
        ``contour`` traces (:func:`contour_lines`).
    """
    xs, ys, F = grid
    surfaces = blank_flat(margin_surfaces(F))
    traces = []
    for k, Z in enumerate(surfaces):
        colour = "black" if len(surfaces) == 1 else class_color(k)
        name = "decision boundary f = 0"
        traces.append(contour_lines(xs, ys, Z, (0.0,), colour, "solid", name, k == 0))
    if confidence_contours and len(surfaces) == 1:
        # one trace for both levels: the grid's values are sent once, not twice
        traces.append(
            contour_lines(xs, ys, surfaces[0], (-0.5, 0.5), "gray", "dash", "f = ±0.5", True)
        )
    return traces


def add_offset_band(
    fig: go.Figure,
    grid: tuple[np.ndarray, np.ndarray, np.ndarray],
    offsets: tuple[float, float],
    *,
    offset: float = 0.0,
    names: tuple[str, str] = ("b = low (false positives ≤ η₂)", "b = high (false negatives ≤ η₁)"),
    color: str = "#ff7f0e",
) -> go.Figure:
    """Add the binary decision boundary moved to two other offsets, as two dashed contours.

    For a classifier ``f = g − b`` (``g = wᵀφ``, thesis sign) the boundary of the offset ``b'`` is
    the contour ``g = b'``: drawn for both ends of an interval of offsets, e.g. the one meeting
    error-rate targets (:func:`rlscore.core.classifiers.rls_certificate.rls_offset_interval`), the
    two lines enclose the boundaries that meet them.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Usually a :func:`~rlscore.viz.figures.pool_figure.pool_figure` drawn with the same
        ``grid``; changed in place.
    grid : (xs, ys, F)
        Binary decision values ``F = g − offset`` of shape (len(ys), len(xs)), as for
        :func:`boundary_traces`. Values that are not finite, or where ``g`` is numerically
        flat at 0 (see :func:`rlscore.viz.plane.geometry.blank_flat`), are left out.
    offsets : (float, float)
        The two offsets ``b'`` (e.g. ``(low, high)``); each is a trace's contour level.
    offset : float
        The offset ``b`` of ``F`` (RLS: ``b = −intercept_``).
    names : (str, str)
        Legend entries of the two lines (plain text, escaped here).
    color : str

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``, with two more contour traces: the contours ``g = offsets[k]``.
    """
    xs, ys, F = grid
    F = np.asarray(F, dtype=float)
    if F.ndim != 2:
        raise ValueError(f"offsets apply to binary decision values (r, r), got shape {F.shape}")
    levels = [float(b) for b in offsets]
    if len(levels) != 2 or not all(np.isfinite(levels)):
        raise ValueError(f"offsets must be two finite numbers, got {offsets!r}")
    G = blank_flat(F + float(offset))
    for level, name in zip(levels, names, strict=True):
        fig.add_trace(contour_lines(xs, ys, G, (level,), color, "dash", plain_text(name), True))
    return fig


__all__ = ["add_offset_band", "boundary_traces", "contour_lines"]
