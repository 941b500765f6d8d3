"""The Label page's point drawn before its scripts (the key guard, rlscore.ui.label.keys): a
press just after they start is taken, and the tests' ``settle`` waits for them.

Streamlit draws ``st.html`` elements — the query panel's marker and the page's scripts — only
once their code (a chunk of its front end) has loaded; the point's heading and buttons come
first. On a loaded machine that took long enough for CI's ``settle`` to pass with neither
drawn, and for the guard, started just before the test's click, to drop it as made "31 ms"
after the point was drawn. Here the chunk is held back by the test until the point is on
screen, so that order happens every time.
"""

from __future__ import annotations

import re

from app_page import MIN_DWELL_MS, READY_FOR_INPUT, label_button, wait_text
from playwright.sync_api import Page, expect

#: Streamlit's front-end code of its ``st.html`` element
HTML_CODE = re.compile(r".*/static/js/Html\.[^/]*\.js$")


def test_a_press_as_the_scripts_start_on_a_point_shown_before_them_is_taken(
    page: Page, server, own_sample
):
    moons = own_sample("two_moons")
    held = []  # the requests of the chunk, answered when the test says
    page.route(HTML_CODE, lambda route: held.append(route))
    page.goto(f"{server.url}/?project={moons}&annotator=ada")
    expect(page.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))).to_be_visible()
    expect(label_button(page, "1")).to_be_visible()
    assert held, "the point was drawn without Streamlit asking for its st.html code"
    assert page.evaluate("window.__rlscoreKeyGuard") is None  # no key guard yet
    # the point's marker and the guard are not drawn: not ready for a test's input yet
    assert page.evaluate(READY_FOR_INPUT, MIN_DWELL_MS + 50) is False
    for route in held:
        route.continue_()
    # a person who has been looking at the point presses as soon as the guard has started
    page.wait_for_function("window.__rlscoreDrawTimes && window.__rlscoreDrawTimes.length > 0")
    page.keyboard.press("1")
    assert page.evaluate("window.__rlscoreDropped") == []
    wait_text(page, "Labeled 1 of 220")
    assert page.evaluate("window.__rlscoreDropped") == []
