"""The pool's picture for a cached session: its 2-D projection and the decision surface.

Both are kept in the session handle's cache (:class:`rlscore.ui.store.SessionHandle`), the
projection for the session's life, the surface until the labels or the engine change.
"""

from __future__ import annotations

import numpy as np

from rlscore.ui.store import SessionHandle
from rlscore.viz.geometry import (
    PlaneProjection,
    grid_points,
    grid_surface,
    interpolated_surface,
    plane_projection,
)


def projection(handle: SessionHandle) -> PlaneProjection:
    """The 2-D coordinates of the session's pool (computed once per session)."""
    if "projection" not in handle.cache:
        project = handle.session.project
        handle.cache["projection"] = plane_projection(project.X, project.feature_names)
    return handle.cache["projection"]


def decision_grid(
    handle: SessionHandle, plane: PlaneProjection, resolution: int = 70
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decision values of the session's engine on a grid over the pool's 2-D ``plane``.

    Exact (``engine.decision_function_at``) when the engine can score new points; otherwise
    (graph kernels, KLR) the pool values interpolated. Cached until the labels change. Call
    it under ``handle.lock``.

    Returns
    -------
    xs, ys, F
        See :func:`rlscore.viz.geometry.grid_surface`.
    """
    s = handle.session
    state = (s.last_event_id, id(s.engine), resolution)
    cached = handle.cache.get("grid")
    if cached is not None and cached[0] == state:
        return cached[1]
    grid = None
    one = plane.one_feature
    at = getattr(s.engine, "decision_function_at", None)
    if at is not None:
        try:
            grid = grid_surface(plane.xy, at, resolution, one_feature=one)
        except ValueError:  # graph kernels are defined on the pool only
            grid = None
    if grid is None:
        xs, ys, _ = grid_points(plane.xy, resolution, one_feature=one)
        values = s.engine.decision_function()
        grid = (xs, ys, interpolated_surface(plane.xy, values, xs, ys, one_feature=one))
    handle.cache["grid"] = (state, grid)
    return grid
