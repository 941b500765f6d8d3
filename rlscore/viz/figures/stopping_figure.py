"""The model's accuracy over labels with its band, beside the LOO accuracy and the truth (a
plotly figure for the Label page's stopping panel; a pure function of arrays, no Streamlit)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

#: colours: the estimate and its band, the truth, the LOO accuracy
ESTIMATE, TRUTH, LOO = "#1f77b4", "#2ca02c", "#7f7f7f"


def accuracy_figure(
    labels: Sequence[int],
    accuracy: Sequence[float],
    low: Sequence[float],
    high: Sequence[float],
    *,
    loo: Sequence[float] | None = None,
    truth: Sequence[float] | None = None,
    stop_at: int | None = None,
    height: int = 280,
) -> go.Figure:
    """The model's accuracy after each number of labels (the headline estimate, from the
    random checks) with its 95 % interval as a band; beside it the leave-one-out accuracy on
    all labels and the accuracy against the truth column (if known), dotted.

    Parameters
    ----------
    labels
        The number of labels of each entry.
    accuracy, low, high
        The estimate and its interval (NaN where not defined: before the first check), in
        [0, 1].
    loo
        The LOO accuracy on all labels (biased: the labels were chosen).
    truth
        Accuracy against the truth on the unlabeled points (None: no truth column).
    stop_at
        Labels at which the stop rule fired: a vertical line.
    """
    x = np.asarray(labels, dtype=np.float64)
    fig = go.Figure()
    fig.add_traces(interval_band(x, low, high))
    fig.add_trace(
        go.Scatter(
            x=x,
            y=list(accuracy),
            mode="lines",
            name="model accuracy (random checks)",
            line=dict(color=ESTIMATE),
            connectgaps=True,  # a long history is fitted on a sparse grid (stopping_view)
        )
    )
    for values, name, colour in ((loo, "LOO on all labels", LOO), (truth, "truth column", TRUTH)):
        if values is not None and np.isfinite(np.asarray(values, dtype=np.float64)).any():
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=list(values),
                    mode="lines",
                    name=name,
                    line=dict(color=colour, dash="dot"),
                    connectgaps=True,
                )
            )
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


__all__ = ["accuracy_figure", "interval_band"]
