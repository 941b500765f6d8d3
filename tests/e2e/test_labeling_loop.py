"""The labeling loop in Chromium: one key press is one action on the point shown, annotators
get their own queries and never overwrite each other silently, and a reload keeps the
annotator, the project's settings and the next query.

Labels are read from the database independently of the app; the points the page showed are
recorded in the browser by a MutationObserver on the query heading.
"""

from __future__ import annotations

import re

import pytest
from app_page import (
    MIN_DWELL_MS,
    choose,
    click_pool_point,
    heading_number,
    label_button,
    open_app,
    rerun,
    settle,
    stored,
    wait_text,
)
from browser_context import new_context
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from rlscore.sessions.state.settings import project_settings
from rlscore.storage import open_store

#: records, in order, every point a query or selection heading showed (window.__shown). A
#: heading in an element marked stale (a run replacing it) is not recorded: React may hold the
#: replaced heading beside the new one for a moment (tests/e2e/app_page.py, heading_number), and
#: a fresh-clone run's record ended with #176 while the current heading was #60
SHOWN_RECORDER = r"""
(() => {
  window.__shown = [];
  const scan = () => {
    for (const h of document.querySelectorAll("h1, h2, h3, h4")) {
      if (h.closest('[data-stale="true"]')) continue;
      const m = /(?:Next query|Selected point)[^#]*#(\d+)/.exec(h.textContent);
      if (m && window.__shown[window.__shown.length - 1] !== Number(m[1]))
        window.__shown.push(Number(m[1]));
    }
  };
  new MutationObserver(scan).observe(document, {subtree: true, childList: true,
    characterData: true, attributes: true, attributeFilter: ["data-stale"]});
})();
"""


def flush(page) -> None:
    """Finish every action the page has sent: a run started after them has ended."""
    rerun(page, lambda: page.get_by_text("Confidence contours (f = ±0.5)").click())
    # the variant without the page's script has no blur-after-toggle: keys must reach buttons
    page.evaluate("document.activeElement && document.activeElement.blur()")


def check_one_label_per_point_shown(page, db, project: str) -> set[int]:
    shown = page.evaluate("window.__shown")
    current = heading_number(page, "Next query:")
    log = stored(db, project)
    with open_store(db) as store:
        label_events = [e for e in store.events(project) if e.kind == "label"]
    labeled = set(log.labels)
    # every label is on a point that was on screen, once; every point shown and replaced
    # was labeled; the point on screen now is not
    assert labeled <= set(shown), (shown, sorted(labeled))
    assert current == shown[-1] and current not in labeled, (current, shown, sorted(labeled))
    assert labeled == set(shown[:-1]), (shown, sorted(labeled))
    assert len(label_events) == len(labeled)
    # issue 34: a third class button stayed on screen after some labels; at rest the panel
    # holds one button per class, each of the point on screen (key label_<k>_<point>_<seen>)
    # a run the views' refresh script starts after the page came to rest marks the panel's
    # buttons stale, which hides them for its length: wait for that to pass (a lasting third
    # or hidden button still fails below)
    try:
        page.wait_for_function(BUTTONS_AT_REST, arg=str(current), timeout=15_000)
    except PlaywrightTimeoutError:
        pass
    buttons = page.evaluate(LABEL_BUTTONS)
    assert sorted(k for k, _, _ in buttons) == ["0", "1"], buttons
    assert all(point == str(current) and visible for _, point, visible in buttons), buttons
    return labeled


#: the class buttons in the page (Streamlit names each button's container st-key-<key>)
LABEL_BUTTONS = """() => [
  ...document.querySelectorAll('.stElementContainer[class*="st-key-label_"]')].map(c => {
    const key = [...c.classList].find(x => x.startsWith('st-key-label_')).split('_');
    const r = c.getBoundingClientRect();
    return [key[1], key[2], r.width > 0 && r.height > 0];
  })"""
#: one visible button per class (two), each of the point ``current``
BUTTONS_AT_REST = f"""(current) => {{
  const b = ({LABEL_BUTTONS})();
  return b.length === 2 && b.every(([, point, visible]) => point === current && visible);
}}"""


@pytest.mark.parametrize("guard", ["browser guard", "server rule only"])
def test_rapid_key_presses_label_only_the_points_shown(
    browser, server, own_sample, artifacts, guard
):
    moons = own_sample("two_moons")
    context = new_context(browser)
    context.add_init_script(SHOWN_RECORDER)
    if guard == "server rule only":
        # the page's key guard installs only once per page: pretend it is there already
        context.add_init_script("window.__rlscoreKeyGuard = true;")
    page = context.new_page()
    try:
        open_app(page, f"{server.url}/?project={moons}", 0)
        # a person looks at the first point before pressing: without the page's guard the
        # server refuses a press inside the minimum dwell counted from its render, which came
        # before open_app saw the point (a fresh-clone run pressed within it: nothing stored)
        page.wait_for_timeout(MIN_DWELL_MS + 50)
        # two presses 30 ms apart (the delay is the stimulus, not a wait for a result)
        page.keyboard.press("1")
        page.wait_for_timeout(30)
        page.keyboard.press("1")
        flush(page)
        first = check_one_label_per_point_shown(page, server.db, moons)
        assert len(first) >= 1
        # ten presses 150 ms apart
        for _ in range(10):
            page.keyboard.press("1")
            page.wait_for_timeout(150)
        flush(page)
        labeled = check_one_label_per_point_shown(page, server.db, moons)
        assert len(labeled) >= len(first) + 2  # presses between runs did label
        page.screenshot(path=artifacts / "after_rapid_keys.png")
        if guard == "browser guard":
            assert page.evaluate("window.__rlscoreDroppedKeys") >= 1
    finally:
        context.close()


def test_two_annotators_get_their_own_points_and_never_overwrite_silently(
    browser, server, own_sample, artifacts
):
    moons = own_sample("two_moons")
    ctx_a, ctx_b = new_context(browser), new_context(browser)
    a, b = ctx_a.new_page(), ctx_b.new_page()
    try:
        url = f"{server.url}/?project={moons}"
        qa = open_app(a, url, 0, annotator="ada")
        qb = open_app(b, url, 0, annotator="bob")
        assert qa != qb
        expect(a.get_by_text(re.compile(r"You \(ada\): 0 labels"))).to_be_visible()

        # ada picks bob's point in the plot and labels it while bob still looks at it
        click_pool_point(a, qb)
        assert heading_number(a, "Selected") == qb
        settle(a)
        label_button(a, "1").click()
        wait_text(a, "Labeled 1 of 220")
        assert stored(server.db, moons).labels == {qb: 1}

        # bob's click is refused with a warning; nothing is written
        rerun(b, lambda: label_button(b, "-1").click())
        expect(
            b.get_by_text(
                re.compile(rf"Not saved: ada labeled it 1 \(\d+ s ago\) after point #{qb}")
            )
        ).to_be_visible()
        b.screenshot(path=artifacts / "stale_label_refused.png")
        assert stored(server.db, moons).labels == {qb: 1}
        # bob confirms: his label replaces ada's, as a new event
        rerun(b, lambda: b.get_by_role("button", name=re.compile("Relabel as -1 anyway")).click())
        assert stored(server.db, moons).labels == {qb: -1}

        # Undo reverts one's own last action, never a teammate's newer one
        assert heading_number(a, "Next query:") == qa
        rerun(a, lambda: label_button(a, "1").click())
        q_bob = heading_number(b, "Next query:")
        assert q_bob not in (qa, qb)
        rerun(b, lambda: label_button(b, "1").click())
        assert stored(server.db, moons).labels == {qb: -1, qa: 1, q_bob: 1}
        a.reload()
        wait_text(a, "Labeled 3 of 220")
        rerun(a, lambda: a.keyboard.press("u"))
        assert stored(server.db, moons).labels == {qb: -1, q_bob: 1}
        expect(a.get_by_text(f"Undone: your label of point #{qa}.")).to_be_visible()
    finally:
        ctx_a.close()
        ctx_b.close()


def test_the_name_is_asked_once_and_a_reload_keeps_it_the_settings_and_the_query(
    browser, server, own_sample, artifacts
):
    circles = own_sample("circles")
    context = new_context(browser)
    page = context.new_page()
    try:
        page.goto(f"{server.url}/?project={circles}")
        page.get_by_role("textbox", name="Your name").fill("ada")
        rerun(page, lambda: page.get_by_role("button", name="Start labeling").click())
        expect(page).to_have_url(re.compile(r"annotator=ada"))
        wait_text(page, "Labeled 0 of 2020")
        choose(page, "Strategy", "Uncertainty sampling")
        # the selection left no focus in the box: a shortcut key reaches the buttons
        assert page.evaluate("document.activeElement.tagName") != "INPUT"
        with open_store(server.db) as store:
            assert project_settings(store, circles)["strategy"] == "uncertainty"
        q = heading_number(page, "Next query:")

        page.reload()
        wait_text(page, "Labeled 0 of 2020")
        assert heading_number(page, "Next query:") == q
        expect(page.get_by_role("combobox", name="Strategy")).to_have_value("Uncertainty sampling")
        expect(page.get_by_role("textbox", name="Annotator")).to_have_value("ada")
        page.screenshot(path=artifacts / "after_reload.png")

        # the same link in another browser: same annotator, same settings, same next query
        other = new_context(browser)
        try:
            p2 = other.new_page()
            p2.goto(page.url)
            wait_text(p2, "Labeled 0 of 2020")
            assert heading_number(p2, "Next query:") == q
            # another annotator: the same settings, another point
            p2.goto(f"{server.url}/?project={circles}&annotator=bob")
            wait_text(p2, "Labeled 0 of 2020")
            expect(p2.get_by_role("combobox", name="Strategy")).to_have_value(
                "Uncertainty sampling"
            )
            assert heading_number(p2, "Next query:") != q
        finally:
            other.close()

        # switching project rewrites the link, and a reload opens that project
        choose(page, "Project", "spheres")
        expect(page).to_have_url(re.compile(r"project=spheres"))
        page.reload()
        wait_text(page, "Labeled 0 of 1200")
    finally:
        context.close()
