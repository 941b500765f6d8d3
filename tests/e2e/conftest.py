"""Fixtures for the browser tests: Debian's chromium driven by Playwright, a live server.

Without chromium the tests are skipped, unless ``RLSCORE_REQUIRE_BROWSER=1`` (CI), which
turns "browser missing" into a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from streamlit_server import CHROMIUM_ARGS, REPO, StreamlitServer, chromium_executable

ARTIFACTS = REPO / "tests" / "e2e" / "artifacts"
#: generous upper bound for one page update on a loaded 2-core CI machine (waits end early)
TIMEOUT_MS = 90_000
#: counts finished script runs in ``window.__runs`` (see ``rerun`` in test_browser.py)
RUN_COUNTER = """
(() => {
  window.__runs = 0;
  const hook = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app) { setTimeout(hook, 20); return; }
    new MutationObserver(() => {
      if (app.getAttribute('data-test-script-state') === 'notRunning') window.__runs += 1;
    }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  };
  hook();
})();
"""


def _browser_missing(reason: str):
    if os.environ.get("RLSCORE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (RLSCORE_REQUIRE_BROWSER=1)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    exe = chromium_executable()
    if exe is None:
        _browser_missing("chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _browser_missing("playwright is not installed (pip install playwright)")
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def artifacts(request) -> Path:
    """Screenshots and downloads of one test: tests/e2e/artifacts/<test name>/ (gitignored)."""
    path = ARTIFACTS / request.node.name.replace("/", "_")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def server(tmp_path, artifacts):
    srv = StreamlitServer(tmp_path / "labels.sqlite3", artifacts / "server.log")
    srv.start()
    yield srv
    srv.stop()


def new_context(browser, height: int = 1400):
    """A fresh browser context (no cookies, no Streamlit session) that counts script runs."""
    context = browser.new_context(viewport={"width": 1400, "height": height}, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(RUN_COUNTER)
    return context


@pytest.fixture
def fresh_page(browser, server):
    """Factory of pages, each in a context of its own (closed at the end of the test)."""
    contexts = []

    def make():
        contexts.append(new_context(browser, height=1000))
        return contexts[-1].new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(browser, server, artifacts, request):
    context = new_context(browser)
    pg = context.new_page()
    yield pg
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:  # what the browser showed when the test failed
        pg.screenshot(path=artifacts / "failure.png", full_page=True)
    context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report
