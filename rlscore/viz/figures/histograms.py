"""Histograms of the model's confidence over the pool: how many points at each confidence, and
how often the model is right at each (a reliability histogram).

Both are drawn again at every move of the Tune page's sliders: their traces are plain dicts in
plotly's figure schema, validated once by the figure that holds them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

if TYPE_CHECKING:
    import pandas as pd


def confidence_histogram(confidence: np.ndarray, bins: int = 20, height: int = 300) -> go.Figure:
    """Histogram of prediction confidence over the pool."""
    confidence = np.asarray(confidence, dtype=float)
    counts, edges = np.histogram(confidence, bins=bins, range=(0.0, 1.0))
    fig = go.Figure(
        dict(
            type="bar",
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
    bars = dict(
        type="bar",
        x=(left + right) / 2,
        y=shown["accuracy"].to_numpy(),
        width=(right - left) * 0.95,
        name="LOO accuracy",
        text=np.array([f"n={int(c)}" for c in shown["count"]], dtype=str),
        textposition="outside",
        hovertemplate="confidence %{x:.2f}: accuracy %{y:.2f} (%{text})<extra></extra>",
    )
    ideal = dict(
        type="scatter",
        x=[0, 1],
        y=[0, 1],
        mode="lines",
        name="ideal",
        line=dict(dash="dot", color="gray"),
    )
    fig = go.Figure([bars, ideal])
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=10, b=10),
        xaxis=dict(title="confidence", range=[0, 1]),
        yaxis=dict(title="accuracy", range=[0, 1.15]),
        legend=dict(orientation="h", y=1.02, yanchor="bottom"),
    )
    return fig


__all__ = ["confidence_histogram", "reliability_figure"]
