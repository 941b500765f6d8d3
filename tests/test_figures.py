"""Tests of the plotly figure builders (pure functions, no Streamlit)."""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from sklearn.decomposition import PCA

from rlscore.core.rls.confidence import reliability_table
from rlscore.viz.figures.curves import learning_curves_figure, loo_curve_figure, risk_history_figure
from rlscore.viz.figures.histograms import confidence_histogram, reliability_figure
from rlscore.viz.figures.palette import class_color
from rlscore.viz.figures.pool_figure import pool_figure, sampling_note
from rlscore.viz.figures.pool_points import clicked_index
from rlscore.viz.figures.pool_sampling import DENSITY_SAMPLE, MAX_POINTS
from rlscore.viz.plane import geometry


def _point_traces(fig: go.Figure) -> list:
    return [t for t in fig.data if isinstance(t, go.Scatter) and t.customdata is not None]


def _indices(trace) -> list[int]:
    return [int(i) for i in trace.customdata]


def _trace(fig: go.Figure, name: str):
    matches = [t for t in fig.data if t.name == name]
    assert len(matches) == 1, f"expected one trace named {name!r}, got {[t.name for t in fig.data]}"
    return matches[0]


# -- projection and grids -------------------------------------------------------------------
def test_plane_projection_keeps_2d_data_and_names_axes():
    X = np.random.default_rng(0).normal(size=(30, 2))
    plane = geometry.plane_projection(X, ["a", "b"])
    assert not plane.is_pca
    np.testing.assert_array_equal(plane.xy, X)
    assert plane.axis_titles == ("a", "b")


def test_plane_projection_is_pca_for_high_dimensional_data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 5)) * np.array([5.0, 3.0, 1.0, 0.5, 0.1])
    plane = geometry.plane_projection(X)
    ref = PCA(n_components=2).fit(X)
    expected = ref.transform(X)
    # principal axes are defined up to sign
    for k in range(2):
        sign = np.sign(plane.xy[:, k] @ expected[:, k])
        np.testing.assert_allclose(sign * plane.xy[:, k], expected[:, k], atol=1e-9)
    np.testing.assert_allclose(plane.explained, ref.explained_variance_ratio_, rtol=1e-9)
    assert plane.is_pca and plane.axis_titles[0].startswith("PC1")


def test_plane_projection_one_feature_and_bad_input():
    plane = geometry.plane_projection(np.arange(4.0)[:, None], ["only"])
    # one feature is plotted against the pool index (it used to be against 0)
    assert plane.xy.shape == (4, 2) and plane.one_feature
    np.testing.assert_array_equal(plane.xy[:, 1], np.arange(4.0))
    with pytest.raises(ValueError, match="non-empty 2-D"):
        geometry.plane_projection(np.zeros((0, 3)))


def test_grid_points_cover_the_data_row_major():
    xy = np.array([[0.0, -1.0], [2.0, 3.0], [1.0, 0.0]])
    xs, ys, pts = geometry.grid_points(xy, resolution=11)
    assert xs.min() < 0.0 and xs.max() > 2.0 and ys.min() < -1.0 and ys.max() > 3.0
    grid = pts.reshape(11, 11, 2)
    assert grid[3, 5, 0] == xs[5] and grid[3, 5, 1] == ys[3]


def test_margin_surfaces_zero_level_is_the_argmax_border():
    F = np.random.default_rng(2).normal(size=(9, 9, 3))
    surfaces = geometry.margin_surfaces(F)
    winner = F.argmax(axis=2)
    for t in range(3):
        np.testing.assert_array_equal(surfaces[t] > 0, winner == t)
    np.testing.assert_array_equal(geometry.margin_surfaces(F[:, :, 0])[0], F[:, :, 0])
    with pytest.raises(ValueError, match="decision values"):
        geometry.margin_surfaces(np.zeros(5))


def test_interpolated_surface_reproduces_a_linear_function_and_is_nan_outside():
    rng = np.random.default_rng(3)
    xy = rng.uniform(-1, 1, size=(300, 2))
    values = 2.0 * xy[:, 0] - xy[:, 1] + 0.5
    xs = np.linspace(-0.5, 0.5, 7)
    ys = np.linspace(-0.5, 0.5, 5)
    F = geometry.interpolated_surface(xy, values, xs, ys)
    gx, gy = np.meshgrid(xs, ys)
    np.testing.assert_allclose(F, 2.0 * gx - gy + 0.5, atol=1e-9)
    far = geometry.interpolated_surface(xy, values, np.array([5.0]), np.array([5.0]))
    assert np.isnan(far).all()


def test_blank_flat_hides_boundaries_where_the_model_has_decayed_to_zero():
    xs = np.linspace(0, 60, 61)
    F = np.exp(-((xs[None, :] - 0.0) ** 2) / (2 * 1.7**2)) * np.ones((5, 1))  # one +1 label
    Z = geometry.blank_flat(F)
    assert np.isnan(Z[:, 40:]).all()  # underflowed / negligible: no contour possible there
    np.testing.assert_array_equal(Z[:, :5], F[:, :5])
    fig = pool_figure(
        np.column_stack([xs, np.zeros(61)]), [-1, 1], {0: 1}, grid=(xs, np.arange(5.0), F)
    )
    contour = next(t for t in fig.data if isinstance(t, go.Contour))
    assert np.isnan(np.asarray(contour.z, dtype=float)[:, 40:]).all()


# -- the pool scatter -----------------------------------------------------------------------
def _pool(n=40, seed=4):
    rng = np.random.default_rng(seed)
    xy = rng.normal(size=(n, 2))
    predicted = np.where(xy[:, 0] > 0, 1, -1)
    confidence = np.clip(0.5 + np.abs(xy[:, 0]) / 4, 0.5, 1.0)
    confidence[:3] = 0.5  # undecided
    return xy, predicted, confidence


def test_pool_figure_draws_every_point_once_with_its_index():
    xy, predicted, confidence = _pool()
    labels = {5: 1, 9: -1, 12: 1}
    fig = pool_figure(
        xy, [-1, 1], labels, predicted, confidence, query=20, selected=21, skipped=[7, 5]
    )
    base = [t for t in _point_traces(fig) if t.name not in ("next query", "selected")]
    drawn = sorted(i for t in base for i in _indices(t))
    assert drawn == list(range(len(xy)))  # 5 is labeled, so not also drawn as skipped
    assert _indices(_trace(fig, "labeled 1")) == [5, 12]
    assert _indices(_trace(fig, "labeled -1")) == [9]
    assert _indices(_trace(fig, "skipped")) == [7]
    assert _indices(_trace(fig, "next query")) == [20]
    assert _indices(_trace(fig, "selected")) == [21]
    assert set(_indices(_trace(fig, "unlabeled (undecided)"))) == {0, 1, 2}
    for name, cls in (("predicted 1", 1), ("predicted -1", -1)):
        members = _indices(_trace(fig, name))
        assert members and all(predicted[i] == cls for i in members)
    # coordinates follow the indices, to 5 significant digits of the axis' extent
    t = _trace(fig, "labeled 1")
    tolerance = 1e-4 * np.ptp(xy, axis=0)
    assert np.all(np.abs(np.column_stack([t.x, t.y]) - xy[[5, 12]]) <= tolerance)


def test_pool_figure_tints_by_confidence_and_colours_classes_consistently():
    xy, predicted, confidence = _pool()
    fig = pool_figure(xy, [-1, 1], {0: 1}, predicted, confidence)
    t = _trace(fig, "predicted 1")
    opacity = np.asarray(t.marker.opacity)
    conf = confidence[_indices(t)]
    order = np.argsort(conf)
    assert np.all(np.diff(opacity[order]) >= -1e-12)  # more confident, more opaque
    assert t.marker.color == _trace(fig, "labeled 1").marker.color == class_color(1)
    assert _trace(fig, "predicted -1").marker.color == class_color(0)


def test_pool_figure_without_predictions_and_with_boundary():
    xy, _, _ = _pool()
    xs, ys, pts = geometry.grid_points(xy, 20)
    F = (pts[:, 0] - 0.1).reshape(20, 20)
    fig = pool_figure(xy, [-1, 1], {}, grid=(xs, ys, F), confidence_contours=True)
    contours = [t for t in fig.data if isinstance(t, go.Contour)]
    # f = ±0.5 is one trace with two levels (it was two traces with the same grid)
    assert [(c.contours.start, c.contours.end) for c in contours] == [(0.0, 0.0), (-0.5, 0.5)]
    assert contours[1].contours.size == 1.0
    assert _indices(_trace(fig, "unlabeled")) == list(range(len(xy)))
    multi = pool_figure(xy, ["a", "b", "c"], {}, grid=(xs, ys, np.zeros((20, 20, 3))))
    assert sum(isinstance(t, go.Contour) for t in multi.data) == 3


def test_clicked_index_reads_plotly_points():
    assert clicked_index({"customdata": 17, "x": 0.1}) == 17
    assert clicked_index({"customdata": [4]}) == 4
    assert clicked_index({"x": 1.0}) is None  # e.g. a contour line
    assert clicked_index({"customdata": "nope"}) is None


def _json_array(value) -> np.ndarray:
    """An array of a figure's JSON as the browser reads it: a plotly >= 6 typed array
    (``{"dtype", "bdata"[, "shape"]}``, base64 of the raw bytes) or a plain JSON list."""
    if isinstance(value, dict):
        raw = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        return raw.reshape([int(k) for k in str(shape).split(",")]) if shape else raw
    return np.asarray(value)


@pytest.mark.parametrize("offset", [0.0, 1e5])
def test_pool_figure_serialises(offset):
    """The figure's JSON, decoded independently of plotly: every pool point once, at its
    coordinates (to 5 significant digits of the extent, also far from 0, where float32 would
    not hold them), with its own index; the labeled point and the query where they belong."""
    xy, predicted, confidence = _pool()
    xy = xy + offset
    fig = pool_figure(xy, [-1, 1], {1: -1}, predicted, confidence, query=2)
    traces = {t["name"]: t for t in json.loads(fig.to_json())["data"] if "customdata" in t}
    tolerance = 1e-4 * np.ptp(xy, axis=0)
    drawn = []
    for name, t in traces.items():
        index = _json_array(t["customdata"]).astype(int)
        at = np.column_stack([_json_array(t["x"]), _json_array(t["y"])])
        assert np.all(np.abs(at - xy[index]) <= tolerance), name
        if name != "next query":
            drawn += index.tolist()
    assert sorted(drawn) == list(range(len(xy)))
    assert _json_array(traces["labeled -1"]["customdata"]).tolist() == [1]
    assert _json_array(traces["next query"]["customdata"]).tolist() == [2]


# -- other figures --------------------------------------------------------------------------
def test_image_array_blocks_and_dark_means_large():
    values = np.arange(64.0)
    img = geometry.image_array(values, [8, 8], scale=4)
    assert img.shape == (32, 32) and img.dtype == np.uint8
    assert img[0, 0] == 255 and img[-1, -1] == 0  # smallest value white, largest black
    np.testing.assert_array_equal(img[4:8, 8:12], img[4, 8])  # one feature = one 4×4 block
    assert img[4, 8] == round(255 * (1 - 10 / 63))  # feature (1, 2) = value 10
    np.testing.assert_array_equal(geometry.image_array(np.ones(4), [2, 2], scale=1), 255)
    with pytest.raises(ValueError, match="cannot show 10 features"):
        geometry.image_array(np.arange(10.0), [8, 8])


def test_loo_curve_figure_marks_current_and_auto_lambda_on_log_axis():
    lams = np.geomspace(1e-3, 10, 30)
    sq = (np.log10(lams) + 1) ** 2 + 0.1
    cls = np.linspace(0.4, 0.1, 30)
    fig = loo_curve_figure(lams, sq, cls, lam_current=0.5, lam_auto=lams[8])
    assert fig.layout.xaxis.type == "log"
    auto = [t for t in fig.data if t.name and t.name.startswith("automatic λ")][0]
    assert auto.x[0] == lams[8] and auto.y[0] == sq[8]
    current = [t for t in fig.data if t.name and t.name.startswith("current λ")][0]
    assert current.y[0] == sq[np.argmin(np.abs(np.log(lams) - np.log(0.5)))]
    assert len(fig.layout.shapes) == 2
    with pytest.raises(ValueError, match="same length"):
        loo_curve_figure(lams, sq[:-1], cls)


def test_confidence_histogram_counts():
    conf = np.array([0.51, 0.52, 0.97, 0.99, 0.99, 0.75])
    fig = confidence_histogram(conf, bins=4)
    np.testing.assert_array_equal(fig.data[0].y, [0, 0, 2, 4])  # 0.75 falls in the last bin


def test_reliability_figure_skips_empty_bins_and_checks_columns():
    conf = np.array([0.55, 0.58, 0.91, 0.95, 0.99])
    correct = np.array([True, False, True, True, False])
    table = reliability_table(conf, correct, bins=5)
    fig = reliability_figure(table)
    np.testing.assert_allclose(fig.data[0].x, [0.5, 0.9])  # bin centres of the non-empty bins
    np.testing.assert_allclose(fig.data[0].y, [0.5, 2 / 3])
    assert list(fig.data[0].text) == ["n=2", "n=3"]
    with pytest.raises(ValueError, match="accuracy"):
        reliability_figure(table.drop(columns="accuracy"))


def test_learning_curves_mean_and_sd_over_seeds():
    rows = []
    for strategy, offset in (("arls", 0.0), ("random", 0.2)):
        for seed in range(3):
            for n in (1, 2, 3):
                rows.append(
                    {"strategy": strategy, "seed": seed, "n_labeled": n, "error": offset + seed / n}
                )
    runs = pd.DataFrame(rows)
    summary = geometry.summarize_curves(runs, "error")
    at = summary[(summary.strategy == "random") & (summary.n_labeled == 2)].iloc[0]
    values = 0.2 + np.arange(3) / 2
    assert at["mean"] == pytest.approx(values.mean())
    assert at["sd"] == pytest.approx(values.std(ddof=1))
    assert at["runs"] == 3
    fig = learning_curves_figure(runs, "error", y_title="validation error")
    lines = [t for t in fig.data if t.mode == "lines"]
    assert [t.name for t in lines] == ["arls", "random"]
    np.testing.assert_allclose(lines[0].y, [1.0, 0.5, 1 / 3])
    with pytest.raises(ValueError, match="lack columns"):
        geometry.summarize_curves(runs, "missing")


def test_risk_history_figure_with_validation_axis():
    fig = risk_history_figure([3.0, 2.0, 1.5], [0.3, 0.2, 0.1])
    assert [t.name for t in fig.data] == ["estimated risk", "validation error"]
    assert fig.data[1].yaxis == "y2"
    assert list(fig.data[0].x) == [0, 1, 2]  # after 0, 1, 2 labels


def test_large_pools_use_webgl_for_every_point_trace():
    xy, predicted, confidence = _pool(n=1500)
    fig = pool_figure(xy, [-1, 1], {1: 1}, predicted, confidence, query=2, skipped=[3])
    points = [t for t in fig.data if t.customdata is not None]
    assert points and all(isinstance(t, go.Scattergl) for t in points)
    small = pool_figure(xy[:50], [-1, 1], {1: 1}, predicted[:50], confidence[:50])
    assert not any(isinstance(t, go.Scattergl) for t in small.data)


# -- class names, escaping ------------------------------------------------------------------
def _strings(node) -> list[str]:
    """Every string in a parsed figure JSON."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


def test_pool_figure_names_classes_in_legends_and_hover_labels():
    xy, predicted, _ = _pool()
    predicted = np.where(predicted > 0, 2, 1)
    fig = pool_figure(xy, [1, 2], {0: 1, 1: 2}, predicted, class_names={"1": "one", "2": "two"})
    names = {t.name for t in fig.data}
    assert {"predicted one", "predicted two", "labeled one", "labeled two"} <= names
    assert not names & {"predicted 1", "predicted 2", "labeled 1", "labeled 2"}
    for t in _point_traces(fig):  # the hover label shows the trace's name: the class name
        assert t.hovertemplate.endswith("<extra>%{fullData.name}</extra>")
    partial = pool_figure(xy, [1, 2], {0: 1}, predicted, class_names={"1": "one"})
    assert {"predicted one", "predicted 2"} <= {t.name for t in partial.data}


def test_user_strings_reach_the_figure_as_text_not_html():
    xy, predicted, confidence = _pool()
    link, image = '<a href="http://x">y</a>', "<img src=x>"
    predicted = np.where(predicted > 0, "b", "a")
    fig = pool_figure(
        xy,
        ["a", "b"],
        {0: "a", 1: "b"},
        predicted,
        confidence,
        class_names={"a": link, "b": image},
        axis_titles=("<b>R&D</b>", "<br>"),
        title="<span style='color:red'>t</span>",
    )
    parsed = json.loads(fig.to_json())
    names = {t.get("name") for t in parsed["data"]}
    assert 'predicted &lt;a href="http://x"&gt;y&lt;/a&gt;' in names
    assert "labeled &lt;img src=x&gt;" in names
    layout = parsed["layout"]
    assert layout["xaxis"]["title"]["text"] == "&lt;b&gt;R&amp;D&lt;/b&gt;"
    assert layout["yaxis"]["title"]["text"] == "&lt;br&gt;"
    assert layout["title"]["text"] == "&lt;span style='color:red'&gt;t&lt;/span&gt;"
    for text in _strings(parsed["data"]) + _strings({k: layout[k] for k in ("xaxis", "yaxis")}):
        bare = text.replace("<extra>", "").replace("</extra>", "")  # our own hover template
        assert not any(tag in bare for tag in ("<a", "<img", "<b>", "<br>", "<span")), text
    runs = pd.DataFrame({"strategy": ["<i>x</i>"] * 2, "n_labeled": [1, 2], "error": [0.5, 0.4]})
    curves = learning_curves_figure(runs, "error")
    assert {t.name for t in curves.data} == {"&lt;i&gt;x&lt;/i&gt;", "&lt;i&gt;x&lt;/i&gt; ± sd"}


# -- large pools ----------------------------------------------------------------------------
def _drawn(fig: go.Figure) -> dict[str, list[int]]:
    return {t.name: _indices(t) for t in fig.data if getattr(t, "customdata", None) is not None}


def test_large_pools_draw_a_bounded_sample_and_every_labeled_point():
    n = 200_000
    rng = np.random.default_rng(5)
    xy = rng.normal(size=(n, 2))
    predicted = np.where(xy[:, 0] > 0, 1, -1)
    confidence = rng.uniform(0.5, 1.0, n)
    chosen = rng.choice(n, 700, replace=False)
    labels = {int(i): int(predicted[i]) for i in chosen[:500]}
    skipped = [int(i) for i in chosen[500:690]]
    query, selected = int(chosen[690]), int(chosen[691])
    # the sample alone (the density layer is tested below)
    kwargs = dict(query=query, selected=selected, skipped=skipped, density=False)
    fig = pool_figure(xy, [-1, 1], labels, predicted, confidence, **kwargs)
    assert len(fig.to_json()) < 3_000_000
    drawn = _drawn(fig)
    everything = {i for members in drawn.values() for i in members}
    assert set(labels) | set(skipped) | {query, selected} <= everything
    tinted = [m for name, m in drawn.items() if name.startswith(("predicted", "unlabeled"))]
    unlabeled = [i for members in tinted for i in members]
    assert len(unlabeled) == MAX_POINTS == len(set(unlabeled))
    assert not set(unlabeled) & (set(labels) | set(skipped))
    assert {query, selected} <= set(unlabeled)  # clickable in the scatter, not only as marks
    meta = fig.layout.meta
    assert meta["points_total"] == n and meta["unlabeled_total"] == n - 690
    assert meta["unlabeled_drawn"] == MAX_POINTS
    assert meta["points_drawn"] == MAX_POINTS + 690
    assert "20,000 of the 199,310" in sampling_note(fig)
    # a click on any drawn point maps back to its pool index and position
    trace = next(t for t in fig.data if t.name == "predicted 1")
    k = len(trace.customdata) // 2
    i = clicked_index({"customdata": trace.customdata[k], "x": trace.x[k]})
    assert i == trace.customdata[k] and trace.x[k] == pytest.approx(xy[i, 0], abs=1e-3)
    # the same sample on every run
    again = pool_figure(xy, [-1, 1], labels, predicted, confidence, **kwargs)
    assert _drawn(again) == drawn


def _heatmaps(fig: go.Figure) -> list[go.Heatmap]:
    return [t for t in fig.data if isinstance(t, go.Heatmap)]


def test_a_million_points_send_a_density_grid_and_a_bounded_sample():
    n = 1_000_000
    rng = np.random.default_rng(8)
    xy = rng.standard_t(3, size=(n, 2))  # heavy tails: cells from one point to thousands
    predicted = np.where(xy[:, 0] > 0, 1, -1)
    confidence = rng.uniform(0.5, 1.0, n)
    chosen = rng.choice(n, 402, replace=False)
    labels = {int(i): int(predicted[i]) for i in chosen[:300]}
    skipped = [int(i) for i in chosen[300:400]]
    query, selected = int(chosen[400]), int(chosen[401])
    fig = pool_figure(
        xy, [-1, 1], labels, predicted, confidence, query=query, selected=selected,
        skipped=skipped,
    )  # fmt: skip
    # the payload: the points of the scatter traces and the cells of one heatmap, whatever n
    sent = sum(len(t.x) for t in fig.data if not isinstance(t, go.Heatmap))
    assert sent == DENSITY_SAMPLE + 300 + 100 + 2  # + the query's and selection's marks
    (heat,) = _heatmaps(fig)
    z = np.asarray(heat.z)
    bins = geometry.DENSITY_BINS
    assert z.shape == (bins, bins) and len(heat.x) == len(heat.y) == bins + 1
    assert len(fig.to_json()) < 1_000_000
    # every pool point is counted once, in the cell numpy puts it in
    assert int(z.sum()) == n
    ref, _, _ = np.histogram2d(xy[:, 0], xy[:, 1], bins=bins)
    np.testing.assert_array_equal(z, ref.T)
    # every labeled and skipped point, the query and the selected point are markers
    drawn = _drawn(fig)
    everything = {i for members in drawn.values() for i in members}
    assert set(labels) | set(skipped) | {query, selected} <= everything
    assert _indices(_trace(fig, "next query")) == [query]
    assert _indices(_trace(fig, "labeled 1")) == sorted(i for i, c in labels.items() if c == 1)
    meta = fig.layout.meta
    assert meta["density_points"] == n and meta["unlabeled_drawn"] == DENSITY_SAMPLE
    note = sampling_note(fig)
    assert "1,000,000 pool points" in note and "5,000 of the 999,600" in note
    assert heat.name in {t.name for t in fig.data if t.showlegend is not False}


def test_the_density_layer_is_drawn_only_when_the_pool_is_sampled():
    xy, predicted, confidence = _pool(n=300)
    small = pool_figure(xy, [-1, 1], {}, predicted, confidence)
    assert not _heatmaps(small) and small.layout.meta["density_points"] is None
    assert sampling_note(small) is None
    sampled = pool_figure(xy, [-1, 1], {}, predicted, confidence, max_points=100)
    (heat,) = _heatmaps(sampled)
    assert int(np.asarray(heat.z).sum()) == 300
    # over the density layer at most min(max_points, density_sample) unlabeled points
    assert sum(len(m) for m in _drawn(sampled).values()) == 100
    fewer = pool_figure(xy, [-1, 1], {}, max_points=100, density_sample=30)
    assert sum(len(m) for m in _drawn(fewer).values()) == 30
    # asked for on a small pool: every point drawn, and the shading explained
    forced = pool_figure(xy, [-1, 1], {3: 1}, density=True, density_bins=7)
    assert np.asarray(_heatmaps(forced)[0].z).shape == (7, 7)
    assert sum(len(m) for m in _drawn(forced).values()) == 300
    assert sampling_note(forced).startswith("Shading: how many of the 300 pool points")
    with pytest.raises(ValueError, match="density_sample"):
        pool_figure(xy, [-1, 1], {}, density=True, density_sample=-1)


def test_the_density_shade_grows_with_the_log_of_the_count():
    xy = np.array([[0.0, 0.0]] * 1000 + [[1.0, 1.0]] * 10 + [[0.0, 1.0]])
    fig = pool_figure(xy, [0, 1], {}, density=True, density_bins=2)
    (heat,) = _heatmaps(fig)
    np.testing.assert_array_equal(np.asarray(heat.z), [[1000, 0], [1, 10]])
    stops = [(float(p), c) for p, c in heat.colorscale]
    assert stops[0] == (0.0, "rgba(0,0,0,0)")  # an empty cell is transparent
    # a cell of one point is shaded at 1/top, one of top^(1/2) halfway along the shades
    positions = [p for p, _ in stops[1:]]
    assert positions[0] == pytest.approx(1 / 1000) and positions[-1] == pytest.approx(1.0)
    assert positions[len(positions) // 2] == pytest.approx(1000**0.5 / 1000)
    assert heat.zmin == 0 and heat.zmax == 1000


def test_the_sample_changes_by_one_point_when_a_point_is_labeled():
    xy, predicted, confidence = _pool(n=300)
    before = pool_figure(xy, [-1, 1], {}, predicted, confidence, max_points=50)
    shown = {i for m in _drawn(before).values() for i in m}
    assert len(shown) == 50 and sampling_note(before) is not None
    i = min(shown)
    after = pool_figure(xy, [-1, 1], {i: 1}, predicted, confidence, max_points=50)
    unlabeled_after = {
        j for name, m in _drawn(after).items() if not name.startswith("labeled") for j in m
    }
    assert len(unlabeled_after) == 50 and len(unlabeled_after - shown) == 1
    other = pool_figure(xy, [-1, 1], {}, max_points=50, sample_seed=1)
    assert {j for m in _drawn(other).values() for j in m} != shown
    everything = pool_figure(xy, [-1, 1], {}, predicted, confidence, max_points=None)
    assert sampling_note(everything) is None
    assert sum(len(m) for m in _drawn(everything).values()) == 300
    with pytest.raises(ValueError, match="max_points"):
        pool_figure(xy, [-1, 1], {}, max_points=-1)


# -- payload --------------------------------------------------------------------------------
def test_coordinates_keep_the_axis_precision_far_from_zero():
    rng = np.random.default_rng(6)
    xy = np.column_stack([1e6 + rng.uniform(0, 1, 50), rng.uniform(-1e-6, 1e-6, 50)])
    fig = pool_figure(xy, [-1, 1], {3: 1})
    t = _trace(fig, "unlabeled")
    members = _indices(t)
    # float32 would round 1e6 + u to steps of 0.0625 (6% of this axis): not allowed
    assert np.max(np.abs(np.asarray(t.x, dtype=float) - xy[members, 0])) <= 1e-4
    assert np.max(np.abs(np.asarray(t.y, dtype=float) - xy[members, 1])) <= 2e-10


def test_pool_figure_payload_is_bounded():
    n = 5000
    rng = np.random.default_rng(7)
    xy = rng.normal(size=(n, 2)) * [3.0, 1.5] + [10.0, -2.0]
    predicted = np.where(xy[:, 0] > 10, 1, -1)
    confidence = np.clip(0.5 + np.abs(xy[:, 0] - 10) / 6, 0.5, 1.0)
    labels = {int(i): int(predicted[i]) for i in rng.choice(n, 60, replace=False)}
    grid = geometry.grid_surface(xy, lambda p: np.tanh(p[:, 0] - 10.0), 70)
    fig = pool_figure(
        xy, [-1, 1], labels, predicted, confidence, query=1, grid=grid, confidence_contours=True
    )
    # 633 kB before coordinates were rounded and the ±0.5 contours shared one grid
    assert len(fig.to_json()) < 350_000


def test_nan_confidence_is_drawn_undecided():
    xy, predicted, confidence = _pool()
    confidence[10:15] = np.nan
    fig = pool_figure(xy, [-1, 1], {}, predicted, confidence)
    assert set(range(10, 15)) <= set(_indices(_trace(fig, "unlabeled (undecided)")))
    assert "NaN" not in fig.to_json()


def test_the_sample_is_the_candidates_of_least_seeded_priority():
    from rlscore.viz.figures.pool_sampling import sample_mask

    rng = np.random.default_rng(5)
    for n, quota, seed in [(1000, 100, 0), (5000, 7, 3), (300, 1, 1), (300, 0, 2)]:
        candidates = rng.random(n) < 0.7
        kept = int(np.flatnonzero(candidates)[-1])
        mask = sample_mask(candidates, [kept, None, kept], quota, seed)
        # the reference: the seeded priorities of every point, the rest ranked by a full sort
        priority = np.random.default_rng(seed).random(n)
        rest = np.flatnonzero(candidates)
        rest = rest[rest != kept]
        expected = {kept, *rest[np.argsort(priority[rest])[: max(quota - 1, 0)]].tolist()}
        assert set(np.flatnonzero(mask).tolist()) == expected
