"""Degenerate pools in the plane geometry: one feature, points on a line, duplicates, NaN.

Each case once raised scipy's ``QhullError`` in the browser. References are computed here
independently: the function that generated the values, ``np.interp`` along a line, means of
duplicates by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rlscore.viz.figures.pool_figure import pool_figure
from rlscore.viz.plane import geometry


def _contours(fig: go.Figure) -> list[go.Contour]:
    return [t for t in fig.data if isinstance(t, go.Contour)]


# -- one feature ----------------------------------------------------------------------------
def test_one_feature_is_plotted_against_the_pool_index():
    x = np.array([3.0, -1.0, 3.0, 0.5])
    plane = geometry.plane_projection(x[:, None], ["dose"])
    assert plane.one_feature and not plane.is_pca
    np.testing.assert_array_equal(plane.xy, np.column_stack([x, np.arange(4.0)]))
    assert plane.axis_titles == ("dose", "pool index")
    assert not geometry.plane_projection(np.ones((3, 2))).one_feature
    with pytest.raises(ValueError, match="non-empty 2-D"):
        geometry.plane_projection(np.zeros((3, 0)))


def test_one_feature_grid_surface_scores_the_feature_alone():
    x = np.random.default_rng(0).uniform(-2, 4, 50)
    plane = geometry.plane_projection(x[:, None])
    seen = []

    def decide(Z):
        seen.append(Z.shape)
        return np.column_stack([Z[:, 0] - 1.0, 1.0 - Z[:, 0]])  # two classes, border at 1

    xs, ys, F = geometry.grid_surface(plane.xy, decide, 40, one_feature=True)
    assert seen == [(40, 1)]  # one column of features, once per grid column
    assert xs.min() < x.min() and xs.max() > x.max()
    assert ys.min() < 0 and ys.max() > 49 and len(ys) == 2  # constant along y: two rows do
    assert F.shape == (2, 40, 2)
    np.testing.assert_allclose(F[1, :, 0], xs - 1.0)
    np.testing.assert_array_equal(F[0], F[1])


def test_one_feature_interpolated_surface_follows_the_feature():
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, 30)
    x[5] = x[6]  # a duplicate with another value: averaged
    values = 2.0 * x - 7.0
    values[6] += 1.0
    plane = geometry.plane_projection(x[:, None])
    xs, ys, _ = geometry.grid_points(plane.xy, 25, one_feature=True)
    F = geometry.interpolated_surface(plane.xy, values, xs, ys, one_feature=True)
    assert F.shape == (2, 25)
    inside = (xs >= x.min()) & (xs <= x.max())
    order = np.argsort(x)
    ref_x, ref_v = x[order], values[order]
    merged = np.unique(ref_x)
    ref = np.array([ref_v[ref_x == u].mean() for u in merged])
    np.testing.assert_allclose(F[0, inside], np.interp(xs[inside], merged, ref), atol=1e-9)
    assert np.isnan(F[:, ~inside]).all()  # no data beyond the ends: no boundary there


def test_one_feature_boundary_is_drawn_as_a_vertical_line_where_f_changes_sign():
    x = np.linspace(-3, 3, 61)
    plane = geometry.plane_projection(x[:, None], ["t"])
    grid = geometry.grid_surface(plane.xy, lambda Z: Z[:, 0] - 0.4, 70, one_feature=True)
    fig = pool_figure(plane.xy, [-1, 1], {0: -1, 60: 1}, axis_titles=plane.axis_titles, grid=grid)
    (contour,) = _contours(fig)
    Z = np.asarray(contour.z, dtype=float)
    xs = np.asarray(contour.x, dtype=float)
    for row in Z:  # the same crossing in every row: a vertical line at x = 0.4
        k = np.flatnonzero(np.diff(np.sign(row)))[0]
        crossing = xs[k] - row[k] * (xs[k + 1] - xs[k]) / (row[k + 1] - row[k])
        assert crossing == pytest.approx(0.4, abs=1e-3)
    assert fig.layout.yaxis.title.text == "pool index"


# -- points on a line, duplicates, fewer than three distinct points -------------------------
def test_collinear_pool_is_interpolated_along_its_line():
    t = np.linspace(0.0, 1.0, 40)
    xy = np.column_stack([1.0 + 4.0 * t, -2.0 + 2.0 * t])  # all on one line
    values = 3.0 * t - 1.0  # changes sign at t = 1/3
    xs, ys, _ = geometry.grid_points(xy, 51)
    F = geometry.interpolated_surface(xy, values, xs, ys)
    gx, gy = np.meshgrid(xs, ys)
    direction = np.array([4.0, 2.0]) / np.hypot(4.0, 2.0)
    offset = np.column_stack([gx.ravel() - 1.0, gy.ravel() + 2.0])
    along = offset @ direction / np.hypot(4.0, 2.0)  # t of the grid point's foot on the line
    off = np.linalg.norm(offset - np.outer(along * np.hypot(4.0, 2.0), direction), axis=1)
    near = (along >= 0) & (along <= 1) & (off <= 0.05 * np.hypot(4.0, 2.0) - 1e-9)
    far = (along < 0) | (along > 1) | (off > 0.05 * np.hypot(4.0, 2.0) + 1e-9)
    assert near.sum() > 50
    np.testing.assert_allclose(F.ravel()[near], 3.0 * along[near] - 1.0, atol=1e-9)
    assert np.isnan(F.ravel()[far]).all()


def test_horizontal_pool_draws_its_boundary_across_the_whole_plot():
    x = np.arange(10.0)
    xy = np.column_stack([x, np.full(10, 5.0)])
    xs, ys, _ = geometry.grid_points(xy, 30)
    F = geometry.interpolated_surface(xy, x - 4.5, xs, ys)
    inside = (xs >= 0) & (xs <= 9)
    np.testing.assert_allclose(F[:, inside], np.broadcast_to(xs[inside] - 4.5, (30, inside.sum())))


def test_duplicated_points_are_merged_and_their_values_averaged():
    base = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
    xy = np.vstack([base, base[:2], base[:2]])  # 8 rows, 4 distinct points
    values = np.array([0.0, 1.0, 2.0, 3.0, 1.0, 2.0, 2.0, 0.0])
    means = np.array([(0 + 1 + 2) / 3, (1 + 2 + 0) / 3, 2.0, 3.0])
    xs = ys = np.array([0.0, 2.0])
    F = geometry.interpolated_surface(xy, values, xs, ys)
    np.testing.assert_allclose(F, means.reshape(2, 2), atol=1e-12)


@pytest.mark.parametrize(
    ("xy", "values", "expected"),
    [
        # two distinct points (one duplicated): interpolated between them
        ([[0.0, 0.0], [4.0, 0.0], [4.0, 0.0]], [-1.0, 3.0, 1.0], lambda x: -1.0 + 3.0 * x / 4),
        # two points
        ([[0.0, 0.0], [4.0, 0.0]], [-1.0, 1.0], lambda x: -1.0 + 0.5 * x),
    ],
)
def test_two_distinct_points(xy, values, expected):
    xs = np.linspace(-1, 5, 13)
    F = geometry.interpolated_surface(np.array(xy), np.array(values), xs, np.array([0.0]))
    inside = (xs >= 0) & (xs <= 4)
    np.testing.assert_allclose(F[0, inside], expected(xs[inside]), atol=1e-12)
    assert np.isnan(F[0, ~inside]).all()


@pytest.mark.parametrize("copies", [1, 5])
def test_a_single_distinct_point_gives_no_surface(copies):
    xy = np.tile([[1.0, 2.0]], (copies, 1))
    xs, ys, _ = geometry.grid_points(xy, 9)
    assert np.isnan(geometry.interpolated_surface(xy, np.ones(copies), xs, ys)).all()
    assert np.isnan(
        geometry.interpolated_surface(xy, np.ones((copies, 3)), xs, ys, one_feature=True)
    ).all()


def test_huge_coordinates_do_not_break_the_triangulation():
    rng = np.random.default_rng(2)
    unit = rng.uniform(-1, 1, size=(40, 2))
    values = unit[:, 0] - 0.5 * unit[:, 1]
    xs = ys = np.linspace(-0.5, 0.5, 5)
    F = geometry.interpolated_surface(unit * 1e200, values, xs * 1e200, ys * 1e200)
    gx, gy = np.meshgrid(xs, ys)
    np.testing.assert_allclose(F, gx - 0.5 * gy, atol=1e-9)


def test_a_triangulation_qhull_rejects_falls_back_to_the_line(monkeypatch):
    import scipy.interpolate
    from scipy.spatial import QhullError

    def reject(*args, **kwargs):
        raise QhullError("QH6154 Qhull precision error: initial simplex is flat")

    monkeypatch.setattr(scipy.interpolate, "griddata", reject)
    x = np.linspace(0, 1, 20)
    xy = np.column_stack([x, x + np.where(np.arange(20) % 2, 1e-3, -1e-3)])  # a thin zigzag
    xs = ys = np.linspace(0.1, 0.9, 9)
    F = geometry.interpolated_surface(xy, 4.0 * x - 2.0, xs, ys)
    diagonal = np.diag(F)  # grid points on the line y = x: within the band
    np.testing.assert_allclose(diagonal, 4.0 * xs - 2.0, atol=1e-2)
    assert np.isnan(F[0, -1]) and np.isnan(F[-1, 0])  # far off the line: no surface


# -- values from the engine that are not numbers --------------------------------------------
def test_nan_and_inf_decision_values_are_left_out():
    rng = np.random.default_rng(3)
    xy = rng.uniform(-1, 1, size=(200, 2))
    values = np.column_stack([xy[:, 0], -xy[:, 0]])
    values[:20, 0] = np.nan
    values[20:30, 1] = np.inf
    xs = ys = np.linspace(-0.4, 0.4, 6)
    F = geometry.interpolated_surface(xy, values, xs, ys)
    gx, _ = np.meshgrid(xs, ys)
    # the remaining 170 points still cover the grid: the plane x ↦ (x, −x) is reproduced
    np.testing.assert_allclose(F, np.stack([gx, -gx], axis=2), atol=1e-9)
    all_nan = geometry.interpolated_surface(xy, np.full(200, np.nan), xs, ys)
    assert all_nan.shape == (6, 6) and np.isnan(all_nan).all()


def test_blank_flat_blanks_infinities_so_figures_serialise():
    F = np.array([[1.0, np.inf], [-np.inf, np.nan]])
    np.testing.assert_array_equal(np.isnan(geometry.blank_flat(F)), [[False, True], [True, True]])
    xy = np.array([[0.0, 0.0], [1.0, 1.0]])
    fig = pool_figure(xy, [-1, 1], {0: 1}, grid=(np.arange(2.0), np.arange(2.0), F))
    (contour,) = _contours(fig)
    assert not np.isinf(np.asarray(contour.z, dtype=float)).any()
    assert "Infinity" not in fig.to_json()


def test_grid_points_ignore_rows_that_are_not_finite():
    xy = np.array([[0.0, 0.0], [np.nan, 5.0], [1.0, np.inf], [2.0, 1.0]])
    xs, ys, _ = geometry.grid_points(xy, 5, pad=0.0)
    np.testing.assert_array_equal([xs[0], xs[-1], ys[0], ys[-1]], [0.0, 2.0, 0.0, 1.0])
    xs, ys, _ = geometry.grid_points(np.full((2, 2), np.nan), 3, pad=0.0)
    assert np.isfinite(xs).all() and np.isfinite(ys).all()


_coordinate = st.one_of(
    st.integers(-3, 3).map(float),  # small integers: lines and duplicates are likely
    st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False),
)


@st.composite
def _pools(draw):
    n = draw(st.integers(1, 7))
    xy = draw(arrays(float, (n, 2), elements=_coordinate))
    if draw(st.booleans()):  # force a line
        xy[:, 1] = 2.0 * xy[:, 0] + 1.0
    values = draw(
        arrays(float, (n,), elements=st.one_of(st.floats(-10, 10), st.sampled_from([np.nan])))
    )
    return xy, values


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_pools(), st.booleans())
def test_interpolated_surface_never_raises(pool, one_feature):
    xy, values = pool
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow near 1e308 is allowed
        xs, ys, _ = geometry.grid_points(xy, 6, one_feature=one_feature)
        F = geometry.interpolated_surface(xy, values, xs, ys, one_feature=one_feature)
    assert F.shape == (len(ys), len(xs))
    finite = values[np.isfinite(values)]
    inside = F[np.isfinite(F)]
    if finite.size:  # linear interpolation never leaves the range of the data
        assert np.all(inside >= finite.min() - 1e-9) and np.all(inside <= finite.max() + 1e-9)
    else:
        assert inside.size == 0


# -- density grid ---------------------------------------------------------------------------
def test_density_grid_counts_match_numpy_histogram2d():
    rng = np.random.default_rng(3)
    xy = np.vstack([rng.normal(size=(5000, 2)) * [1.0, 40.0] + [7.0, -3.0], [[np.nan, 0.0]]])
    xy[::97] = xy[0]  # duplicates, one of them the extremes' neighbour
    x_edges, y_edges, counts = geometry.density_grid(xy, bins=37)
    finite = xy[np.isfinite(xy).all(axis=1)]
    ref, ex, ey = np.histogram2d(finite[:, 0], finite[:, 1], bins=37)
    np.testing.assert_allclose(x_edges, ex, rtol=0, atol=1e-12)
    np.testing.assert_allclose(y_edges, ey, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(counts, ref.T)  # rows over y, as a heatmap's z
    assert counts.sum() == 5000 and counts.dtype == np.int64


def test_density_grid_puts_points_on_an_edge_in_the_upper_cell():
    # coordinates exactly on inner edges, the minimum and the maximum
    xy = np.array([[0.0, 0.0], [0.25, 0.5], [0.5, 0.75], [1.0, 1.0], [0.75, 0.25], [0.1, 0.9]])
    x_edges, y_edges, counts = geometry.density_grid(xy, bins=4)
    expected = np.zeros((4, 4), dtype=int)
    for x, y in xy:  # by hand: the cell whose lower edge is the last one ≤ the coordinate
        ix = min(int(np.sum(x_edges[:-1] <= x)) - 1, 3)
        iy = min(int(np.sum(y_edges[:-1] <= y)) - 1, 3)
        expected[iy, ix] += 1
    np.testing.assert_array_equal(counts, expected)
    assert counts[0, 0] == 1 and counts[3, 3] == 1 and counts[2, 1] == 1 and counts[2, 2] == 0


def test_density_grid_of_degenerate_pools():
    x_edges, y_edges, counts = geometry.density_grid(np.full((9, 2), 2.5), bins=3)
    np.testing.assert_allclose(x_edges, [2.5, 2.5 + 1 / 3, 2.5 + 2 / 3, 3.5])
    assert counts[0, 0] == 9 and counts.sum() == 9
    _, _, empty = geometry.density_grid(np.full((4, 2), np.nan), bins=2)
    assert empty.sum() == 0
    for bad in (0, 2.0, True):
        with pytest.raises(ValueError, match="bins"):
            geometry.density_grid(np.zeros((3, 2)), bins=bad)
