"""The pool plot's density layer from a grid counted elsewhere (issue 26): a cluster-backed
project counts its pool on the workers and the plot draws only a sample over that grid.

The reference counts are :func:`numpy.histogram2d` on the same points, written here; the
in-memory layer is :func:`rlscore.viz.figures.pool_figure.pool_figure` counting the points
itself. Both must draw the same layer (one drawing code), and the figure from a grid must send
the sample and the grid's cells only, whatever the pool's size.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from rlscore.query.cluster.block_passes import block_histogram
from rlscore.viz.figures.pool_figure import pool_figure, sampling_note
from rlscore.viz.plane.geometry import plane_projection

BINS = 40


def _heatmap(fig: go.Figure) -> go.Heatmap:
    (heat,) = [t for t in fig.data if isinstance(t, go.Heatmap)]
    return heat


def _reference_grid(xy: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``numpy.histogram2d`` over the points' extent: edges (bins + 1,), counts (y, x)."""
    x_edges = np.linspace(xy[:, 0].min(), xy[:, 0].max(), bins + 1)
    y_edges = np.linspace(xy[:, 1].min(), xy[:, 1].max(), bins + 1)
    counts, _, _ = np.histogram2d(xy[:, 0], xy[:, 1], bins=[x_edges, y_edges])
    return x_edges, y_edges, counts.T.astype(np.int64)


def _assert_same_layer(a: go.Heatmap, b: go.Heatmap) -> None:
    np.testing.assert_array_equal(np.asarray(a.z), np.asarray(b.z))
    np.testing.assert_allclose(np.asarray(a.x, float), np.asarray(b.x, float), rtol=1e-9)
    np.testing.assert_allclose(np.asarray(a.y, float), np.asarray(b.y, float), rtol=1e-9)
    assert (a.zmin, a.zmax, a.name) == (b.zmin, b.zmax, b.name)
    assert a.colorscale == b.colorscale and a.hovertemplate == b.hovertemplate


@pytest.fixture
def pool():
    rng = np.random.default_rng(2601)
    xy = np.vstack([rng.normal(size=(6000, 2)), rng.normal(3.0, 0.3, size=(2000, 2))])
    return xy


def test_a_precomputed_grid_draws_the_in_memory_density_layer(pool):
    n = pool.shape[0]
    in_memory = pool_figure(pool, [0, 1], {}, density=True, density_bins=BINS)
    grid = _reference_grid(pool, BINS)
    sample = np.sort(np.random.default_rng(1).choice(n, 300, replace=False))
    given = pool_figure(pool[sample], [0, 1], {}, density_counts=grid)
    _assert_same_layer(_heatmap(given), _heatmap(in_memory))
    # the in-memory counts are the reference's, and every point is counted
    np.testing.assert_array_equal(np.asarray(_heatmap(in_memory).z), grid[2])
    assert in_memory.layout.meta["density_points"] == n
    assert given.layout.meta["density_points"] == n


def test_the_workers_block_counts_draw_the_in_memory_layer(pool):
    """The cluster's per-block counts (:func:`~rlscore.query.cluster.block_passes.block_histogram`
    on row blocks of the features, projected by the plane's map) summed: the same layer as the
    in-memory plot of the projected pool."""
    rng = np.random.default_rng(7)
    features = np.column_stack([pool, rng.normal(size=(pool.shape[0], 3))])
    plane = plane_projection(features)
    in_memory = pool_figure(plane.xy, [0, 1], {}, density=True, density_bins=BINS)
    heat = _heatmap(in_memory)
    x_edges, y_edges, _ = _reference_grid(plane.xy, BINS)
    blocks = np.array_split(np.arange(features.shape[0]), 5)
    counts = sum(
        block_histogram(features[b], int(b[0]), plane.center, plane.axes, x_edges, y_edges)
        for b in blocks
    )
    given = pool_figure(plane.xy[:50], [0, 1], {}, density_counts=(x_edges, y_edges, counts))
    _assert_same_layer(_heatmap(given), heat)


def test_a_figure_from_a_grid_sends_the_sample_and_the_cells_only():
    rng = np.random.default_rng(3)
    sample = rng.normal(size=(400, 2))
    x_edges = np.linspace(-4, 4, BINS + 1)
    counts = rng.integers(0, 5000, size=(BINS, BINS))  # a pool of millions counted elsewhere
    fig = pool_figure(
        sample, [0, 1], {3: 1, 8: 0}, query=5, density_counts=(x_edges, x_edges, counts)
    )
    scatters = [t for t in fig.data if not isinstance(t, go.Heatmap)]
    # the sample's points (the query once more, as the star) and nothing else
    assert sum(len(t.x) for t in scatters) == sample.shape[0] + 1
    drawn = np.concatenate([np.asarray(t.customdata, dtype=int) for t in scatters])
    assert set(drawn.tolist()) == set(range(400))
    assert np.asarray(_heatmap(fig).z).size == BINS * BINS
    meta = fig.layout.meta
    assert meta["points_drawn"] == 400 and meta["density_points"] == int(counts.sum())
    assert str(meta["density_points"]) in sampling_note(fig).replace(",", "")


@pytest.mark.parametrize(
    "grid, message",
    [
        ((np.arange(4.0), np.arange(4.0), np.ones((2, 3))), "shape"),
        ((np.arange(4.0), np.arange(3.0), np.ones((3, 3))), "shape"),
        ((np.arange(4.0), np.arange(4.0), -np.ones((3, 3))), "non-negative integers"),
        ((np.arange(4.0), np.arange(4.0), np.full((3, 3), 0.5)), "non-negative integers"),
        ((np.array([0.0, 2.0, 1.0]), np.arange(3.0), np.ones((2, 2))), "increasing"),
        ((np.array([0.0, np.nan]), np.arange(2.0), np.ones((1, 1))), "increasing"),
    ],
)
def test_a_grid_that_is_not_a_count_grid_is_refused(grid, message):
    with pytest.raises(ValueError, match=message):
        pool_figure(np.zeros((3, 2)), [0, 1], {}, density_counts=grid)


def test_density_false_with_a_grid_is_refused():
    grid = (np.arange(3.0), np.arange(3.0), np.ones((2, 2), int))
    with pytest.raises(ValueError, match="density=False"):
        pool_figure(np.zeros((3, 2)), [0, 1], {}, density=False, density_counts=grid)


@pytest.mark.parametrize("d", [2, 5])
def test_the_plane_projects_other_rows_by_its_map(d):
    rng = np.random.default_rng(d)
    X = rng.normal(size=(200, d))
    plane = plane_projection(X[:150])
    np.testing.assert_allclose(plane.project(X[:150]), plane.xy, atol=1e-12)
    # another row: centred by the first rows' mean, on their principal axes (or the data)
    if d == 2:
        expected = X[150:]
    else:
        mean = X[:150].mean(axis=0)
        _, _, vt = np.linalg.svd(X[:150] - mean, full_matrices=False)
        expected = (X[150:] - mean) @ vt[:2].T
        expected *= np.sign(np.sum(expected * plane.project(X[150:]), axis=0))  # SVD signs
    np.testing.assert_allclose(plane.project(X[150:]), expected, atol=1e-10)


def test_one_feature_has_no_map():
    plane = plane_projection(np.arange(5.0).reshape(-1, 1))
    assert plane.axes is None
    with pytest.raises(ValueError, match="one feature"):
        plane.project(np.zeros((2, 1)))
