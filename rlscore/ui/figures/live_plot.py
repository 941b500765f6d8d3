"""The pool plot updated in place: a plotly figure that a new figure changes without a remount.

``st.plotly_chart`` in Streamlit 1.67 gives a chart a new element id whenever its figure
changes (``streamlit/elements/plotly_chart.py``: ``compute_and_register_element_id(...,
key_as_main_identity=False, plotly_spec=...)``, a key included), and the browser keys its React
elements by that id, so every label mounted the pool plot anew (``Plotly.newPlot``, a new WebGL
context above :data:`~rlscore.viz.figures.pool_points.WEBGL_MIN_POINTS` points) and kept the old
one hidden a while as a "retained" element. A custom component (``st.components.v2``) keeps
its id with its key; its script is called again with the new figure and calls
``Plotly.react`` on the same graph, which updates it in place.

The component needs plotly.js in the browser without the network: the plotly package's own
``plotly.min.js`` is copied into the app's ``static/`` folder, which Streamlit serves at
``app/static/`` (``server.enableStaticServing``, ``.streamlit/config.toml``). Where that is not
possible (the option off, a folder that cannot be written) the plot is ``st.plotly_chart`` as
before.

A tab's first draw of the plot is ``st.plotly_chart`` all the same, so that a page's load draws
the elements it drew before the live plot (measured: docs/benchmarks/app-latency.md, "The pool
plot updated in place, without the preload component"); the live plot takes over at the tab's
next draw (one remount then, usually at the first label). It draws with the page's own plotly.js
when there is one: Streamlit 1.67's plotly chunk sets ``window.Plotly`` when the page draws its
first chart, so after that first ``st.plotly_chart`` nothing more is fetched. Nothing relies on
it: on a page without ``window.Plotly`` the component loads the ``static/`` copy itself (3.6 MB,
about 0.4 s of the browser's main thread, once per page).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import plotly
import streamlit as st

#: the folder Streamlit serves at ``app/static/``: ``static/`` beside ``app.py``
STATIC_DIR = Path(__file__).resolve().parents[3] / "static"
_STATE: dict[str, str | None] = {"src": None}  # plotly.js's address ("" once it failed)

#: plotly.js for the page, found once and kept (one instance draws and updates a graph): the
#: page's ``window.Plotly`` when it has one (Streamlit 1.67's plotly chunk sets it when the page
#: draws its first chart, as the Label page's first run does), else the ``static/`` copy loaded
_LOAD_JS = """
function loadPlotly(src) {
  if (!window.__rlscorePlotly) {
    window.__rlscorePlotly = window.Plotly ? Promise.resolve(window.Plotly)
      : new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = src;
        s.onload = () => window.Plotly ? resolve(window.Plotly)
          : reject(new Error("plotly.js: no window.Plotly after " + src));
        s.onerror = () => reject(new Error("plotly.js: " + src));
        document.head.appendChild(s);
      }).catch((err) => {
        window.__rlscorePlotly = undefined;  // the next draw tries again
        throw err;
      });
  }
  return window.__rlscorePlotly;
}
"""

#: the component's script: one graph per mount, drawn with Plotly.react at each new figure;
#: a click on a point is reported as the trigger ``click`` (its ``customdata``)
_JS = (
    _LOAD_JS
    + """
// Streamlit's plotly theme (what st.plotly_chart applies, Streamlit 1.67 PlotlyChart
// CustomTheme): the "streamlit" template the figure carries holds placeholder colours
// (streamlit/elements/lib/streamlit_plotly_theme.py), replaced by the page theme's, and the
// theme's layout is merged over the template's layout. Colours the page exposes (--st-*)
// are read from it; Streamlit's chart greys by light or dark background.
function luminance(color) {
  const probe = document.createElement("canvas").getContext("2d");
  probe.fillStyle = color;
  const hex = probe.fillStyle;  // "#rrggbb" (or rgba() for a translucent colour)
  const m = /^#(..)(..)(..)$/.exec(hex);
  if (!m) return 1;
  const [r, g, b] = m.slice(1).map((h) => parseInt(h, 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function merge(target, source) {
  for (const [k, v] of Object.entries(source)) {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      if (!target[k] || typeof target[k] !== "object") target[k] = {};
      merge(target[k], v);
    } else {
      target[k] = v;
    }
  }
  return target;
}

function themedFigure(json, root) {
  const css = getComputedStyle(root);
  const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  const list = (name) => v(name, "").split(",").map((c) => c.trim()).filter(Boolean);
  const bg = v("--st-background-color", "#FFFFFF");
  const light = luminance(bg) > 0.5;
  const gray70 = light ? "#808495" : "#e6eaf1";
  const gray30 = light ? "#e6eaf1" : "#31333F";
  const gray90 = light ? "#262730" : "#fafafa";
  const text = v("--st-text-color", "#31333F");
  const colors = {};
  const place = (n) => "#0000" + String(n).padStart(2, "0");
  [["--st-chart-categorical-colors", 1], ["--st-chart-sequential-colors", 11],
   ["--st-chart-diverging-colors", 21]].forEach(([name, first]) =>
    list(name).forEach((c, i) => { if (i < 10) colors[place(first + i)] = c; }));
  Object.assign(colors, {
    "#000032": light ? "#29b09d" : "#7defa1", "#000033": light ? "#ff2b2b" : "#ff8c8c",
    "#000034": light ? "#0068c9" : "#83c9ff", "#000035": gray30, "#000036": gray70,
    "#000037": gray90, "#000038": bg, "#000039": gray30,
    "#000040": v("--st-secondary-background-color", bg),
  });
  const fig = JSON.parse(json.replace(/#0000[0-4][0-9]\\b/gi, (c) => colors[c] || c));
  const font = v("--st-font", "sans-serif");
  const heading = v("--st-heading-color", text);
  const axis = {zerolinecolor: gray30, gridcolor: gray30, tickcolor: gray30,
                tickfont: {color: gray70, size: 12}, minor: {gridcolor: gray30},
                automargin: true};
  const layout = (fig.layout = fig.layout || {});
  const template = (layout.template = layout.template || {});
  merge((template.layout = template.layout || {}), {
    font: {color: gray70, family: font, size: 12, weight: 400},
    title: {font: {family: v("--st-heading-font", font), size: 16, color: heading},
            pad: {l: 4}, xanchor: "left", x: 0},
    legend: {title: {font: {size: 12, color: gray70}, side: "top"}, valign: "top",
             bordercolor: "rgba(0,0,0,0)", borderwidth: 0, font: {size: 12, color: gray90}},
    paper_bgcolor: bg, plot_bgcolor: bg,
    yaxis: {...axis, ticklabelposition: "outside",
            title: {font: {color: gray70, size: 14}, standoff: 24}},
    xaxis: {...axis, showgrid: false, zeroline: false,
            title: {font: {color: gray70, size: 14}, standoff: 20}},
    margin: {pad: 8, r: 0, l: 0},
    hoverlabel: {bgcolor: bg, bordercolor: v("--st-border-color", gray30),
                 font: {color: gray70, family: font, size: 12}},
  });
  if (layout.title && typeof layout.title === "object" && typeof layout.title.text === "string")
    layout.title = {...layout.title, text: "<b>" + layout.title.text + "</b>"};
  return fig;
}

// the mode bar st.plotly_chart shows for a chart without box or lasso selection: no select
// or lasso buttons, and a full-screen button (here the browser's full screen, the graph
// resized to it)
const EXPAND = "M0 0h40v12H12v28H0zM60 0h40v40H88V12H60zM0 60h12v28h28v12H0zM88 60h12v40H60V88h28z";

function modeBar(Plotly, gd) {
  if (!gd.__fullscreen) {
    gd.__fullscreen = true;
    document.addEventListener("fullscreenchange", () => {
      const on = document.fullscreenElement === gd;
      gd.style.background = on ? getComputedStyle(gd.parentElement)
        .getPropertyValue("--st-background-color") : "";
      Plotly.relayout(gd, on ? {width: window.innerWidth, height: window.innerHeight}
                             : {width: null, height: gd.__height});  // null: the page's
    });
  }
  return {
    responsive: true,
    modeBarButtonsToRemove: ["lasso2d", "select2d", "sendChartToCloud"],
    modeBarButtonsToAdd: [{
      name: "Fullscreen", title: "Fullscreen",
      icon: {width: 100, height: 100, path: EXPAND},
      click: () => document.fullscreenElement === gd
        ? document.exitFullscreen() : gd.requestFullscreen(),
    }],
  };
}

export default function ({ data, parentElement, setTriggerValue }) {
  let gd = parentElement.querySelector(".rlscore-live-plot");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "rlscore-live-plot";
    parentElement.appendChild(gd);
  }
  gd.__report = setTriggerValue;  // the newest mount's, for the handler bound once
  const fig = themedFigure(data.figure, parentElement);
  gd.__height = fig.layout.height;
  loadPlotly(data.src).then((Plotly) => {
    // the same config object each time: Plotly.react draws anew (newPlot) when the config
    // differs, and a new button's click function would differ
    const asked = JSON.stringify(data.config);
    if (gd.__asked !== asked) {
      gd.__asked = asked;
      gd.__config = {...data.config, ...modeBar(Plotly, gd)};
    }
    return Plotly.react(gd, fig.data, fig.layout, gd.__config);
  }).then(() => {
    if (gd.__clicks) return;
    gd.__clicks = true;
    gd.on("plotly_click", (ev) => {
      const p = ev && ev.points && ev.points[0];
      if (p && p.customdata !== undefined) gd.__report("click", {customdata: p.customdata});
    });
  }).catch((err) => { gd.textContent = String(err); });
}
"""
)

_pool_component = st.components.v2.component("rlscore_live_plot", js=_JS, isolate_styles=False)


def plotly_js_address() -> str | None:
    """The address of plotly.js as the app serves it, or None where it cannot.

    The plotly package's ``plotly.min.js`` is copied (once per version) into ``static/`` next
    to ``app.py``, which Streamlit serves at ``app/static/`` when ``server.enableStaticServing``
    is on. None when the option is off or the folder cannot be written: the pool plot is then
    ``st.plotly_chart``.
    """
    if not st.get_option("server.enableStaticServing"):
        return None
    if _STATE["src"] is None:
        name = f"plotly-{plotly.__version__}.min.js"
        target = STATIC_DIR / name
        try:
            if not target.exists():
                source = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
                STATIC_DIR.mkdir(exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=STATIC_DIR, suffix=".part")
                os.close(fd)
                shutil.copyfile(source, tmp)
                os.chmod(tmp, 0o644)  # as a copied file (mkstemp's is private)
                os.replace(tmp, target)  # whole or not at all: another server may read it
            _STATE["src"] = f"app/static/{name}"
        except OSError:
            _STATE["src"] = ""  # not tried again in this process
    return _STATE["src"] or None


def live_plotly_chart(
    fig, *, key: str, fallback_key: str, on_click: Callable[[dict, bool], None], config: dict
) -> None:
    """Draw ``fig`` updated in place at each run from the tab's second draw on (its first is
    ``st.plotly_chart``, as is every draw where plotly.js cannot be served).

    ``on_click(point, remounts)`` gets a clicked point (a mapping with its ``customdata``) and
    whether the chart is ``st.plotly_chart``, the key ``fallback_key``: its selection stays
    drawn (the other points dimmed) until the key changes.
    """
    src = plotly_js_address()
    drawn = f"{key}_drawn"  # this tab (session) drew the plot before
    if src is None or not st.session_state.get(drawn):
        # in a container of its own: when the live plot takes its place, the browser drops
        # the container with the chart (Streamlit 1.67 keeps an element replaced by another
        # of a different id mounted, hidden, as "retained": the tab's first chart would stay
        # for the tab's life; a block is not kept)
        with st.container():
            st.plotly_chart(
                fig,
                key=fallback_key,
                on_select=lambda: _selected(fallback_key, on_click),
                selection_mode="points",
                config=config,
            )
        if src is not None:
            st.session_state[drawn] = True  # the live plot from the next draw on
        return
    # a click reports the point, it does not select it in plotly (which would dim the others)
    fig = fig.update_layout(clickmode="event")
    _pool_component(
        key=key,
        data={"figure": fig.to_json(), "config": config, "src": src},
        height=fig.layout.height,
        on_click_change=lambda: _clicked(key, on_click),
    )


def _clicked(key: str, on_click: Callable) -> None:
    value = st.session_state[key].get("click")
    if value is not None:
        on_click(value, False)


def _selected(key: str, on_click: Callable) -> None:
    state = st.session_state.get(key)
    points = state["selection"]["points"] if state else []
    if points:
        on_click(points[0], True)
