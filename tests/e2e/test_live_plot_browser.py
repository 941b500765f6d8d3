"""The pool plot updated in place (rlscore.ui.figures.live_plot) on a page where Streamlit's
plotly chunk does not set ``window.Plotly``: the live plot loads the ``static/`` copy itself,
keeps its graph from label to label, selects the point clicked, and fills the screen.

Streamlit 1.67's chunk sets ``window.Plotly`` when the page draws its first chart, and the live
plot uses it; that is a saving, not something the plot may need. The init script below keeps
the chunk (an ES module, so no ``document.currentScript``) from setting it, and lets a classic
script (the ``static/`` copy) set it."""

from __future__ import annotations

from app_page import (
    click_pool_point,
    heading_number,
    open_app,
    press_after_dwell,
    rerun,
    settle,
    stored,
    wait_text,
)

WITHHOLD_PLOTLY = """
(() => {
  let plotly;
  window.__plotlyWithheld = 0;
  Object.defineProperty(window, "Plotly", {
    configurable: true,
    get() { return plotly; },
    set(value) {
      if (document.currentScript) plotly = value;
      else window.__plotlyWithheld += 1;
    },
  });
})();
"""

LIVE = ".rlscore-live-plot"
#: the live graph fills the browser's full screen (both ways), or the page's width again
FULL_SCREEN = f"""(on) => {{
  const gd = document.querySelector('{LIVE}');
  const L = gd._fullLayout;
  return on ? document.fullscreenElement === gd && L.width === window.innerWidth
                && L.height === window.innerHeight
            : !document.fullscreenElement && L.width === gd.parentElement.clientWidth
                && L.height === gd.__height;
}}"""


def test_the_live_plot_loads_plotly_itself_clicks_and_fills_the_screen(
    page, server, own_sample, artifacts
):
    page.add_init_script(WITHHOLD_PLOTLY)
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if "/app/static/" in r.url else None)
    moons = own_sample("two_moons")
    q = open_app(page, f"{server.url}/?project={moons}", 0)
    # the tab's first draw: st.plotly_chart, whose chunk was kept from setting window.Plotly
    assert page.evaluate("[window.__plotlyWithheld, typeof window.Plotly]") == [1, "undefined"]
    assert page.locator(LIVE).count() == 0 and not fetched

    press_after_dwell(page, "2", q)
    wait_text(page, "Labeled 1 of 220")
    page.locator(f"{LIVE}.js-plotly-plot").wait_for()  # drawn by plotly.js from static/
    assert len(fetched) == 1 and "/app/static/plotly-" in fetched[0], fetched
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 0
    page.evaluate(f"document.querySelector('{LIVE}').__kept = true")

    picked = page.evaluate(
        f"""(q) => document.querySelector('{LIVE}')._fullData
            .flatMap(t => t.customdata || []).map(Number)
            .find(i => Number.isInteger(i) && i !== q)""",
        q,
    )
    rerun(page, lambda: click_pool_point(page, picked))
    assert heading_number(page, "Selected") == picked
    settle(page)
    press_after_dwell(page, "1", picked)
    wait_text(page, "Labeled 2 of 220")
    assert stored(server.db, moons).labels == {q: 1, picked: -1}
    # the same graph, updated in place; plotly.js fetched once for the page
    assert page.evaluate(f"document.querySelector('{LIVE}').__kept === true")
    assert len(fetched) == 1

    button = page.locator(f'{LIVE} .modebar-btn[data-title="Fullscreen"]')
    page.locator(LIVE).hover()
    button.click()
    page.wait_for_function(FULL_SCREEN, arg=True)
    page.screenshot(path=artifacts / "live_plot_full_screen.png")
    page.locator(LIVE).hover()
    button.click()
    page.wait_for_function(FULL_SCREEN, arg=False)
