"""The pool plot that updates in place (rlscore.ui.figures.live_plot): its element id stays the
same when its figure changes, where st.plotly_chart's changes (the browser remounts it); a
tab's first draw is st.plotly_chart, so that the page's load costs what it did."""

from __future__ import annotations

import json

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
    at = AppTest.from_function(_chart_app)
    out = []
    for n in sizes:
        at.session_state["n"] = n
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        out.append((list(at.get("plotly_chart")), list(at.get("bidi_component"))))
    return out


def test_a_tabs_first_draw_is_st_plotly_chart_and_plotly_js_is_loaded_beside_it(monkeypatch):
    from rlscore.ui.figures import live_plot

    monkeypatch.setattr(live_plot, "plotly_js_address", lambda: "app/static/plotly.min.js")
    ((charts, components),) = _runs(1)
    assert len(charts) == 1  # Streamlit's own plotly: nothing more for the page's load
    (preload,) = components
    assert preload.proto.id.endswith("-pool_live_preload")
    assert json.loads(preload.proto.json) == {"src": "app/static/plotly.min.js"}


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
