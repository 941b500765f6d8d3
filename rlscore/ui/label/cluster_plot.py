"""The pool plot of a cluster-backed project: a sample fetched from the cluster
(:mod:`rlscore.sessions.cluster.plot_sample`), projected to 2-D, over the density layer of the whole
pool counted on the workers; not clickable (its points are sample positions: a click must
never label another point than the one drawn).

The plane (the PCA of the first sample drawn) and the density grid on it are kept with the
session (:attr:`~rlscore.ui.shell.store.SessionHandle.cache`): the features on the workers do not
change while the session lives, so the grid is counted once (two passes over the pool) and
every later redraw fetches only the sample. The browser gets the sample and the grid's
``bins²`` counts, never more.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rlscore.sessions.cluster.plot_sample import sample_plot
from rlscore.sessions.views.label_page import PoolPlotState
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.store import SessionHandle
from rlscore.viz.figures.pool_figure import pool_figure, sampling_note
from rlscore.viz.plane.geometry import PlaneProjection, plane_projection

#: the keys of a session's plane and density grid in its handle's cache
_PLANE, _DENSITY = "cluster_plane", "cluster_density"


def _plane(handle: SessionHandle, features: np.ndarray) -> PlaneProjection:
    """The plot's plane: fixed at the first draw, so the density grid counted on it stays
    valid and points do not move between redraws."""
    plane = handle.cache.get(_PLANE)
    if plane is None:
        names = [f"φ{j + 1}" for j in range(features.shape[1])]
        plane = handle.cache[_PLANE] = plane_projection(features, names)
    return plane


def _density(handle: SessionHandle, plane: PlaneProjection) -> tuple | None:
    """The whole pool counted on ``plane``'s grid by the workers (once per session); None
    when the plane is not a map of the features (a single feature)."""
    if plane.axes is None:
        return None
    grid = handle.cache.get(_DENSITY)
    if grid is None:
        grid = handle.cache[_DENSITY] = handle.session.engine.density(plane.center, plane.axes)
    return grid


def sample_pool_plot(
    handle: SessionHandle, p: dict, annotator: str, stop_reached: bool
) -> int | None:
    """Draw the sample (the body of the Label page's plot fragment for such a project);
    returns the log version drawn (None: nothing drawn, the error is shown)."""
    s = handle.session
    with report_errors("Drawing a sample of the pool"), handle.lock:
        view = PoolPlotState.for_annotator(s, annotator, int(p["budget"]), stop_reached)
        sample = sample_plot(s, view)
        plane = _plane(handle, sample.features)
        one_feature = plane.axes is None
        xy = plane_projection(sample.features).xy if one_feature else plane.project(sample.features)
        fig = pool_figure(
            xy,
            view.classes,
            sample.labels,
            sample.predicted,
            sample.confidence,
            query=sample.query,
            skipped=sample.skipped,
            axis_titles=plane.axis_titles,
            height=430,
            class_names=s.project.class_names,
            density_counts=_density(handle, plane),
        )
        st.plotly_chart(fig, key="cluster_pool", config={"displaylogo": False})
        what = "PCA projection of their features" if plane.is_pca else "their features"
        st.caption(
            f"A sample of {len(sample.indices):,} of the {s.project.n:,} points, fetched from "
            f"the cluster ({what}, no boundary drawn). Star: the next query."
        )
        if note := sampling_note(fig):
            st.caption(note)
        return view.seen
    return None
