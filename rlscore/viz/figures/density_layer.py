"""The density layer under a large pool's points: how many pool points fall in each cell.

A sample alone would hide most of a large pool, so the pool figure draws under it a heatmap of
every pool point's count per cell of a grid (:func:`rlscore.viz.plane.geometry.density_grid`):
the browser gets ``bins²`` counts whatever the pool's size. The grid is counted from the points
drawn, or computed elsewhere (e.g. for a pool that lives on a cluster) and checked here.
"""

from __future__ import annotations

import numpy as np

from rlscore.viz.figures.precision import compact_axis

#: the density layer's shade: transparent where a cell is empty, then light to dark grey-blue
_DENSITY_LIGHT, _DENSITY_DARK = (110, 120, 140, 0.18), (35, 45, 70, 0.85)
#: shades of the density layer: one per step of a logarithmic scale of the counts
_DENSITY_SHADES = 8


def draws_density(
    density: bool | None, given: bool, n_unlabeled: int, max_points: int | None
) -> bool:
    """Whether a pool figure draws the density layer.

    Parameters
    ----------
    density : bool or None
        The caller's choice; None: when the unlabeled points are more than ``max_points``,
        i.e. when a sample alone would hide most of the pool.
    given : bool
        A grid computed elsewhere was given: it implies the layer.
    n_unlabeled : int
    max_points : int or None

    Returns
    -------
    bool
    """
    if given:
        if density is False:
            raise ValueError("density=False contradicts the density_counts given")
        return True
    if density is None:
        return max_points is not None and n_unlabeled > max_points
    return density


def checked_density(
    x_edges: np.ndarray, y_edges: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A density grid given to a pool figure (``density_counts``), checked.

    Parameters
    ----------
    x_edges, y_edges : ndarray
        Finite increasing edges, at least two each.
    counts : ndarray of shape (len(y_edges) − 1, len(x_edges) − 1)
        Non-negative integers, row-major over (y, x).

    Returns
    -------
    (ndarray, ndarray, ndarray)
        float64 edges and int64 counts; ``ValueError`` when the grid is not as above.
    """
    edges = [np.asarray(e, dtype=np.float64).reshape(-1) for e in (x_edges, y_edges)]
    for axis, e in zip("xy", edges, strict=True):
        if e.size < 2 or not np.isfinite(e).all() or not (np.diff(e) > 0).all():
            raise ValueError(f"density {axis}_edges must be at least 2 finite increasing values")
    raw = np.asarray(counts)
    shape = (edges[1].size - 1, edges[0].size - 1)
    if raw.shape != shape:
        raise ValueError(f"density counts must have shape {shape} (y, x), got {raw.shape}")
    exact = raw.astype(np.int64)
    if not np.array_equal(exact, raw) or (exact < 0).any():
        raise ValueError("density counts must be non-negative integers")
    return edges[0], edges[1], exact


def density_heatmap(x_edges: np.ndarray, y_edges: np.ndarray, counts: np.ndarray) -> dict:
    """The density layer: one heatmap cell per grid cell, its count as ``z``.

    Shaded on a logarithmic scale (a piecewise-linear colour scale through the counts
    ``top^(k/K)``), so a cell of one point is visible beside one of ten thousand; empty cells
    are transparent. The counts themselves are sent (the hover label shows them).

    Parameters
    ----------
    x_edges, y_edges, counts : ndarray
        A grid as :func:`checked_density` returns it.

    Returns
    -------
    dict
        A ``heatmap`` trace in plotly's figure schema (validated by the figure holding it).
    """
    top = max(int(counts.max()), 2)
    stops = [[0.0, "rgba(0,0,0,0)"]]
    for k in range(_DENSITY_SHADES + 1):
        u = k / _DENSITY_SHADES
        shade = [a + u * (b - a) for a, b in zip(_DENSITY_LIGHT, _DENSITY_DARK, strict=True)]
        position = top**u / top  # a cell of count top^u: 1/top (one point) … 1
        stops.append([position, "rgba({:.0f},{:.0f},{:.0f},{:.2f})".format(*shade)])
    return dict(
        type="heatmap",
        x=compact_axis(x_edges),
        y=compact_axis(y_edges),
        z=counts.astype(np.int32),
        zmin=0,
        zmax=top,
        colorscale=stops,
        showscale=False,
        hovertemplate="%{z:,} pool points in this cell<extra></extra>",
        name="pool density (all points)",
        showlegend=True,
    )


__all__ = ["checked_density", "density_heatmap", "draws_density"]
