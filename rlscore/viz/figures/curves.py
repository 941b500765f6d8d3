"""Curves over the labeling: the strategy's risk after each label, the leave-one-out errors
against λ, and mean ± sd learning curves of several strategies.

The risk and leave-one-out figures are drawn again at every label and every move of the Tune
page's sliders: their traces and lines are plain dicts in plotly's figure schema, validated
once by the figure that holds them (the same JSON as adding ``go.Scatter`` objects one by one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from rlscore.viz.figures.palette import class_color, rgba
from rlscore.viz.figures.user_text import plain_text
from rlscore.viz.plane.geometry import summarize_curves

if TYPE_CHECKING:
    import pandas as pd


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
    steps = np.arange(len(risk))
    data = [dict(type="scatter", x=steps, y=list(risk), mode="lines+markers", name=risk_name)]
    second = validation_error is not None and len(validation_error)
    if second:
        data.append(
            dict(
                type="scatter",
                x=np.arange(len(validation_error)),
                y=list(validation_error),
                mode="lines+markers",
                name="validation error",
                yaxis="y2",
            )
        )
    fig = go.Figure(data)  # the layout after the data, in two steps: its JSON's key order
    if second:
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
    class_weighted: bool = False,
) -> go.Figure:
    """LOO squared and classification error against λ (log axis), marking the current and auto λ.

    ``class_weighted``: the errors are weighted by class (a candidate with class weights), so
    the legend says so: a weighted rate is not the share of the labeled points wrong.
    """
    weighted = " (class-weighted)" if class_weighted else ""
    lams = np.asarray(lams, dtype=float)
    squared = np.asarray(squared, dtype=float)
    classification = np.asarray(classification, dtype=float)
    if not (lams.shape == squared.shape == classification.shape):
        raise ValueError("lams, squared and classification must have the same length")
    data = [
        dict(type="scatter", x=lams, y=squared, mode="lines", name=f"LOO squared error{weighted}"),
        dict(
            type="scatter",
            x=lams,
            y=classification,
            mode="lines",
            name=f"LOO classification error{weighted}",
            yaxis="y2",
            line=dict(dash="dot"),
        ),
    ]
    lines = []  # a vertical line at each marked λ: what fig.add_vline(x=λ) adds
    for lam, name, colour, symbol in (
        (lam_current, "current λ", "#d62728", "circle"),
        (lam_auto, "automatic λ", "#2ca02c", "diamond"),
    ):
        if lam is None or not np.isfinite(lam) or lam <= 0:
            continue
        k = int(np.argmin(np.abs(np.log(lams) - np.log(lam))))
        line = dict(color=colour, dash="dash", width=1)
        lines.append(
            dict(type="line", x0=lam, x1=lam, xref="x", y0=0, y1=1, yref="y domain", line=line)
        )
        data.append(
            dict(
                type="scatter",
                x=[lam],
                y=[squared[k]],
                mode="markers",
                name=f"{name} = {lam:.3g}",
                marker=dict(color=colour, size=12, symbol=symbol, line=dict(width=1)),
            )
        )
    fig = go.Figure(data)  # the layout after the data, lines first: its JSON's key order
    if lines:
        fig.update_layout(shapes=lines)
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
                fillcolor=rgba(colour, 0.15),
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


__all__ = ["learning_curves_figure", "loo_curve_figure", "risk_history_figure"]
