"""Browser contexts for the browser tests: a fresh context that counts the app's script runs."""

from __future__ import annotations

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


def new_context(browser, height: int = 1400):
    """A fresh browser context (no cookies, no Streamlit session) that counts script runs."""
    context = browser.new_context(viewport={"width": 1400, "height": height}, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(RUN_COUNTER)
    return context
