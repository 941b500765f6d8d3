"""The pool plot of a cluster-backed project: a sample fetched from the cluster
(:mod:`rlscore.sessions.cluster_plot`), projected to 2-D, not clickable (its points are
sample positions: a click must never label another point than the one drawn)."""

from __future__ import annotations

import streamlit as st

from rlscore.sessions.cluster_plot import sample_plot
from rlscore.sessions.panel import PoolPlotState
from rlscore.ui.errors import report_errors
from rlscore.ui.store import SessionHandle
from rlscore.viz import figures
from rlscore.viz.geometry import plane_projection


def sample_pool_plot(
    handle: SessionHandle, p: dict, annotator: str, stop_reached: bool
) -> int | None:
    """Draw the sample (the body of the Label page's plot fragment for such a project);
    returns the log version drawn (None: nothing drawn, the error is shown)."""
    s = handle.session
    with report_errors("Drawing a sample of the pool"), handle.lock:
        view = PoolPlotState.for_annotator(s, annotator, int(p["budget"]), stop_reached)
        sample = sample_plot(s, view)
        names = [f"φ{j + 1}" for j in range(sample.features.shape[1])]
        plane = plane_projection(sample.features, names)
        fig = figures.pool_figure(
            plane.xy,
            view.classes,
            sample.labels,
            sample.predicted,
            sample.confidence,
            query=sample.query,
            skipped=sample.skipped,
            axis_titles=plane.axis_titles,
            height=430,
            class_names=s.project.class_names,
        )
        st.plotly_chart(fig, key="cluster_pool", config={"displaylogo": False})
        st.caption(
            f"A sample of {len(sample.indices):,} of the {s.project.n:,} points, fetched from "
            "the cluster (PCA projection of their features, no boundary drawn). Star: the "
            "next query."
        )
        return view.seen
    return None
