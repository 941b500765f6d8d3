"""Keyboard habits of the Label page: one key press is one action, and focus leaves form fields.

The buttons' shortcuts (``1``–``9``, ``S``, ``U``) are Streamlit's own. Two browser-side rules
are added by a small script installed once per page (:func:`install_key_guard`):

* **No key while the query changes.** A shortcut key is dropped (stopped in the capture
  phase on ``window``, before Streamlit's listener on ``document``) when it is auto-repeated
  or pressed after another shortcut that has not yet drawn the next point (the query
  panel's marker, :mod:`rlscore.ui.refresh`, is unchanged and the run is not finished):
  until then the buttons on screen belong to the point being replaced. Runs of the views
  that follow the panel do not block keys: the panel is current then. A press that starts
  no run (e.g. a disabled button) frees the keys after :data:`NO_RUN_MS`.
* **Focus leaves a form field after a choice.** After an option of a select box is picked (by
  click or Enter), a toggle, checkbox or radio button is changed, or Enter is pressed in a
  text or number box, the field is blurred, so the next shortcut reaches the buttons instead
  of being typed into the box.

The server-side rule does not depend on this script: every label carries the point and the
log version that were on screen, and the session refuses a stale one
(:mod:`rlscore.sessions.session`). The script only spares the annotator the refusals.
"""

from __future__ import annotations

import streamlit as st

from rlscore.ui.refresh import PANEL_MARKER

#: milliseconds after an accepted shortcut during which a run must start, else keys are freed
NO_RUN_MS = 700

_SCRIPT = """
<script>
(() => {
  const w = window.parent && window.parent.document ? window.parent : window;
  if (w.__rlscoreKeyGuard) return;
  w.__rlscoreKeyGuard = true;
  const doc = w.document;
  const keys = new Set(["1","2","3","4","5","6","7","8","9","s","S","u","U"]);
  let pressedAt = 0, sawRun = false, busy = false, pressedOn = null;
  w.__rlscoreDroppedKeys = 0;
  // the query panel's marker (rlscore.ui.refresh) changes once the next point is drawn
  const panelState = () => {
    const m = doc.querySelector(__PANEL__);
    return m ? m.dataset.rlsState : null;
  };
  const typing = (el) => el && (el.isContentEditable ||
    ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
  const watch = () => {
    const app = doc.querySelector('[data-testid="stApp"]');
    if (!app) { w.setTimeout(watch, 50); return; }
    new w.MutationObserver(() => {
      const s = app.getAttribute("data-test-script-state");
      if (s === "running") sawRun = true;
      else if (sawRun) { busy = false; sawRun = false; }
    }).observe(app, {attributes: true, attributeFilter: ["data-test-script-state"]});
    new w.MutationObserver(() => {
      if (busy && pressedOn !== null && panelState() !== pressedOn) busy = false;
    }).observe(app, {subtree: true, childList: true, attributes: true,
                     attributeFilter: ["data-rls-state"]});
  };
  watch();
  w.addEventListener("keydown", (e) => {
    if (!keys.has(e.key) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (typing(doc.activeElement)) return;
    if (busy && !sawRun && Date.now() - pressedAt > __NO_RUN_MS__) busy = false;
    if (e.repeat || busy) {
      e.stopImmediatePropagation();
      e.preventDefault();
      w.__rlscoreDroppedKeys += 1;
      return;
    }
    busy = true; sawRun = false; pressedAt = Date.now(); pressedOn = panelState();
  }, true);
  const blurField = () => w.setTimeout(() => {
    const el = doc.activeElement;
    if (typing(el) && el.tagName !== "TEXTAREA") el.blur();
  }, 0);
  const choice = (el) => el && el.tagName === "INPUT" && ["checkbox", "radio"].includes(el.type);
  doc.addEventListener("click", (e) => {
    if (e.target.closest && e.target.closest('[role="option"]')) blurField();
    w.setTimeout(() => { if (choice(doc.activeElement)) doc.activeElement.blur(); }, 0);
  }, true);
  doc.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && typing(e.target)) blurField();
  }, true);
})();
</script>
""".replace("__NO_RUN_MS__", str(NO_RUN_MS)).replace("__PANEL__", repr(PANEL_MARKER))


def install_key_guard() -> None:
    """Install the page's key rules (once per browser page; later calls do nothing there)."""
    st.sidebar.html(_SCRIPT, unsafe_allow_javascript=True)


__all__ = ["NO_RUN_MS", "install_key_guard"]
