"""The key guard's hold (rlscore.ui.label.keys) in Chromium, on a page that stands in for the
Label page: a press the server cannot count yet — the paint acknowledgement's run has not ended,
or ended less than the minimum dwell ago — is held and sent once it can be counted, on the
point it was made on; if another point is drawn first it is never sent.

The stand-in page has what the script reads: Streamlit's app element with its run state, the
query panel's marker naming the point, a label button and the hidden paint button. The test
plays the server: it says when the acknowledgement's run starts and ends, so what the script
does at each moment is decided by the test, not by the machine's speed.
"""

from __future__ import annotations

import pytest
from browser_context import new_context

from rlscore.sessions.actions.dwell import min_dwell_seconds
from rlscore.ui.label.keys import key_guard_script

DWELL_MS = round(min_dwell_seconds() * 1000)

PAGE = """<!doctype html><html><body>
<div data-testid="stApp" data-test-script-state="notRunning">
  <div data-rls-view="panel" data-rls-state="1|a" data-rls-point="9:7"></div>
  <div class="st-key-label_0_7_x"><button id="label">cats</button></div>
  <div class="st-key-paint_9_7"><button id="paint">Painted</button></div>
</div>
<script>
  window.__clicks = []; window.__acks = 0;
  document.getElementById("label").addEventListener("click",
    () => window.__clicks.push({point: document.querySelector("[data-rls-view]")
                                  .dataset.rlsPoint, at: Date.now()}));
  // the acknowledgement's run starts as soon as it is pressed (the test ends it)
  document.getElementById("paint").addEventListener("click", () => {
    window.__acks += 1;
    document.querySelector("[data-testid=stApp]").setAttribute(
      "data-test-script-state", "running");
  });
</script>
</body></html>"""

END_RUN = """() => { window.__runEnded = Date.now();
  document.querySelector("[data-testid=stApp]").setAttribute(
    "data-test-script-state", "notRunning"); }"""


@pytest.fixture
def stand_in(browser):
    context = new_context(browser)
    page = context.new_page()
    page.set_content(PAGE)
    page.add_script_tag(content=key_guard_script().split("<script>")[1].split("</script>")[0])
    page.wait_for_function("window.__acks === 1")  # painted: the acknowledgement pressed
    # the point has been on screen for the dwell by the page's own count
    page.wait_for_function(
        "([ms]) => Date.now() - window.__rlscoreDrawTimes.at(-1).at >= ms", arg=[DWELL_MS + 20]
    )
    yield page
    context.close()


@pytest.mark.skipif(DWELL_MS <= 0, reason="the minimum dwell is off ($RLSCORE_MIN_DWELL_MS=0)")
@pytest.mark.parametrize("how", ["key", "click"])
def test_a_press_before_the_server_counted_is_held_then_sent_on_its_point(stand_in, how):
    page = stand_in
    if how == "key":
        page.keyboard.press("1")
    else:
        page.click("#label")
    # the acknowledgement's run has not ended: the press is held, not sent, not dropped
    assert page.evaluate("window.__clicks") == []
    assert page.evaluate("window.__rlscoreHeld") == 1
    assert page.evaluate("window.__rlscoreDropped") == []
    assert page.inner_text("#rlscore-press-notice").startswith("Your press is kept")
    # a teammate's label redraws the buttons under a newer log version, on the same point
    page.evaluate("""() => document.querySelector(".st-key-label_0_7_x").className =
                           "st-key-label_0_7_y" """)
    page.evaluate(END_RUN)
    page.wait_for_function("window.__clicks.length === 1")
    click, ended = page.evaluate("[window.__clicks[0], window.__runEnded]")
    # sent on the point it was made on, no sooner than the dwell after the server's count began
    assert click["point"] == "9:7"
    assert click["at"] - ended >= DWELL_MS
    assert page.is_hidden("#rlscore-press-notice")


@pytest.mark.skipif(DWELL_MS <= 0, reason="the minimum dwell is off ($RLSCORE_MIN_DWELL_MS=0)")
def test_a_held_press_is_never_sent_on_another_point(stand_in):
    page = stand_in
    page.keyboard.press("1")
    assert page.evaluate("window.__rlscoreHeld") == 1
    # another point is drawn before the server counted the first one
    page.evaluate("""() => document.querySelector("[data-rls-view]").dataset.rlsPoint = "9:8" """)
    page.wait_for_function(
        """() => (document.getElementById("rlscore-press-notice") || {}).textContent
                 ?.startsWith("Press not sent")"""
    )
    # the notice and the release of the press are one step of the script: from here on it
    # holds nothing, so the end of the run sends nothing
    page.evaluate(END_RUN)
    page.evaluate("() => new Promise((done) => setTimeout(done, 200))")  # release's 40 ms ticks
    assert page.evaluate("window.__clicks") == []


#: the key guard started on the stand-in page (its point already drawn) and key 1 pressed in
#: the same task: a person who had been looking at the point before the page's scripts were
#: drawn (Streamlit draws ``st.html`` elements once their code has loaded; on a loaded machine
#: seconds after the point's heading and buttons) presses just as the guard starts
START_AND_PRESS = """(script) => {
  const tag = document.createElement("script");
  tag.textContent = script;
  document.body.appendChild(tag);
  window.dispatchEvent(new KeyboardEvent("keydown", {key: "1", bubbles: true}));
}"""


@pytest.mark.skipif(DWELL_MS <= 0, reason="the minimum dwell is off ($RLSCORE_MIN_DWELL_MS=0)")
def test_a_press_on_a_point_drawn_before_the_guard_started_is_held_not_dropped(browser):
    context = new_context(browser)
    try:
        page = context.new_page()
        page.set_content(PAGE)
        page.evaluate(
            START_AND_PRESS, key_guard_script().split("<script>")[1].split("</script>")[0]
        )
        # how long the point had been on screen is not known to the guard: the press is not
        # dropped as too soon, but held until the server can count its dwell
        assert page.evaluate("window.__rlscoreDropped") == []
        assert page.evaluate("window.__rlscoreHeld") == 1
        assert page.evaluate("window.__rlscoreDrawTimes")[0]["earlier"] is True
        page.wait_for_function("window.__acks === 1")  # painted: the acknowledgement pressed
        page.evaluate(END_RUN)
        page.wait_for_function("window.__clicks.length === 1")
        click, ended = page.evaluate("[window.__clicks[0], window.__runEnded]")
        assert click["point"] == "9:7"
        assert click["at"] - ended >= DWELL_MS
    finally:
        context.close()
