"""The accuracy estimate over labels with its band, beside the strategy's risk (a plotly
figure for the Label page's stopping panel; a pure function of arrays, no Streamlit)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from rlscore.viz.figures.user_text import plain_text

#: colours: the estimate and its band, the truth, the risk
ESTIMATE, TRUTH, RISK = "#1f77b4", "#2ca02c", "#7f7f7f"


def accuracy_figure(
    labels: Sequence[int],
    loo: Sequence[float],
    low: Sequence[float],
    high: Sequence[float],
    *,
    truth: Sequence[float] | None = None,
    risk: Sequence[float] | None = None,
    risk_name: str = "estimated risk",
    stop_at: int | None = None,
    height: int = 280,
) -> go.Figure:
    """Leave-one-out accuracy after each number of labels with its interval as a band, the
    agreement with the truth column (if known) and the strategy's risk on a second axis.

    Parameters
    ----------
    labels
        The number of labels of each entry.
    loo, low, high
        The estimate and its interval (NaN where not defined), in [0, 1].
    truth
        Agreement with the truth on the unlabeled points (None: no truth column).
    risk, risk_name
        The strategy's estimated risk and what it measures (right axis).
    stop_at
        Labels at which the stop rule fired: a vertical line.
    """
    x = np.asarray(labels, dtype=np.float64)
    fig = go.Figure()
    fig.add_traces(interval_band(x, low, high))
    fig.add_trace(
        go.Scatter(
            x=x,
            y=list(loo),
            mode="lines",
            name="accuracy (LOO)",
            line=dict(color=ESTIMATE),
            connectgaps=True,  # a long history is fitted on a sparse grid (stopping_view)
        )
    )
    if truth is not None and np.isfinite(np.asarray(truth, dtype=np.float64)).any():
        fig.add_trace(
            go.Scatter(
                x=x,
                y=list(truth),
                mode="lines",
                name="agreement with truth",
                line=dict(color=TRUTH, dash="dot"),
            )
        )
    if risk is not None and len(risk):
        add_risk_axis(fig, x, risk, risk_name)
    if stop_at is not None:
        fig.add_vline(x=stop_at, line=dict(color="black", dash="dot"))
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=10, b=10),
        xaxis_title="labels",
        yaxis=dict(title="accuracy", range=[0, 1.02]),
        legend=dict(orientation="h", y=1.02, yanchor="bottom"),
    )
    return fig


def interval_band(x: np.ndarray, low: Sequence[float], high: Sequence[float]) -> list[go.Scatter]:
    """The interval ``[low, high]`` at each ``x`` as a filled band: an invisible upper line, then
    the lower line filled up to it (``fill="tonexty"``), one legend entry for both.

    Parameters
    ----------
    x : ndarray
    low, high : sequence of float
        NaN where not defined: the band bridges the gap.

    Returns
    -------
    list of plotly.graph_objects.Scatter
        The two traces, in the order they must be added.
    """
    lo, hi = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    upper = go.Scatter(
        x=x,
        y=hi,
        mode="lines",
        line=dict(width=0),
        showlegend=False,
        hoverinfo="skip",
        connectgaps=True,
    )
    lower = go.Scatter(
        x=x,
        y=lo,
        mode="lines",
        line=dict(width=0),
        fill="tonexty",
        fillcolor="rgba(31,119,180,0.2)",
        name="95% interval",
        hoverinfo="skip",
        connectgaps=True,
    )
    return [upper, lower]


def add_risk_axis(fig: go.Figure, x: np.ndarray, risk: Sequence[float], risk_name: str) -> None:
    """Draw the strategy's risk on a second axis (right) of ``fig``, named ``risk_name`` (plain
    text, escaped here): it measures something else than accuracy, on another scale."""
    name = plain_text(risk_name)
    fig.add_trace(
        go.Scatter(
            x=x,
            y=list(risk),
            mode="lines",
            name=name,
            yaxis="y2",
            line=dict(color=RISK, dash="dash"),
        )
    )
    fig.update_layout(yaxis2=dict(title=name, overlaying="y", side="right", rangemode="tozero"))


__all__ = ["accuracy_figure", "add_risk_axis", "interval_band"]
