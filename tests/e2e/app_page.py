"""Helpers shared by the browser tests: waiting for script runs, reading and driving the page."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from rlscore.sessions import LabelLog
from rlscore.storage import open_store

APP_IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
#: the app's minimum dwell (``RLSCORE_MIN_DWELL_MS`` unset): a label key or click on a point
#: drawn less than this long ago is dropped on purpose (rlscore.ui.label.keys)
MIN_DWELL_MS = 200
#: the point the page drew last (any point when ``point`` is null) has been on screen for at
#: least ``ms`` milliseconds, by the page's own draw times (recorded by the key guard), and the
#: server applied the page's acknowledgement of its paint at least ``ms`` ago (the server's
#: dwell counts from there: rlscore.ui.label.actions)
DWELLED = """([point, ms]) => {
  const t = window.__rlscoreDrawTimes || [];
  if (!t.length) return false;
  const last = t[t.length - 1];
  const same = point === null || last.point.endsWith(':' + point);
  const confirmed = window.__rlscoreConfirmedAt ? window.__rlscoreConfirmedAt() : 1;
  return same && Date.now() - last.at >= ms && confirmed > 0 && Date.now() - confirmed >= ms;
}"""


#: a point's hidden paint button (rlscore.ui.label.query_panel.paint_ack_button) on the page
#: but not yet the query panel's marker or the key guard: Streamlit draws ``st.html`` elements
#: (the views' markers, the page's scripts) only once their code has loaded, on a loaded machine
#: seconds after the point's heading and buttons (CI saw ``settle`` pass with neither drawn, and
#: the guard, started just then, drop the press after it). A page that bypasses the guard sets
#: ``window.__rlscoreKeyGuard`` itself.
HTML_PENDING = """(() => !!document.querySelector('[class*="st-key-paint_"]') &&
  (!document.querySelector("[data-rls-view='panel']") || !window.__rlscoreKeyGuard))()"""

#: every view of the Label page shows the state its query panel shows (rlscore.ui.label.refresh)
VIEWS_CAUGHT_UP = f"""() => {{
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if ({HTML_PENDING}) return false;
  const marks = [...document.querySelectorAll('[data-rls-view]')].map(m => m.dataset.rlsState);
  return marks.every(m => m === marks[0]);
}}"""


def settle(page: Page) -> None:
    """Wait until the page is at rest and ready for a person's input: the app's script runs
    have finished, the Label page's plot and figures have caught up with its query panel, and
    the point on screen (if any) has been drawn for the minimum dwell (a press or click sooner
    is dropped on purpose; a test acting at once would fail whenever the run was fast)."""
    page.locator(APP_IDLE).wait_for()
    page.wait_for_function(VIEWS_CAUGHT_UP)
    page.wait_for_function(READY_FOR_INPUT, arg=MIN_DWELL_MS + 50)


def rerun(page: Page, action) -> None:
    """Do ``action`` (a click…) and wait until the script run it triggers has finished.

    Counts finished runs (``window.__runs``, set up by the conftest's init script), so a check
    right after the click cannot see the state from before the run.
    """
    before = page.evaluate("window.__runs")
    action()
    page.wait_for_function(f"window.__runs > {before}")
    settle(page)


def wait_text(page: Page, text: str) -> None:
    """Wait for ``text`` to be shown, then for the run that shows it to finish."""
    expect(page.get_by_text(text, exact=True).first).to_be_visible()
    settle(page)


#: no point on the page, or its ``st.html`` elements drawn (:data:`HTML_PENDING`) and the
#: panel's point recorded as drawn by the key guard (a marker the guard has not seen yet is not
#: ready) at least ``ms`` milliseconds ago, and its paint acknowledged to the server at least
#: ``ms`` ago
READY_FOR_INPUT = f"""(ms) => {{
  if ({HTML_PENDING}) return false;
  const panel = document.querySelector("[data-rls-view='panel']");
  const point = panel ? panel.dataset.rlsPoint : "";
  // no point, or no key guard on the page (a test that bypasses it): nothing to wait for
  if (!point || !window.__rlscoreDrawTimes) return true;
  const t = window.__rlscoreDrawTimes;
  const last = t[t.length - 1];
  if (!last || last.point !== point) return false;
  const confirmed = window.__rlscoreConfirmedAt ? window.__rlscoreConfirmedAt() : 1;
  return Date.now() - last.at >= ms && confirmed > 0 && Date.now() - confirmed >= ms;
}}"""


def wait_dwell(page: Page, point: int | None = None, timeout: float | None = None) -> None:
    """Wait until the point on screen (``point``, if given) has been drawn for the minimum
    dwell plus a margin for the clock: a person cannot press sooner, and the app drops a
    press that comes sooner (a test pressing at once would fail by chance on a fast run)."""
    page.wait_for_function(DWELLED, arg=[point, MIN_DWELL_MS + 50], timeout=timeout)


def press_after_dwell(page: Page, key: str, point: int | None = None) -> None:
    """Press the shortcut ``key`` once the point on screen has been drawn for the dwell."""
    wait_dwell(page, point)
    page.keyboard.press(key)


#: the app's sign-in button (Streamlit's ``st.login``, through rlscore.ui.shell.auth)
SIGN_IN = re.compile(r"^Sign in")


def sign_in(page: Page, url: str, user: str) -> None:
    """From the app's sign-in screen at ``url``, sign in at the test OpenID Connect
    provider's login form (tests/support/oidc_provider.py) as ``user``."""
    page.goto(url)
    page.get_by_role("button", name=SIGN_IN).click()
    page.get_by_label("User name").fill(user)  # the provider's own page
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text("Signed in as")).to_be_visible()
    page.locator(APP_IDLE).wait_for()


#: an element of the current script run (Streamlit marks a replaced element stale while a run
#: redraws the page)
FRESH = '[data-testid="stElementContainer"][data-stale="false"]'


def heading_number(page: Page, prefix: str) -> int:
    """The point number of the current run's heading ``<prefix> point #N`` on the page.

    Only the current run's element counts: while a run (or a fragment's rerun) redraws the
    panel, React may briefly hold the replaced heading beside the new one (CI saw two
    headings for one point after the page had settled)."""
    name = re.compile(re.escape(prefix) + r" point #\d+")
    h = page.locator(FRESH).get_by_role("heading", name=name)
    expect(h).to_have_count(1)
    return int(re.search(r"#(\d+)", h.inner_text()).group(1))


def stored(db, project: str) -> LabelLog:
    """The project's labels as stored in the database (read independently of the app)."""
    with open_store(db) as store:
        return LabelLog(store.events(project))


def label_button(page: Page, text: str):
    """The label button showing the class ``text`` (Streamlit names a button with a shortcut
    ``"<label> Shortcut <key>"``)."""
    return page.get_by_role("button", name=re.compile(rf"^{re.escape(text)}( Shortcut \d)?$"))


def fresh_label_button(page: Page, text: str):
    """The current run's label button showing ``text`` (as :func:`label_button`)."""
    return page.locator(FRESH).get_by_role(
        "button", name=re.compile(rf"^{re.escape(text)}( Shortcut \d)?$")
    )


def open_app(page: Page, url: str, labeled: int, total: int = 220, annotator: str = "ada") -> int:
    """Open the Label page at ``url`` as ``annotator``; returns the query's point number."""
    sep = "&" if "?" in url else "?"
    page.goto(f"{url}{sep}annotator={annotator}" if "annotator=" not in url else url)
    wait_text(page, f"Labeled {labeled} of {total}")
    page.locator(".js-plotly-plot").first.wait_for()
    return heading_number(page, "Next query:")


#: a click that did not open an expander is tried this many times in all
EXPANDER_CLICKS = 3


def open_expander(scope, label: str) -> None:
    """Open the expander whose label holds ``label`` inside ``scope`` (a page or a
    locator) and wait until its content shows.

    A click on a summary can miss: CI saw "Why: the evidence" stay closed after its click,
    just under "Other figures", which had opened (not reproduced; likely the page moving
    under the pointer while the expander above still grew). A missed click changes nothing,
    so the summary is clicked again while its content stays hidden."""
    page = scope if isinstance(scope, Page) else scope.page
    # the summary's text starts with its icon's name (a ligature): the label is found inside
    expander = scope.locator('[data-testid="stExpander"]').filter(
        has=page.locator("summary", has_text=label)
    )
    content = expander.get_by_test_id("stExpanderDetails")
    for attempt in range(1, EXPANDER_CLICKS + 1):
        if content.is_visible():
            return
        expander.locator("summary").click()
        try:  # the last click waits as long as any other expectation
            expect(content).to_be_visible(timeout=None if attempt == EXPANDER_CLICKS else 10_000)
            return
        except AssertionError:
            if attempt == EXPANDER_CLICKS:
                raise


def choose(page: Page, box: str, option: str) -> None:
    """Pick ``option`` in the select box labelled ``box`` (the app blurs the box itself).

    The option's name is typed first, as a person finds it in a long list: the list draws
    only the options in its view (the shared server's Project box holds every test's
    projects)."""
    combo = page.get_by_role("combobox", name=box)
    if combo.input_value() == option:  # choosing the current value triggers no run
        return
    combo.click()
    combo.fill(option)
    rerun(page, page.get_by_role("option", name=option, exact=True).click)


def click_pool_point(page: Page, index: int) -> None:
    """Click the marker of pool point ``index`` in the pool scatter (SVG or WebGL traces)."""
    target = page.evaluate(
        """(index) => {
        const gd = document.querySelector('.js-plotly-plot');
        const L = gd._fullLayout, box = gd.getBoundingClientRect();
        for (const tr of gd._fullData) {
            const k = (tr.customdata || []).findIndex(c => Number(c) === index);
            if (k >= 0) return {x: box.left + L._size.l + L.xaxis.l2p(tr.x[k]),
                                y: box.top + L._size.t + L.yaxis.l2p(tr.y[k])};
        }
        return null;
    }""",
        index,
    )
    assert target is not None, f"point {index} is not drawn"
    page.mouse.move(target["x"], target["y"])
    page.mouse.click(target["x"], target["y"])
