"""What the pool plot of a cluster-backed project draws: a sample of its points, fetched
from the cluster, never the whole pool.

The sample is :data:`~rlscore.sessions.cluster.engine.PLOT_SAMPLE` rows drawn uniformly (the
same rows on every run) plus the query and the labeled and skipped points, in one rows pass
(:meth:`~rlscore.sessions.cluster.engine.ClusterEngine.sample_view`). The plot's points are
positions in the sample; :attr:`SamplePlot.indices` maps them back to the pool, so nothing
drawn is ever mistaken for another point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlscore.core.rls.confidence import predicted_index, top_probability
from rlscore.sessions.actions.session import LabelingSession
from rlscore.sessions.cluster.engine import PLOT_SAMPLE
from rlscore.sessions.views.label_page import PoolPlotState

#: labeled points added to the sample at most (the most recent ones)
MAX_LABELED_SHOWN = 500


@dataclass
class SamplePlot:
    """A :class:`~rlscore.sessions.views.label_page.PoolPlotState` restricted to a sample of the
    pool.

    Attributes
    ----------
    indices : ndarray (s,)
        Pool index of each sample position (sorted).
    features : ndarray (s, r)
        Their features (what the plot projects to 2-D).
    labels, skipped, query
        As the view's, keyed by sample position.
    predicted, confidence : ndarray (s,)
        As the view's, at the sample's points.
    """

    indices: np.ndarray
    features: np.ndarray
    labels: dict
    skipped: list[int]
    predicted: np.ndarray
    confidence: np.ndarray
    query: int | None


def sample_plot(
    session: LabelingSession, view: PoolPlotState, size: int = PLOT_SAMPLE
) -> SamplePlot:
    """The view ``view`` of the session's pool on a sample of ``size`` rows (module
    docstring)."""
    labeled = list(view.labels)[-MAX_LABELED_SHOWN:]
    extra = [*labeled, *view.skipped[-MAX_LABELED_SHOWN:]]
    if view.query is not None:
        extra.append(view.query)
    drawn = session.engine.sample_view(size, extra)
    idx = drawn["indices"]
    pos = {int(i): k for k, i in enumerate(idx)}
    # the sample's own values: the view's pool-wide vectors are never indexed here, so the
    # plot reads no n-vector of the session
    classes = np.asarray(session.engine.classes_)
    predicted = classes[predicted_index(drawn["decision"])]
    confidence = top_probability(drawn["probabilities"])
    query = None if view.query is None else pos[int(view.query)]
    if query is not None and view.query_blind:
        confidence[query] = np.nan  # shown blind, as the view (it waits for this annotator)
    return SamplePlot(
        indices=idx,
        features=drawn["features"],
        labels={pos[i]: view.labels[i] for i in labeled},
        skipped=[pos[i] for i in view.skipped if i in pos],
        predicted=predicted,
        confidence=confidence,
        query=query,
    )


__all__ = ["MAX_LABELED_SHOWN", "SamplePlot", "sample_plot"]
