"""The pool plot's cached pictures: the decision grid for an engine on features (the grid's
features mapped once per engine and feature map, the grid equal to the engine's own
``decision_function_at`` on the grid's points after every label, after a restart and for other
engines) and the density layer's grid (counted once, the figure the same as counted afresh)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from rlscore.data.samples.bundled import make_two_moons_imbalanced
from rlscore.query.arls.focused import FocusedARLS
from rlscore.query.arls.lowrank import LowRankARLS
from rlscore.ui.label import pool_picture
from rlscore.ui.label.pool_picture import decision_grid, density_counts
from rlscore.ui.shell.store import SessionHandle
from rlscore.viz.figures.pool_figure import pool_figure
from rlscore.viz.figures.pool_sampling import MAX_POINTS
from rlscore.viz.plane.geometry import grid_surface, plane_projection

RESOLUTION = 30


def _pool():
    X, y = make_two_moons_imbalanced(n_neg=300, n_pos=60, seed=0)
    return X, y


def _handle(engine) -> SessionHandle:
    return SessionHandle(session=SimpleNamespace(engine=engine, last_event_id=0))


def _count_transforms(engine) -> list:
    calls = []
    original = engine.transform

    def counted(Z):
        calls.append(len(Z))
        return original(Z)

    engine.transform = counted
    return calls


def _label(handle: SessionHandle, engine, i: int, y) -> None:
    engine.teach(int(i), y[i])
    handle.session.last_event_id += 1


def test_the_grid_follows_every_label_with_the_features_mapped_once():
    X, y = _pool()
    engine = LowRankARLS(sigma=0.5, lam=0.1, n_landmarks=40, random_state=0).start(X, [-1, 1])
    calls = _count_transforms(engine)
    handle, plane = _handle(engine), plane_projection(X, ["x1", "x2"])
    for i in (0, 1, 2, 300, 301, 5, 302):
        _label(handle, engine, i, y)
        xs, ys, F = decision_grid(handle, plane, RESOLUTION)
        # the reference: the engine's own decision values at the grid's points, mapped afresh
        rx, ry, ref = grid_surface(plane.xy, engine.decision_function_at, RESOLUTION)
        np.testing.assert_array_equal(xs, rx)
        np.testing.assert_array_equal(ys, ry)
        np.testing.assert_allclose(F, ref, rtol=1e-12, atol=1e-12)
    # the reference's calls come in pairs with the grid's: one mapping of the grid in all
    assert calls.count(RESOLUTION**2) == 1 + 7


def test_a_restarted_engine_or_another_engine_maps_the_grid_again():
    X, y = _pool()
    engine = LowRankARLS(sigma=0.5, lam=0.1, n_landmarks=40, random_state=0).start(X, [-1, 1])
    handle, plane = _handle(engine), plane_projection(X, ["x1", "x2"])
    for i in (0, 300):
        _label(handle, engine, i, y)
    decision_grid(handle, plane, RESOLUTION)
    # the same object started again with other landmarks: a new feature map
    engine.random_state = 7
    engine.start(X, [-1, 1])
    for i in (1, 301):
        _label(handle, engine, i, y)
    _, _, F = decision_grid(handle, plane, RESOLUTION)
    _, _, ref = grid_surface(plane.xy, engine.decision_function_at, RESOLUTION)
    np.testing.assert_allclose(F, ref, rtol=1e-12, atol=1e-12)
    # another engine in the same handle
    other = LowRankARLS(sigma=1.0, lam=0.1, n_landmarks=30, random_state=1).start(X, [-1, 1])
    handle.session.engine = other
    for i in (2, 302):
        _label(handle, other, i, y)
    _, _, F = decision_grid(handle, plane, RESOLUTION)
    _, _, ref = grid_surface(plane.xy, other.decision_function_at, RESOLUTION)
    np.testing.assert_allclose(F, ref, rtol=1e-12, atol=1e-12)


def test_an_engine_without_features_scores_the_grid_directly():
    X, y = _pool()
    engine = FocusedARLS(sigma=0.5, lam=0.1).start(X, [-1, 1])
    handle, plane = _handle(engine), plane_projection(X, ["x1", "x2"])
    for i in (0, 300, 1):
        _label(handle, engine, i, y)
    _, _, F = decision_grid(handle, plane, RESOLUTION)
    _, _, ref = grid_surface(plane.xy, engine.decision_function_at, RESOLUTION)
    np.testing.assert_array_equal(F, ref)
    assert "grid_features" not in handle.cache


@pytest.mark.parametrize("classes", [[-1, 1], [0, 1, 2]])
def test_decision_values_of_features_are_the_pools_own(classes):
    X, y = _pool()
    y = y if len(classes) == 2 else np.arange(len(y)) % 3
    engine = LowRankARLS(sigma=0.5, lam=0.1, n_landmarks=40, random_state=0).start(X, classes)
    for i in (0, 1, 2, 300, 301, 302):
        engine.teach(i, y[i])
    # the pool's decision values are kept by rank-one updates: an independent path
    np.testing.assert_allclose(
        engine.decision_function_of_features(engine.features_),
        engine.decision_function(),
        rtol=1e-9,
        atol=1e-9,
    )


def test_the_density_layer_is_counted_once_and_drawn_as_counted_afresh(monkeypatch):
    rng = np.random.default_rng(3)
    xy = rng.normal(size=(MAX_POINTS + 500, 2))
    plane = plane_projection(xy, ["x1", "x2"])
    counted = []
    original = pool_picture.density_grid
    monkeypatch.setattr(pool_picture, "density_grid", lambda *a: counted.append(1) or original(*a))
    handle = _handle(None)
    labels = {int(i): 1 for i in range(0, 200, 2)}
    for _ in range(3):
        given = density_counts(handle, plane, xy.shape[0] - len(labels))
        cached = pool_figure(xy, [-1, 1], labels, density_counts=given)
    assert counted == [1]
    # the reference: the figure counting the layer itself from the points
    assert cached.to_json() == pool_figure(xy, [-1, 1], labels).to_json()
    # no layer once the unlabeled points fit (the figure's own rule)
    assert density_counts(handle, plane, MAX_POINTS) is None
    fitting = {int(i): 1 for i in range(600)}
    assert not any(t.type == "heatmap" for t in pool_figure(xy, [-1, 1], fitting).data)


def test_a_one_feature_pool_gets_the_grid_of_all_its_points():
    X, y = _pool()
    X1 = X[:, :1]
    engine = LowRankARLS(sigma=0.5, lam=0.1, n_landmarks=30, random_state=0).start(X1, [-1, 1])
    handle, plane = _handle(engine), plane_projection(X1, ["x1"])
    assert plane.one_feature
    for i in (0, 300, 1):
        _label(handle, engine, i, y)
    xs, ys, F = decision_grid(handle, plane, RESOLUTION)
    rx, ry, ref = grid_surface(plane.xy, engine.decision_function_at, RESOLUTION, one_feature=True)
    np.testing.assert_array_equal(xs, rx)
    np.testing.assert_array_equal(ys, ry)
    np.testing.assert_allclose(F, ref, rtol=1e-12, atol=1e-12)
