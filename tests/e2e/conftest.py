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
#: counts finished script runs in ``window.__runs`` (see ``rerun`` in app_page.py). A run is
#: counted when the server's "script finished" message (ForwardMsg field 6, any status but
#: "finished early for a rerun") has arrived and the app shows it is not running. The app's
#: ``data-test-script-state`` alone is not enough: for a short run Streamlit may never draw
#: "running" at all (seen with Streamlit 1.67: the attribute stayed "notRunning" while a run's
#: 24 messages arrived), so counting its changes missed runs.
RUN_COUNTER = """
(() => {
  window.__runs = 0;
  let pending = 0;
  const idle = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    return !!app && app.getAttribute('data-test-script-state') === 'notRunning';
  };
  const flush = () => { if (pending && idle()) { window.__runs += pending; pending = 0; } };
  // top-level fields of one ForwardMsg (protobuf): is it "script finished" (not for a rerun)?
  const finished = (buffer) => {
    const b = new Uint8Array(buffer);
    let i = 0;
    const varint = () => {
      let x = 0, scale = 1, c;
      do { c = b[i++]; x += (c & 0x7f) * scale; scale *= 128; } while (c & 0x80 && i < b.length);
      return x;
    };
    while (i < b.length) {
      const tag = varint(), field = Math.floor(tag / 8), wire = tag & 7;
      if (wire === 0) { const v = varint(); if (field === 6) return v !== 2; }
      else if (wire === 2) i += varint();
      else if (wire === 1) i += 8;
      else if (wire === 5) i += 4;
      else return false;
    }
    return false;
  };
  const count = (buffer) => {
    if (!finished(buffer)) return;
    pending += 1;
    // after the browser has drawn what the run sent (or when the app says it stopped)
    requestAnimationFrame(() => requestAnimationFrame(flush));
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        if (e.data instanceof ArrayBuffer) count(e.data);
        else if (e.data instanceof Blob) e.data.arrayBuffer().then(count);
      });
    }
  };
  new MutationObserver(flush).observe(document, {
    subtree: true, attributes: true, attributeFilter: ['data-test-script-state'],
  });
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
