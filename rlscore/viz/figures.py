"""Plotly figure builders for the labeling app.

Every function here is a pure function of arrays (no Streamlit), so the figures can be
built and tested from plain Python. The app's pages only lay them out. The geometry they draw
(projections, grids, decision surfaces) is computed in :mod:`rlscore.viz.geometry`.

Conventions
-----------
* Pool points carry their pool index as ``customdata`` so a click on any trace of the pool
  scatter can be mapped back to the point (see :func:`clicked_index`).
* Class colours come from one qualitative palette, indexed by the position of the class in
  ``classes`` (the engine's ``classes_`` order), so every figure colours a class the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from rlscore.viz.geometry import blank_flat, margin_surfaces, summarize_curves

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


def class_color(position: int) -> str:
    """Colour of the class at ``position`` in the classes list."""
    return PALETTE[position % len(PALETTE)]


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
) -> go.Figure:
    """Scatter of the pool with labels, predictions, the next query and a decision boundary.

    Parameters
    ----------
    xy : ndarray of shape (n, 2)
        Plot coordinates (see :func:`rlscore.viz.geometry.plane_projection`).
    classes : sequence
        The classes, in the engine's order (fixes the colours).
    labels : mapping int -> label
        Labeled points; drawn large, outlined, coloured by label.
    predicted : ndarray of shape (n,), optional
        Predicted class of every point; unlabeled points are tinted with its colour.
    confidence : ndarray of shape (n,), optional
        Confidence in [0, 1] of the prediction; sets the tint's opacity. Points whose
        confidence does not exceed chance (1/T) are drawn grey ("undecided").
    query : int, optional
        Index of the proposed query; drawn as a large star.
    selected : int, optional
        Index of a point the user clicked (labeled instead of the query); drawn as a ring.
    skipped : sequence of int
        Skipped points; drawn as grey crosses.
    axis_titles : (str, str)
    grid : (xs, ys, F), optional
        Decision values on a grid (``F`` of shape (len(ys), len(xs)) binary, or
        (len(ys), len(xs), T) multiclass); the zero contour is drawn as the boundary.
    confidence_contours : bool
        Also draw, for binary data, the contours ``f = ±0.5`` (soft confidence 0.75).
    title : str, optional
    height : int
    webgl : bool, optional
        Draw the points with WebGL (``Scattergl``); default: when the pool has more than
        :data:`WEBGL_MIN_POINTS` points, where SVG markers make the browser slow. All point
        traces then use WebGL, since plotly draws WebGL above SVG and would hide the query.

    Returns
    -------
    plotly.graph_objects.Figure
        Every pool point has its pool index as its ``customdata``.
    """
    xy = np.asarray(xy, dtype=float)
    n = xy.shape[0]
    if webgl is None:
        webgl = n > WEBGL_MIN_POINTS
    classes = list(classes)
    position = {c: k for k, c in enumerate(classes)}
    idx = np.arange(n)
    is_labeled = np.zeros(n, dtype=bool)
    if labels:
        is_labeled[np.fromiter(labels.keys(), dtype=int)] = True
    is_skipped = np.zeros(n, dtype=bool)
    if len(skipped):
        is_skipped[np.asarray(list(skipped), dtype=int)] = True
    is_skipped &= ~is_labeled
    fig = go.Figure()

    if grid is not None:
        xs, ys, F = grid
        surfaces = blank_flat(margin_surfaces(F))
        for k, Z in enumerate(surfaces):
            colour = "black" if len(surfaces) == 1 else class_color(k)
            name = "decision boundary f = 0"
            fig.add_trace(_contour(xs, ys, Z, 0.0, colour, "solid", name, k == 0))
        if confidence_contours and len(surfaces) == 1:
            for level in (-0.5, 0.5):
                fig.add_trace(
                    _contour(xs, ys, surfaces[0], level, "gray", "dash", "f = ±0.5", level < 0)
                )

    unlabeled = ~is_labeled & ~is_skipped
    if predicted is None:
        fig.add_trace(
            _points(xy, idx[unlabeled], UNDECIDED, 7, "unlabeled", opacity=0.6, webgl=webgl)
        )
    else:
        predicted = np.asarray(predicted)
        conf = np.ones(n) if confidence is None else np.asarray(confidence, dtype=float)
        chance = 1.0 / max(len(classes), 2)
        undecided = unlabeled & (conf <= chance + 1e-9)
        fig.add_trace(
            _points(xy, idx[undecided], UNDECIDED, 7, "unlabeled (undecided)", 0.6, webgl=webgl)
        )
        for c in classes:
            members = idx[unlabeled & ~undecided & (predicted == c)]
            if members.size == 0:
                continue
            # Opacity grows from 0.2 at chance to 0.9 at full confidence.
            strength = np.clip((conf[members] - chance) / (1 - chance), 0.0, 1.0)
            fig.add_trace(
                _points(
                    xy,
                    members,
                    class_color(position[c]),
                    7,
                    f"predicted {c}",
                    opacity=0.2 + 0.7 * strength,
                    hover=[f"p={v:.2f}" for v in conf[members]],
                    webgl=webgl,
                )
            )
    if is_skipped.any():
        fig.add_trace(
            _points(xy, idx[is_skipped], "#555555", 9, "skipped", symbol="x", webgl=webgl)
        )
    label_arr = np.array([labels.get(i) for i in idx], dtype=object) if labels else None
    for c in classes:
        if label_arr is None:
            break
        members = idx[is_labeled & np.array([lab == c for lab in label_arr])]
        if members.size == 0:
            continue
        fig.add_trace(
            _points(
                xy,
                members,
                class_color(position[c]),
                11,
                f"labeled {c}",
                symbol=SYMBOLS[position[c] % len(SYMBOLS)],
                line=1,
                webgl=webgl,
            )
        )
    if query is not None:
        fig.add_trace(
            _points(
                xy,
                np.array([query]),
                "#ffd700",
                22,
                "next query",
                symbol="star",
                line=2,
                webgl=webgl,
            )  # fmt: skip
        )
    if selected is not None and selected != query:
        fig.add_trace(
            _points(
                xy,
                np.array([selected]),
                "#ff00ff",  # open symbols draw their outline in the marker colour
                24,
                "selected",
                symbol="circle-open",
                line=3,
                webgl=webgl,
            )
        )
    fig.update_layout(
        title=title,
        height=height,
        margin=dict(l=10, r=10, t=40 if title else 10, b=10),
        xaxis_title=axis_titles[0],
        yaxis_title=axis_titles[1],
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
        clickmode="event+select",
        dragmode="pan",
        uirevision="pool",
    )
    return fig


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
    members: np.ndarray,
    color: str,
    size: float,
    name: str,
    opacity: float | np.ndarray = 1.0,
    *,
    symbol: str = "circle",
    line: float = 0,
    line_color: str = "black",
    hover: Sequence[str] | None = None,
    webgl: bool = False,
) -> go.Scatter | go.Scattergl:
    members = np.asarray(members, dtype=int)
    text = [f"#{i}" + (f" {h}" if hover is not None else "") for i, h in _zip_hover(members, hover)]
    return (go.Scattergl if webgl else go.Scatter)(
        x=xy[members, 0],
        y=xy[members, 1],
        mode="markers",
        name=name,
        customdata=members,
        text=text,
        hovertemplate="%{text}<extra>" + name + "</extra>",
        marker=dict(
            color=color,
            size=size,
            symbol=symbol,
            opacity=opacity.tolist() if isinstance(opacity, np.ndarray) else opacity,
            line=dict(width=line, color=line_color),
        ),
    )


def _zip_hover(members: np.ndarray, hover: Sequence[str] | None):
    if hover is None:
        return ((int(i), "") for i in members)
    return ((int(i), h) for i, h in zip(members, hover, strict=True))


def _contour(xs, ys, Z, level: float, color: str, dash: str, name: str, legend: bool) -> go.Contour:
    return go.Contour(
        x=xs,
        y=ys,
        z=Z,
        contours=dict(start=level, end=level, size=1.0, coloring="lines"),
        # with coloring="lines" the colour comes from the colorscale, not line.color
        colorscale=[[0.0, color], [1.0, color]],
        line=dict(width=2 if dash == "solid" else 1, dash=dash),
        showscale=False,
        hoverinfo="skip",
        name=name,
        showlegend=legend,
    )


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

    ``table`` is a :func:`rlscore.core.confidence.reliability_table`: columns ``bin_left``,
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
        One row per (group, seed, x); see :func:`rlscore.viz.geometry.summarize_curves`.
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
                name=f"{name} ± sd",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=mean,
                mode="lines",
                name=(names or {}).get(name, str(name)),
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
