"""The pool plot that updates in place (rlscore.ui.figures.live_plot): its element id stays the
same when its figure changes, where st.plotly_chart's changes (the browser remounts it); a
tab's first draw is st.plotly_chart and nothing else, so that the page's load draws what it did
(the browser's side: tests/e2e/test_live_plot_browser.py)."""

from __future__ import annotations

import json
import stat

import plotly
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest


def _chart_app() -> None:
    import plotly.graph_objects as go
    import streamlit as st

    from rlscore.ui.figures import live_plot

    n = st.session_state.get("n", 1)
    fig = go.Figure(go.Scatter(x=list(range(n)), y=list(range(n)), customdata=list(range(n))))
    fig.update_layout(height=300)
    live_plot.live_plotly_chart(
        fig, key="pool_live", fallback_key="pool_0", on_click=lambda p, d: None, config={}
    )


def _runs(*sizes: int) -> list[tuple[list, list]]:
    """One tab (session) run once per size: its plotly charts and components each time."""
    at = AppTest.from_function(_chart_app, default_timeout=60)
    out = []
    for n in sizes:
        at.session_state["n"] = n
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        out.append((list(at.get("plotly_chart")), list(at.get("bidi_component"))))
    return out


def test_a_tabs_first_draw_is_st_plotly_chart_alone_in_a_container(monkeypatch):
    from rlscore.ui.figures import live_plot

    monkeypatch.setattr(live_plot, "plotly_js_address", lambda: "app/static/plotly.min.js")
    at = AppTest.from_function(_chart_app, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    # Streamlit's own plotly and no component (a component's mount, such as an invisible
    # one loading plotly.js, costs every page's load; the live plot finds the window.Plotly
    # that Streamlit's plotly chunk sets, or loads plotly.js itself)
    assert len(at.get("plotly_chart")) == 1
    assert not at.get("bidi_component")
    # the chart inside a block of its own, which the live plot replaces whole: an element
    # replaced by another is kept mounted and hidden by the browser for the tab's life
    (block,) = at.main.children.values()
    assert block.type == "flex_container"
    assert [c.type for c in block.children.values()] == ["plotly_chart"]


def test_the_live_plot_takes_over_and_keeps_its_id_when_its_figure_changes(monkeypatch):
    from rlscore.ui.figures import live_plot

    monkeypatch.setattr(live_plot, "plotly_js_address", lambda: "app/static/plotly.min.js")
    ids, figures = set(), []
    for charts, components in _runs(1, 2, 3)[1:]:
        assert not charts
        (chart,) = components
        ids.add(chart.proto.id)
        data = json.loads(chart.proto.json)
        assert data["src"] == "app/static/plotly.min.js"
        figures.append(json.loads(data["figure"]))
    assert len(ids) == 1  # the browser updates the same graph (Plotly.react)
    assert [len(f["data"][0]["x"]) for f in figures] == [2, 3]
    # a click reports the point without selecting it in plotly (which dims the others)
    assert figures[0]["layout"]["clickmode"] == "event"


def test_st_plotly_chart_changes_its_id_with_its_figure_a_key_given(monkeypatch):
    """Why the live plot exists (Streamlit 1.67): the fallback's id follows the figure."""
    from rlscore.ui.figures import live_plot

    monkeypatch.setattr(live_plot, "plotly_js_address", lambda: None)  # not served
    runs = _runs(1, 2)
    assert all(not components for _, components in runs)  # no preload either
    assert len({charts[0].proto.id for charts, _ in runs}) == 2


def test_plotly_js_is_copied_into_static_once_and_served_from_there(tmp_path, monkeypatch):
    from rlscore.ui.figures import live_plot

    static = tmp_path / "static"
    monkeypatch.setattr(live_plot, "STATIC_DIR", static)
    monkeypatch.setitem(live_plot._STATE, "src", None)
    monkeypatch.setattr(st, "get_option", {"server.enableStaticServing": True}.__getitem__)
    name = f"plotly-{plotly.__version__}.min.js"
    assert live_plot.plotly_js_address() == f"app/static/{name}"
    source = live_plot.Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    copied = static / name
    assert copied.read_bytes() == source.read_bytes()
    assert stat.S_IMODE(copied.stat().st_mode) == 0o644
    assert [f.name for f in static.iterdir()] == [name]  # no temporary file left
    copied.write_text("kept")  # the next call finds it and copies nothing
    assert live_plot.plotly_js_address() == f"app/static/{name}"
    assert copied.read_text() == "kept"


@pytest.mark.parametrize("why", ["option off", "folder not writable"])
def test_without_a_static_copy_the_pool_plot_is_st_plotly_chart(why, tmp_path, monkeypatch):
    from rlscore.ui.figures import live_plot

    blocker = tmp_path / "a_file"
    blocker.write_text("")
    # "static" under a file: the folder cannot be made (as a read-only app folder)
    monkeypatch.setattr(live_plot, "STATIC_DIR", blocker / "static")
    monkeypatch.setitem(live_plot._STATE, "src", None)
    option = {"server.enableStaticServing": why != "option off"}
    monkeypatch.setattr(st, "get_option", option.__getitem__)
    assert live_plot.plotly_js_address() is None
    assert live_plot._STATE["src"] == ("" if why == "folder not writable" else None)
