"""The stopping panel's figure (rlscore.viz.figures.stopping_figure): the headline estimate and
its band, the LOO accuracy and the truth dotted beside it, the stop as a line."""

from __future__ import annotations

import numpy as np

from rlscore.viz.figures.stopping_figure import accuracy_figure


def test_band_estimate_loo_and_truth():
    labels = np.arange(6)
    accuracy = np.array([np.nan, np.nan, np.nan, 0.6, 0.7, 0.8])
    low, high = accuracy - 0.1, accuracy + 0.1
    loo = [0.5] * 6
    fig = accuracy_figure(labels, accuracy, low, high, loo=loo, truth=[0.9] * 6, stop_at=5)
    names = [t.name for t in fig.data]
    assert names == [None, "95% interval", "model accuracy (random checks)",
                     "LOO on all labels", "truth column"]  # fmt: skip
    np.testing.assert_array_equal(fig.data[0].y, high)  # the band: upper edge, then lower
    np.testing.assert_array_equal(fig.data[1].y, low)
    assert fig.data[1].fill == "tonexty"
    np.testing.assert_array_equal(fig.data[2].y, accuracy)
    np.testing.assert_array_equal(fig.data[3].y, loo)
    assert fig.layout.shapes[0].x0 == 5  # the stop


def test_without_truth_or_loo():
    fig = accuracy_figure([0, 1], [np.nan, 0.5], [np.nan, 0.2], [np.nan, 0.8], truth=[None, None])
    assert [t.name for t in fig.data] == [None, "95% interval", "model accuracy (random checks)"]
