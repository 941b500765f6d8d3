"""The pool plot that updates in place (rlscore.ui.label.live_plot): its element id stays the
same when its figure changes, where st.plotly_chart's changes (the browser remounts it)."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest


def _chart_app() -> None:
    import plotly.graph_objects as go
    import streamlit as st

    from rlscore.ui.label import live_plot

    n = st.session_state.get("n", 1)
    fig = go.Figure(go.Scatter(x=list(range(n)), y=list(range(n)), customdata=list(range(n))))
    fig.update_layout(height=300)
    live_plot.live_plotly_chart(
        fig, key="pool_live", fallback_key="pool_0", on_click=lambda p, d: None, config={}
    )


def _run(n: int) -> AppTest:
    at = AppTest.from_function(_chart_app)
    at.session_state["n"] = n
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_live_plot_keeps_its_id_when_its_figure_changes(monkeypatch):
    from rlscore.ui.label import live_plot

    monkeypatch.setattr(live_plot, "plotly_js_address", lambda: "app/static/plotly.min.js")
    ids, figures = set(), []
    for n in (1, 2):
        at = _run(n)
        (chart,) = at.get("bidi_component")
        ids.add(chart.proto.id)
        data = json.loads(chart.proto.json)
        assert data["src"] == "app/static/plotly.min.js"
        figures.append(json.loads(data["figure"]))
    assert len(ids) == 1  # the browser updates the same graph (Plotly.react)
    assert [len(f["data"][0]["x"]) for f in figures] == [1, 2]
    # a click reports the point without selecting it in plotly (which dims the others)
    assert figures[0]["layout"]["clickmode"] == "event"


def test_st_plotly_chart_changes_its_id_with_its_figure_a_key_given(monkeypatch):
    """Why the live plot exists (Streamlit 1.67): the fallback's id follows the figure."""
    from rlscore.ui.label import live_plot

    monkeypatch.setattr(live_plot, "plotly_js_address", lambda: None)  # not served
    ids = {_run(n).get("plotly_chart")[0].proto.id for n in (1, 2)}
    assert len(ids) == 2
