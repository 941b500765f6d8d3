"""Plotly figure builders for the labeling app.

Every function here is a pure function of arrays (no Streamlit), so the figures can be
built and tested from plain Python. The app's pages only lay them out. The geometry they draw
(projections, grids, decision surfaces) is computed in :mod:`rlscore.viz.plane.geometry`.

Conventions
-----------
* Pool points carry their pool index as ``customdata`` so a click on any trace of the pool
  scatter can be mapped back to the point (see :func:`clicked_index`).
* Class colours come from one qualitative palette, indexed by the position of the class in
  ``classes`` (the engine's ``classes_`` order), so every figure colours a class the same way.
* User strings (class, feature and group names, titles) go through :func:`plain_text`: plotly
  renders a subset of HTML in every text field (``<a href>``, ``<br>``, ``<span style>``…).
  Templates (``hovertemplate``) never contain them: they refer to the trace's name instead.
* Plotted numbers are sent at the precision the eye can see (:func:`_compact`): the JSON is
  what the browser downloads on every rerun.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly
import plotly.graph_objects as go

from rlscore.core.conventions.json_values import plain_scalar
from rlscore.viz.plane.geometry import (
    DENSITY_BINS,
    blank_flat,
    density_grid,
    margin_surfaces,
    summarize_curves,
)

if TYPE_CHECKING:
    import pandas as pd

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#e377c2",
    "#8c564b",
    "#bcbd22",
    "#7f7f7f",
)
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "triangle-down", "pentagon")
UNDECIDED = "#b0b0b0"
#: pools larger than this draw their points with WebGL (see :func:`pool_figure`)
WEBGL_MIN_POINTS = 1000
#: at most this many unlabeled points are sent to the browser (see :func:`pool_figure`)
MAX_POINTS = 20_000
#: unlabeled points drawn over the density layer (see :func:`pool_figure`): enough to click and
#: to show the predictions, few enough that the shading stays visible between them
DENSITY_SAMPLE = 5_000
#: the density layer's shade: transparent where a cell is empty, then light to dark grey-blue
_DENSITY_LIGHT, _DENSITY_DARK = (110, 120, 140, 0.18), (35, 45, 70, 0.85)
#: shades of the density layer: one per step of a logarithmic scale of the counts
_DENSITY_SHADES = 8
#: plotly >= 6 sends numpy arrays as binary typed arrays, older versions as JSON lists
_TYPED_ARRAYS = int(plotly.__version__.split(".")[0]) >= 6
# one template for every pool trace: user strings reach the hover label only as data
_HOVER = "#%{customdata}<extra>%{fullData.name}</extra>"
_HOVER_TEXT = "#%{customdata} %{text}<extra>%{fullData.name}</extra>"


def class_color(position: int) -> str:
    """Colour of the class at ``position`` in the classes list."""
    return PALETTE[position % len(PALETTE)]


def plain_text(value: object) -> str:
    """``str(value)`` escaped so that plotly shows it as typed instead of rendering its HTML.

    Only ``&``, ``<`` and ``>`` are escaped: plotly decodes exactly those entities (and
    numeric ones), so ``&quot;`` would show literally, while a quote outside a tag is harmless.

    Parameters
    ----------
    value : object
        A user string: a class, feature, project or group name.

    Returns
    -------
    str
    """
    return html.escape(str(value), quote=False)


def class_text(c: object, class_names: Mapping[str, str] | None = None) -> str:
    """The display name of class ``c`` (``class_names[str(c)]``, else ``c``), escaped for plotly.

    Parameters
    ----------
    c : object
        A class value.
    class_names : mapping str -> str, optional
        The project's display names, keyed by ``str(class value)``.

    Returns
    -------
    str
    """
    c = plain_scalar(c)  # the key rule of Project.class_text: np.float64(1.0) is class "1"
    return plain_text((class_names or {}).get(str(c)) or c)


def sampling_note(fig: go.Figure) -> str | None:
    """A caption saying how many unlabeled points :func:`pool_figure` drew, if it sampled them.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        A :func:`pool_figure`.

    Returns
    -------
    str or None
        None when every point is drawn.
    """
    meta = fig.layout.meta
    if not isinstance(meta, Mapping):
        return None
    shading = ""
    if meta.get("density_points") is not None:
        shading = (
            f"Shading: how many of the {meta['density_points']:,} pool points fall in each "
            "cell (darker: more, on a logarithmic scale). "
        )
    if meta.get("unlabeled_drawn") == meta.get("unlabeled_total"):
        return shading.rstrip() or None
    return shading + (
        f"Showing a random {meta['unlabeled_drawn']:,} of the {meta['unlabeled_total']:,} "
        "unlabeled points (the same ones on every run); every labeled and skipped point, the "
        "query and the selected point are always shown."
    )


def pool_figure(
    xy: np.ndarray,
    classes: Sequence,
    labels: Mapping[int, object],
    predicted: np.ndarray | None = None,
    confidence: np.ndarray | None = None,
    *,
    query: int | None = None,
    selected: int | None = None,
    skipped: Sequence[int] = (),
    axis_titles: tuple[str, str] = ("x1", "x2"),
    grid: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    confidence_contours: bool = False,
    title: str | None = None,
    height: int = 560,
    webgl: bool | None = None,
    class_names: Mapping[str, str] | None = None,
    max_points: int | None = MAX_POINTS,
    sample_seed: int = 0,
    density: bool | None = None,
    density_bins: int = DENSITY_BINS,
    density_sample: int = DENSITY_SAMPLE,
    hover: Sequence[str] | None = None,
    density_counts: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> go.Figure:
    """Scatter of the pool with labels, predictions, the next query and a decision boundary.

    Parameters
    ----------
    xy : ndarray of shape (n, 2)
        Plot coordinates (see :func:`rlscore.viz.plane.geometry.plane_projection`).
    classes : sequence
        The classes, in the engine's order (fixes the colours).
    labels : mapping int -> label
        Labeled points; drawn large, outlined, coloured by label.
    predicted : ndarray of shape (n,), optional
        Predicted class of every point; unlabeled points are tinted with its colour.
    confidence : ndarray of shape (n,), optional
        Confidence in [0, 1] of the prediction; sets the tint's opacity. Points whose
        confidence does not exceed chance (1/T), or is not a number, are drawn grey
        ("undecided").
    query : int, optional
        Index of the proposed query; drawn as a large star.
    selected : int, optional
        Index of a point the user clicked (labeled instead of the query); drawn as a ring.
    skipped : sequence of int
        Skipped points; drawn as grey crosses.
    axis_titles : (str, str)
        Plain text (escaped here).
    grid : (xs, ys, F), optional
        Decision values on a grid (``F`` of shape (len(ys), len(xs)) binary, or
        (len(ys), len(xs), T) multiclass); the zero contour is drawn as the boundary.
        Values that are not finite are left out.
    confidence_contours : bool
        Also draw, for binary data, the contours ``f = ±0.5`` (soft confidence 0.75).
    title : str, optional
        Plain text (escaped here).
    height : int
    webgl : bool, optional
        Draw the points with WebGL (``Scattergl``); default: when more than
        :data:`WEBGL_MIN_POINTS` points are drawn, where SVG markers make the browser slow.
        All point traces then use WebGL, since plotly draws WebGL above SVG and would hide
        the query.
    class_names : mapping str -> str, optional
        Display name of each class, keyed by ``str(class value)``, for legends and hover
        labels (see :func:`class_text`).
    max_points : int or None
        At most this many unlabeled points are drawn (None: all). Above it a random sample
        is drawn, always with the query and the selected point; labeled and skipped points
        are always all drawn.
    sample_seed : int
        Seed of the sample. Each point gets a fixed random priority and the sample is the
        unlabeled points of highest priority, so a new label changes the sample by at most
        one point instead of redrawing it.
    density : bool, optional
        Draw the density layer: a heatmap of how many pool points (all of them, labeled or
        not) fall in each cell of a grid (:func:`rlscore.viz.plane.geometry.density_grid`), under
        the points, shaded on a logarithmic scale. The unlabeled points drawn over it are then
        at most ``min(max_points, density_sample)``. Default: when the unlabeled points are
        more than ``max_points``, i.e. when a sample alone would hide most of the pool.
    density_bins : int
        Cells per axis of the density layer (the browser gets ``density_bins²`` counts,
        whatever the pool's size).
    hover : sequence of str, optional
        One hover text per pool point (e.g. an item's snippet,
        :func:`rlscore.data.items.item_map.hover_texts`), already HTML-escaped: plotly reads
        hover text as HTML.
    density_sample : int
        At most this many unlabeled points drawn over the density layer.
    density_counts : (x_edges, y_edges, counts), optional
        The density layer's grid computed elsewhere, as
        :func:`~rlscore.viz.plane.geometry.density_grid` returns it (edges (bx + 1,) and (by + 1,),
        counts (by, bx), row-major over (y, x)), in the coordinates of ``xy``: e.g. every
        point of a pool that lives on a cluster counted there, while ``xy`` holds only the
        sample drawn. Drawn as the layer instead of counting ``xy`` (it implies ``density``);
        ``density_bins`` is then unused.

    Returns
    -------
    plotly.graph_objects.Figure
        Every drawn point has its pool index as its ``customdata``. ``layout.meta`` holds
        ``points_total``, ``points_drawn``, ``unlabeled_total``, ``unlabeled_drawn`` and
        ``density_points`` (the points counted by the density layer, None without it; see
        :func:`sampling_note`).
    """
    xy = np.asarray(xy, dtype=float)
    n = xy.shape[0]
    classes = list(classes)
    position = {c: k for k, c in enumerate(classes)}
    idx = np.arange(n)
    is_labeled = np.zeros(n, dtype=bool)
    labeled = np.fromiter(labels.keys(), dtype=int, count=len(labels))
    is_labeled[labeled] = True
    is_skipped = np.zeros(n, dtype=bool)
    is_skipped[np.asarray(list(skipped), dtype=int)] = True
    is_skipped &= ~is_labeled
    unlabeled = ~is_labeled & ~is_skipped
    if isinstance(density_sample, bool) or not isinstance(density_sample, int | np.integer):
        raise ValueError(f"density_sample must be an integer, got {density_sample!r}")
    if density_sample < 0:
        raise ValueError(f"density_sample must be non-negative, got {density_sample}")
    if density_counts is not None:
        if density is False:
            raise ValueError("density=False contradicts the density_counts given")
        density_counts = checked_density(*density_counts)
        density = True
    if density is None:
        density = max_points is not None and int(unlabeled.sum()) > max_points
    quota = max_points
    if density:
        quota = density_sample if max_points is None else min(max_points, density_sample)
    unlabeled &= _sample(unlabeled, (query, selected), quota, sample_seed)
    drawn = int(unlabeled.sum() + is_labeled.sum() + is_skipped.sum())
    if webgl is None:
        webgl = drawn > WEBGL_MIN_POINTS

    decimals = (_decimals(xy[:, 0]), _decimals(xy[:, 1]))

    def points(members, color, size, name, opacity=1.0, extra=None, **style):
        texts = None
        if hover is not None:
            members = np.asarray(members, dtype=int)
            texts = [hover[m] for m in members]
            if extra is not None:
                texts = [f"{t} · {e}" for t, e in zip(texts, extra, strict=True)]
        elif extra is not None:
            texts = extra
        return _points(
            xy, members, color, size, name, opacity, decimals, webgl=webgl, hover=texts, **style
        )

    fig = go.Figure()
    density_points = None
    if density:
        # one drawing for both: the grid counted here from xy, or the one given
        if density_counts is None:
            density_counts = density_grid(xy, density_bins)
        x_edges, y_edges, counts = density_counts
        density_points = int(counts.sum())
        fig.add_trace(_density(x_edges, y_edges, counts))
    if grid is not None:
        xs, ys, F = grid
        surfaces = blank_flat(margin_surfaces(F))
        for k, Z in enumerate(surfaces):
            colour = "black" if len(surfaces) == 1 else class_color(k)
            name = "decision boundary f = 0"
            fig.add_trace(_contour(xs, ys, Z, (0.0,), colour, "solid", name, k == 0))
        if confidence_contours and len(surfaces) == 1:
            # one trace for both levels: the grid's values are sent once, not twice
            fig.add_trace(
                _contour(xs, ys, surfaces[0], (-0.5, 0.5), "gray", "dash", "f = ±0.5", True)
            )

    if predicted is None:
        fig.add_trace(points(idx[unlabeled], UNDECIDED, 7, "unlabeled", opacity=0.6))
    else:
        predicted = np.asarray(predicted)
        conf = np.ones(n) if confidence is None else np.asarray(confidence, dtype=float)
        chance = 1.0 / max(len(classes), 2)
        # NaN confidence is no confidence: grey, like chance
        undecided = unlabeled & ~(conf > chance + 1e-9)
        fig.add_trace(points(idx[undecided], UNDECIDED, 7, "unlabeled (undecided)", 0.6))
        for c in classes:
            members = idx[unlabeled & ~undecided & (predicted == c)]
            if members.size == 0:
                continue
            # Opacity grows from 0.2 at chance to 0.9 at full confidence.
            strength = np.clip((conf[members] - chance) / (1 - chance), 0.0, 1.0)
            fig.add_trace(
                points(
                    members,
                    class_color(position[c]),
                    7,
                    f"predicted {class_text(c, class_names)}",
                    opacity=0.2 + 0.7 * strength,
                    extra=[f"p={v:.2f}" for v in conf[members]],
                )
            )
    if is_skipped.any():
        fig.add_trace(points(idx[is_skipped], "#555555", 9, "skipped", symbol="x"))
    label_values = list(labels.values())
    for c in classes:
        members = np.sort(labeled[[v == c for v in label_values]])
        if members.size == 0:
            continue
        fig.add_trace(
            points(
                members,
                class_color(position[c]),
                11,
                f"labeled {class_text(c, class_names)}",
                symbol=SYMBOLS[position[c] % len(SYMBOLS)],
                line=1,
            )
        )
    if query is not None:
        fig.add_trace(points([query], "#ffd700", 22, "next query", symbol="star", line=2))
    if selected is not None and selected != query:
        # open symbols draw their outline in the marker colour
        fig.add_trace(points([selected], "#ff00ff", 24, "selected", symbol="circle-open", line=3))
    fig.update_layout(
        title=None if title is None else plain_text(title),
        height=height,
        margin=dict(l=10, r=10, t=40 if title else 10, b=10),
        xaxis_title=plain_text(axis_titles[0]),
        yaxis_title=plain_text(axis_titles[1]),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
        clickmode="event+select",
        dragmode="pan",
        uirevision="pool",
        meta=dict(
            points_total=n,
            points_drawn=drawn,
            unlabeled_total=int(n - is_labeled.sum() - is_skipped.sum()),
            unlabeled_drawn=int(unlabeled.sum()),
            density_points=density_points,
        ),
    )
    return fig


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
        Usually a :func:`pool_figure` drawn with the same ``grid``; changed in place.
    grid : (xs, ys, F)
        Binary decision values ``F = g − offset`` of shape (len(ys), len(xs)), as for
        :func:`pool_figure`. Values that are not finite, or where ``g`` is numerically flat at 0
        (see :func:`rlscore.viz.plane.geometry.blank_flat`), are left out.
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
        ``fig``, with two more ``go.Contour`` traces: the contours ``g = offsets[k]``.
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
        fig.add_trace(_contour(xs, ys, G, (level,), color, "dash", plain_text(name), True))
    return fig


def _sample(
    candidates: np.ndarray, keep: Sequence[int | None], max_points: int | None, seed: int
) -> np.ndarray:
    """Mask of at most ``max_points`` of the ``candidates`` (a mask), always with ``keep``.

    The points of highest fixed random priority win, so the sample of a pool changes little
    when a point leaves the candidates (is labeled).
    """
    if max_points is not None and max_points < 0:
        raise ValueError(f"max_points must be non-negative, got {max_points}")
    if max_points is None or int(candidates.sum()) <= max_points:
        return candidates.copy()
    chosen = np.zeros_like(candidates)
    forced = [i for i in dict.fromkeys(keep) if i is not None and candidates[i]]
    chosen[forced] = True
    rest = np.flatnonzero(candidates & ~chosen)
    quota = max(max_points - len(forced), 0)
    priority = np.random.default_rng(seed).random(len(candidates))[rest]
    chosen[rest[np.argpartition(priority, quota)[:quota]]] = True
    return chosen


def clicked_index(point: Mapping) -> int | None:
    """Pool index of a clicked/selected point of :func:`pool_figure` (None if not a pool point).

    Accepts the point dicts of plotly events as Streamlit reports them; ``customdata`` may
    arrive as a number or wrapped in a list.
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


def _points(
    xy: np.ndarray,
    members: Sequence[int] | np.ndarray,
    color: str,
    size: float,
    name: str,
    opacity: float | np.ndarray = 1.0,
    decimals: tuple[int | None, int | None] = (None, None),
    *,
    symbol: str = "circle",
    line: float = 0,
    line_color: str = "black",
    hover: Sequence[str] | None = None,
    webgl: bool = False,
) -> go.Scatter | go.Scattergl:
    """One trace of pool points, coordinates rounded to ``decimals`` (see :func:`_decimals`);
    ``name`` must already be plain text (:func:`plain_text`)."""
    members = np.asarray(members, dtype=int)
    if isinstance(opacity, np.ndarray):
        opacity = _compact(opacity, 2)  # 1/100 of full opacity is below what the eye sees
    return (go.Scattergl if webgl else go.Scatter)(
        x=_compact(xy[members, 0], decimals[0]),
        y=_compact(xy[members, 1], decimals[1]),
        mode="markers",
        name=name,
        customdata=members,
        text=None if hover is None else list(hover),
        hovertemplate=_HOVER if hover is None else _HOVER_TEXT,
        marker=dict(
            color=color,
            size=size,
            symbol=symbol,
            opacity=opacity,
            line=dict(width=line, color=line_color),
        ),
    )


def _contour(
    xs: np.ndarray,
    ys: np.ndarray,
    Z: np.ndarray,
    levels: tuple[float, ...],
    color: str,
    dash: str,
    name: str,
    legend: bool,
) -> go.Contour:
    """Contour lines of ``Z`` at evenly spaced ``levels`` (one or more), in one style."""
    step = levels[1] - levels[0] if len(levels) > 1 else 1.0
    return go.Contour(
        x=_compact(xs, _decimals(xs)),
        y=_compact(ys, _decimals(ys)),
        z=_compact(Z, _decimals(Z)),
        contours=dict(start=levels[0], end=levels[-1], size=step, coloring="lines"),
        # with coloring="lines" the colour comes from the colorscale, not line.color
        colorscale=[[0.0, color], [1.0, color]],
        line=dict(width=2 if dash == "solid" else 1, dash=dash),
        showscale=False,
        hoverinfo="skip",
        name=name,
        showlegend=legend,
    )


def checked_density(
    x_edges: np.ndarray, y_edges: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A density grid given to :func:`pool_figure` (``density_counts``), checked: finite
    increasing edges, counts of shape (len(y_edges) − 1, len(x_edges) − 1) that are
    non-negative integers. Returns float64 edges and int64 counts; ``ValueError`` else."""
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


def _density(x_edges: np.ndarray, y_edges: np.ndarray, counts: np.ndarray) -> go.Heatmap:
    """The density layer: one heatmap cell per grid cell, its count as ``z``.

    Shaded on a logarithmic scale (a piecewise-linear colour scale through the counts
    ``top^(k/K)``), so a cell of one point is visible beside one of ten thousand; empty cells
    are transparent. The counts themselves are sent (the hover label shows them).
    """
    top = max(int(counts.max()), 2)
    stops = [[0.0, "rgba(0,0,0,0)"]]
    for k in range(_DENSITY_SHADES + 1):
        u = k / _DENSITY_SHADES
        shade = [a + u * (b - a) for a, b in zip(_DENSITY_LIGHT, _DENSITY_DARK, strict=True)]
        position = top**u / top  # a cell of count top^u: 1/top (one point) … 1
        stops.append([position, "rgba({:.0f},{:.0f},{:.0f},{:.2f})".format(*shade)])
    return go.Heatmap(
        x=_compact(x_edges, _decimals(x_edges)),
        y=_compact(y_edges, _decimals(y_edges)),
        z=counts.astype(np.int32),
        zmin=0,
        zmax=top,
        colorscale=stops,
        showscale=False,
        hovertemplate="%{z:,} pool points in this cell<extra></extra>",
        name="pool density (all points)",
        showlegend=True,
    )


def _decimals(values: np.ndarray, digits: int = 5) -> int | None:
    """Decimals that keep ``digits`` significant digits of the extent of ``values``.

    With 5, a step of at most 1/10 000 of the axis: under a pixel even zoomed in 10×. Relative
    to the extent of everything drawn on an axis, not to each number: a point far from 0 keeps
    the precision of the axis. None (keep every digit) when the values are all equal.
    """
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    extent = float(finite.max() - finite.min()) if finite.size else 0.0
    if not 0.0 < extent < np.inf:
        return None
    decimals = digits - 1 - int(np.floor(np.log10(extent)))
    return decimals if decimals <= 300 else None  # np.round scales by 10**decimals


def _compact(values: np.ndarray, decimals: int | None) -> np.ndarray:
    """Plotted numbers rounded to ``decimals``, in the form plotly sends cheapest; NaN stays.

    As typed arrays (plotly >= 6), float32 (4 bytes a number instead of 8) when it holds that
    precision, which it does unless the values sit far from 0 compared with their extent. As
    JSON lists (plotly 5), float64: its rounded numbers print short, float32 ones in 17 digits.
    """
    a = np.asarray(values, dtype=float)
    if decimals is not None:
        a = np.round(a, decimals)
    if _TYPED_ARRAYS:
        with np.errstate(over="ignore"):  # beyond float32's range: inf, caught just below
            single = a.astype(np.float32)
        tolerance = 0.0 if decimals is None else 0.5 * 10.0**-decimals
        if np.nanmax(np.abs(single - a), initial=0.0) <= tolerance:
            return single
    return a


def risk_history_figure(
    risk: Sequence[float],
    validation_error: Sequence[float] | None = None,
    height: int = 240,
    *,
    risk_name: str = "estimated risk",
) -> go.Figure:
    """The strategy's risk figure after 0, 1, 2, … labels (and the validation error, if known).

    Parameters
    ----------
    risk : sequence of float
        The risk after each label (e.g. ``LabelingSession.risk_history``).
    validation_error : sequence of float, optional
        Drawn on a second axis (right).
    height : int
    risk_name : str
        What ``risk`` measures (the strategy's ``risk_name``): the trace name and axis title,
        since strategies estimate different things (an error count, a variance sum).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    steps = np.arange(len(risk))
    fig.add_trace(go.Scatter(x=steps, y=list(risk), mode="lines+markers", name=risk_name))
    if validation_error is not None and len(validation_error):
        fig.add_trace(
            go.Scatter(
                x=np.arange(len(validation_error)),
                y=list(validation_error),
                mode="lines+markers",
                name="validation error",
                yaxis="y2",
            )
        )
        fig.update_layout(
            yaxis2=dict(title="validation error", overlaying="y", side="right", rangemode="tozero")
        )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=10, b=10),
        xaxis=dict(title="labels", tick0=0, dtick=max(1, int(np.ceil(len(risk) / 8)))),
        yaxis_title=risk_name,
        yaxis_rangemode="tozero",
        legend=dict(orientation="h", y=1.02, yanchor="bottom"),
    )
    return fig


def loo_curve_figure(
    lams: np.ndarray,
    squared: np.ndarray,
    classification: np.ndarray,
    *,
    lam_current: float | None = None,
    lam_auto: float | None = None,
    height: int = 360,
) -> go.Figure:
    """LOO squared and classification error against λ (log axis), marking the current and auto λ."""
    lams = np.asarray(lams, dtype=float)
    squared = np.asarray(squared, dtype=float)
    classification = np.asarray(classification, dtype=float)
    if not (lams.shape == squared.shape == classification.shape):
        raise ValueError("lams, squared and classification must have the same length")
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=lams, y=squared, mode="lines", name="LOO squared error"))
    fig.add_trace(
        go.Scatter(
            x=lams,
            y=classification,
            mode="lines",
            name="LOO classification error",
            yaxis="y2",
            line=dict(dash="dot"),
        )
    )
    for lam, name, colour, symbol in (
        (lam_current, "current λ", "#d62728", "circle"),
        (lam_auto, "automatic λ", "#2ca02c", "diamond"),
    ):
        if lam is None or not np.isfinite(lam) or lam <= 0:
            continue
        k = int(np.argmin(np.abs(np.log(lams) - np.log(lam))))
        fig.add_vline(x=lam, line=dict(color=colour, dash="dash", width=1))
        fig.add_trace(
            go.Scatter(
                x=[lam],
                y=[squared[k]],
                mode="markers",
                name=f"{name} = {lam:.3g}",
                marker=dict(color=colour, size=12, symbol=symbol, line=dict(width=1)),
            )
        )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=10, b=10),
        xaxis=dict(type="log", title="λ"),
        yaxis=dict(title="LOO squared error", rangemode="tozero"),
        yaxis2=dict(
            title="LOO classification error", overlaying="y", side="right", rangemode="tozero"
        ),
        legend=dict(orientation="h", y=1.02, yanchor="bottom"),
    )
    return fig


def confidence_histogram(confidence: np.ndarray, bins: int = 20, height: int = 300) -> go.Figure:
    """Histogram of prediction confidence over the pool."""
    confidence = np.asarray(confidence, dtype=float)
    counts, edges = np.histogram(confidence, bins=bins, range=(0.0, 1.0))
    fig = go.Figure(
        go.Bar(
            x=(edges[:-1] + edges[1:]) / 2,
            y=counts,
            width=np.diff(edges),
            name="points",
            hovertemplate="confidence %{x:.2f}: %{y} points<extra></extra>",
        )
    )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=10, b=10),
        xaxis=dict(title="confidence", range=[0, 1]),
        yaxis_title="points",
        bargap=0.05,
    )
    return fig


def reliability_figure(table: pd.DataFrame, height: int = 300) -> go.Figure:
    """Accuracy per confidence bin (a reliability histogram), with the count of points per bin.

    ``table`` is a :func:`rlscore.core.rls.confidence.reliability_table`: columns ``bin_left``,
    ``bin_right``, ``count`` and ``accuracy``. Empty bins are left out.
    """
    missing = {"bin_left", "bin_right", "accuracy", "count"} - set(table.columns)
    if missing:
        raise ValueError(f"reliability table lacks columns {sorted(missing)}")
    shown = table[(table["count"] > 0) & table["accuracy"].notna()]
    left = shown["bin_left"].to_numpy(dtype=float)
    right = shown["bin_right"].to_numpy(dtype=float)
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=(left + right) / 2,
            y=shown["accuracy"],
            width=(right - left) * 0.95,
            name="LOO accuracy",
            text=[f"n={int(c)}" for c in shown["count"]],
            textposition="outside",
            hovertemplate="confidence %{x:.2f}: accuracy %{y:.2f} (%{text})<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[0, 1], y=[0, 1], mode="lines", name="ideal", line=dict(dash="dot", color="gray")
        )
    )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=10, b=10),
        xaxis=dict(title="confidence", range=[0, 1]),
        yaxis=dict(title="accuracy", range=[0, 1.15]),
        legend=dict(orientation="h", y=1.02, yanchor="bottom"),
    )
    return fig


def learning_curves_figure(
    runs: pd.DataFrame,
    value: str,
    *,
    x: str = "n_labeled",
    group: str = "strategy",
    y_title: str | None = None,
    names: Mapping[str, str] | None = None,
    height: int = 380,
) -> go.Figure:
    """Mean ± sd curves of ``value`` against the number of labels, one per strategy.

    Parameters
    ----------
    runs : DataFrame
        One row per (group, seed, x); see :func:`rlscore.viz.plane.geometry.summarize_curves`.
    value, x, group : str
        Column names.
    y_title : str, optional
        Axis title (default: ``value``).
    names : mapping, optional
        Legend entry of each group (default: the group's value), e.g. a strategy with the
        name of the risk figure it estimates.
    height : int

    Returns
    -------
    plotly.graph_objects.Figure
    """
    summary = summarize_curves(runs, value, x=x, group=group)
    fig = go.Figure()
    for k, (name, part) in enumerate(summary.groupby(group, sort=False)):
        colour = class_color(k)
        xs = part[x].to_numpy()
        mean = part["mean"].to_numpy()
        sd = part["sd"].to_numpy()
        fig.add_trace(
            go.Scatter(
                x=np.concatenate([xs, xs[::-1]]),
                # errors and risks are non-negative: the band stops at 0
                y=np.concatenate([mean + sd, np.maximum(mean - sd, 0.0)[::-1]]),
                fill="toself",
                fillcolor=_rgba(colour, 0.15),
                line=dict(width=0),
                hoverinfo="skip",
                showlegend=False,
                name=plain_text(f"{(names or {}).get(name, name)} ± sd"),
            )
        )
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=mean,
                mode="lines",
                name=plain_text((names or {}).get(name, name)),
                line=dict(color=colour),
            )
        )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=10, b=10),
        xaxis_title="labels",
        yaxis_title=y_title or value,
        yaxis_rangemode="tozero",
        legend=dict(orientation="h", y=1.02, yanchor="bottom"),
    )
    return fig


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"
