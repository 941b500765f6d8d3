"""The stopping panel's figure (rlscore.viz.figures.stopping_figure): the estimate, its band, the
truth and the risk on their axes, and no user string read as HTML."""

from __future__ import annotations

import numpy as np

from rlscore.viz.figures.stopping_figure import accuracy_figure


def test_band_estimate_truth_and_risk():
    labels = np.arange(6)
    loo = np.array([np.nan, np.nan, np.nan, 0.6, 0.7, 0.8])
    low, high = loo - 0.1, loo + 0.1
    fig = accuracy_figure(
        labels, loo, low, high, truth=[0.5] * 6, risk=[5, 4, 3, 2, 1, 1],
        risk_name="<b>risk</b>", stop_at=5,
    )  # fmt: skip
    names = [t.name for t in fig.data]
    assert names == [None, "95% interval", "accuracy (LOO)", "agreement with truth",
                     "&lt;b&gt;risk&lt;/b&gt;"]  # fmt: skip
    np.testing.assert_array_equal(fig.data[0].y, high)  # the band: upper edge, then lower
    np.testing.assert_array_equal(fig.data[1].y, low)
    assert fig.data[1].fill == "tonexty"
    assert fig.data[4].yaxis == "y2"
    assert fig.layout.shapes[0].x0 == 5  # the stop


def test_without_truth_or_risk():
    fig = accuracy_figure([0, 1], [np.nan, 0.5], [np.nan, 0.2], [np.nan, 0.8], truth=[None, None])
    assert [t.name for t in fig.data] == [None, "95% interval", "accuracy (LOO)"]
