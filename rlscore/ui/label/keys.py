"""Keyboard habits of the Label page: one key press is one action, and focus leaves form fields.

The buttons' shortcuts (``1``–``9``, ``S``, ``U``; ``Enter`` saves a multi-label project's
chosen set) are Streamlit's own. Browser-side rules are
added by a small script installed once per page (:func:`install_key_guard`):

* **No key while the query changes.** A shortcut key is dropped (stopped in the capture
  phase on ``window``, before Streamlit's listener on ``document``) when it is auto-repeated
  (``KeyboardEvent.repeat``: a key held down never labels) or pressed after another shortcut
  that has not yet drawn the next point (the query panel's marker, :mod:`rlscore.ui.label.refresh`,
  is unchanged and the run is not finished): until then the buttons on screen belong to the
  point being replaced. Runs of the views that follow the panel do not block keys: the panel
  is current then. A run that started and ended within one batch of DOM records (a
  multi-label project's class toggle, which draws no new point) frees the keys too. A press
  that starts no run (e.g. a disabled button) frees the keys after :data:`NO_RUN_MS`.
* **No press before a person could have seen the point.** The time each point is first
  drawn is recorded (when the panel's marker names a new point; kept in
  ``window.__rlscoreDrawTimes`` as ``{point, at}``, ``at`` in ms since the epoch), and a
  shortcut key or a click on a label or Skip button less than the minimum dwell after it
  (:mod:`rlscore.sessions.actions.dwell`, ``$RLSCORE_MIN_DWELL_MS``) is dropped. A point
  already on the page when the script starts was drawn at a time it cannot know (Streamlit
  draws ``st.html`` elements, the marker and this script, only once their code has loaded: on
  a loaded machine seconds after the point's heading and buttons), so no press on it is
  dropped as too soon (its record says ``earlier: true``); the server's dwell still holds it
  (below).
* **The paint is acknowledged to the server.** Two animation frames after a new point's
  marker appears (the point has been painted), the script presses the point's hidden
  acknowledgement button (:func:`rlscore.ui.label.actions.note_painted`, listed in
  ``window.__rlscorePaintAcks``): the server's minimum dwell counts from the later of its
  render and when that arrives; the script holds presses until the server has applied it.
* **A key no button answers is dropped with that reason** ("no button on this page answers
  key 1", e.g. after the project was deleted under the tab), not taken for a press whose
  point is still being drawn. A multi-label project's Save is disabled while no class is
  chosen (:mod:`rlscore.ui.label_sets.set_panel`): ``Enter`` then says so instead
  (:data:`NOTHING_CHOSEN`). An ``Enter`` right after a class toggle waits for the toggle's run
  (at most :data:`NO_RUN_MS` for it to start), so that Save is judged on the choice as it is
  then, not as drawn before the toggle.
* **The last press is remembered** (``window.__rlscoreLastPress``: its point, and whether
  the server took it), so that a press the server never took because the page met a
  database outage first is named (:mod:`rlscore.ui.shell.database_status`). A press is taken
  when the panel's marker shows more presses taken than when it was sent
  (:func:`rlscore.ui.label.actions.presses_taken`): the end of a run says nothing of it (a
  teammates' poll that started just before the press ends after it; so does the run that
  drew the outage message, whose press may never have reached a callback).
* **A dropped press says so.** A small status line at the bottom of the page says why
  ("Press ignored: the point had been on screen for 60 ms"); it clears when the next point is
  drawn — but one about a press dropped while the previous press was being answered (a key
  right after Undo) stays over that next point until the next press: it is about that change.
  Dropped presses are also counted in ``window.__rlscoreDroppedKeys`` and listed in
  ``window.__rlscoreDropped``.
* **Focus leaves a form field after a choice.** After an option of a select box is picked (by
  click or Enter), a toggle, checkbox or radio button is changed, or Enter is pressed in a
  text or number box, the field is blurred, so the next shortcut reaches the buttons instead
  of being typed into the box.

The server-side rules do not depend on this script: every label carries the point, the log
version, the project and the moment the point was drawn, and the session refuses a stale one,
one for a deleted project and one inside the minimum dwell counted from the later of the
server's render and the paint acknowledgement (:mod:`rlscore.ui.label.actions`,
:mod:`rlscore.sessions.actions.session`); without the acknowledgement (no script) the dwell
counts from the server's render. The script only spares the annotator the refusals.
"""

from __future__ import annotations

import json

import streamlit as st

from rlscore.sessions.actions.dwell import min_dwell_seconds
from rlscore.ui.label.refresh import PANEL_MARKER

#: milliseconds after an accepted shortcut during which a run must start, else keys are freed
NO_RUN_MS = 700
#: what ``Enter`` says when a multi-label project's Save is disabled: no class is chosen
NOTHING_CHOSEN = (
    "Enter ignored: no class is chosen. Tick the classes that apply, or press None of these "
    "if none does; nothing was saved."
)
#: the page's shortcut keys: the class keys, S (skip), Enter (a multi-label project's Save,
#: :mod:`rlscore.ui.label_sets.set_panel`) and U (undo); the first twelve act on the point shown
#: (held to the minimum dwell)
SHORTCUT_KEYS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "s", "S", "Enter", "u", "U")
ACTION_KEYS = SHORTCUT_KEYS[:12]


def js_key_set(keys: tuple[str, ...]) -> str:
    """``keys`` as a JavaScript ``Set`` expression (the keys are constants, never user text)."""
    return "new Set([" + ",".join(f'"{k}"' for k in keys) + "])"


_SCRIPT = """
<script>
(() => {
  const w = window.parent && window.parent.document ? window.parent : window;
  if (w.__rlscoreKeyGuard) return;
  w.__rlscoreKeyGuard = true;
  const doc = w.document;
  const keys = __KEYS__;
  const actionKeys = __ACTION_KEYS__;
  const minDwell = __MIN_DWELL_MS__;
  let pressedAt = 0, sawRun = false, busy = false, pressedOn = null;
  let drawnPoint = null, drawnAt = 0, ackPoint = null;
  // whether the point on screen was drawn before this script started (its draw time unknown)
  let drawnEarlier = false;
  // the acknowledgement's press and the end of the run that applied it (0: not yet)
  let ackSentAt = 0, ackRan = false, ackDoneAt = 0;
  w.__rlscoreDroppedKeys = 0;
  w.__rlscoreDropped = [];
  w.__rlscoreDrawTimes = [];
  w.__rlscorePaintAcks = [];
  // the last label or skip press sent: {point, taken, answered} (read by the outage script)
  w.__rlscoreLastPress = null;
  const marker = () => doc.querySelector(__PANEL__);
  // the query panel's marker (rlscore.ui.label.refresh) changes once the next point is drawn
  const panelState = () => { const m = marker(); return m ? m.dataset.rlsState : null; };
  // how many label and skip presses the server had taken when the panel was drawn
  const panelTaken = () => { const m = marker(); return m ? Number(m.dataset.rlsTaken) : NaN; };
  const typing = (el) => el && (el.isContentEditable ||
    ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
  let note = null;
  const say = (text) => {
    if (!note) note = doc.getElementById("rlscore-press-notice");  // the outage script's
    if (!note) {
      note = doc.createElement("div");
      note.id = "rlscore-press-notice";
      note.setAttribute("role", "status");
      note.style.cssText = "position:fixed;bottom:10px;left:50%;transform:translateX(-50%);" +
        "z-index:1000;padding:4px 12px;border-radius:6px;font-size:14px;" +
        "background:rgba(240,242,246,0.95);color:#31333f;box-shadow:0 1px 3px #0003";
      doc.body.appendChild(note);
    }
    note.textContent = text;  // text only: never interpreted as HTML
    note.hidden = false;
  };
  // looked up by id each time: the outage script may have made the status line (a lost press)
  const unsay = () => {
    note = doc.getElementById("rlscore-press-notice") || note;
    if (note) { note.hidden = true; note.textContent = ""; }
  };
  // a notice of a press dropped while the previous one was being answered is about that
  // change of point: it stays over the next point drawn, until the next press (a tester's
  // key pressed 30 ms after Undo was dropped with a notice the point drawn next cleared)
  let sticky = false;
  const drop = (e, reason, text) => {
    e.stopImmediatePropagation();
    e.preventDefault();
    w.__rlscoreDroppedKeys += 1;
    w.__rlscoreDropped.push({reason: reason, at: Date.now(), point: drawnPoint});
    say(text);
    sticky = reason === "busy";
  };
  // the point's paint acknowledged to the server (its hidden button, rlscore.ui.label.actions)
  // once a frame with it has been painted: the server's dwell counts from there
  const ack = () => {
    if (!ackPoint) return;
    const [uid, pt] = ackPoint.split(":");
    const button = doc.querySelector(".st-key-paint_" + uid + "_" + pt + " button");
    if (!button) return;
    w.__rlscorePaintAcks.push({point: ackPoint, at: Date.now()});
    ackPoint = null;
    ackSentAt = Date.now(); ackRan = false; ackDoneAt = 0;
    button.click();
  };
  const afterPaint = () => w.requestAnimationFrame(() => w.requestAnimationFrame(ack));
  // the last point drawn and when: a rerun that draws the panel blank for a moment and then
  // the same point again (a teammates' poll, under a newer log version) has not shown a new
  // point, as the server's showing of it goes on (rlscore.ui.label.actions.mark_shown), so
  // the dwell keeps counting from the first drawing (the paint is acknowledged again; the
  // server keeps the first). A blank panel alone clears no notice: one about a press on the
  // point stays. ``atStart``: the marker was on the page when this script started, so the
  // point was drawn earlier, when is not known here: Streamlit draws the st.html elements (the
  // marker, this script) only once their code has loaded, on a loaded machine seconds after
  // the point's heading and buttons (CI: a press dropped for "31 ms" on a point shown longer)
  let shown = null;
  const pointDrawn = (atStart = false) => {
    const m = marker();
    if (!m) return;
    const point = m.dataset.rlsPoint || "";
    const last = w.__rlscoreLastPress;
    if (last && !last.answered && Number(m.dataset.rlsTaken) > last.taken) last.answered = true;
    if (point === drawnPoint) return;
    const same = shown && point && shown.point === point;
    drawnPoint = point;
    drawnAt = same ? shown.at : Date.now();
    drawnEarlier = same ? shown.earlier : atStart && !!point;
    if (point) {
      if (!same) shown = {point: point, at: drawnAt, earlier: drawnEarlier};
      w.__rlscoreDrawTimes.push(
        drawnEarlier ? {point: point, at: drawnAt, earlier: true} : {point: point, at: drawnAt});
      ackPoint = point;
      if (!same && !sticky) unsay();
    }
    afterPaint();
  };
  // a press that reached a label or Skip button: remembered until the panel answers it
  const sent = () => {
    w.__rlscoreLastPress = {point: drawnPoint, taken: panelTaken(), answered: false};
  };
  // the enabled button a shortcut key presses (Streamlit's own shortcuts), if any
  // (a multi-label project's keys 1–9 toggle a class and Enter saves the set:
  // rlscore.ui.label_sets.set_panel)
  const BUTTONS = {s: ["skip_"], u: ["undo_"], enter: ["label_save_"]};
  const answers = (key) => {
    const k = key.toLowerCase(), c = Number(k) - 1;
    for (const name of BUTTONS[k] || ["label_" + c + "_", "label_toggle" + c + "_"]) {
      const b = doc.querySelector('[class*="st-key-' + name + '"] button:not([disabled])');
      if (b) return b;
    }
    return null;
  };
  // when the server had applied the point's paint acknowledgement, by this page's clock (0:
  // not yet); a run that cannot be seen starting frees it after NO_RUN_MS
  const confirmedAt = () => {
    const app = doc.querySelector('[data-testid="stApp"]');
    const idle = app && app.getAttribute("data-test-script-state") === "notRunning";
    if (!ackDoneAt && ackSentAt && !ackPoint && idle &&
        Date.now() - ackSentAt > __NO_RUN_MS__) ackDoneAt = Date.now();
    return ackPoint ? 0 : ackDoneAt;
  };
  w.__rlscoreConfirmedAt = confirmedAt;
  // a press the server could not yet count from its paint acknowledgement is held, bound to
  // the point on screen, and sent once the server's dwell has passed too (a busy page does not
  // lose it); it is dropped, with a notice, if another point is drawn first
  let held = null;
  // how long a held press waits through a panel drawn blank before it is given up (ms)
  const HOLD_BLANK_MS = 10000;
  const release = () => {
    if (!held) return;
    // the panel drawn blank for a moment (a page run) is not another point: wait for it
    if (drawnPoint === "" && Date.now() - held.at < HOLD_BLANK_MS) {
      held.timer = w.setTimeout(release, 40);
      return;
    }
    if (drawnPoint !== held.point) {
      held = null;
      say("Press not sent: another point was drawn before the server confirmed the one you " +
          "pressed on; nothing was saved.");
      return;
    }
    const c = confirmedAt();
    const button = doc.querySelector('[class*="' + held.key + '"] button:not([disabled])');
    if (c && Date.now() - c >= minDwell && button) {
      held = null;
      unsay();
      button.click();
      return;
    }
    held.timer = w.setTimeout(release, 40);
  };
  const hold = (e, key) => {
    e.stopImmediatePropagation();
    e.preventDefault();
    if (held) w.clearTimeout(held.timer);
    // the button's key without its log version: a teammate's label redraws the panel's
    // buttons under a newer version, still on this point
    held = {point: drawnPoint, key: key.replace(/[^_]*$/, ""), at: Date.now(),
            timer: w.setTimeout(release, 40)};
    w.__rlscoreHeld = (w.__rlscoreHeld || 0) + 1;
    say("Your press is kept: it is sent once the server has counted this point's time on " +
        "screen.");
  };
  // a press on the point on screen less than the minimum dwell after it was drawn is dropped
  // (not one on a point drawn before this script started: how long it has been on screen is
  // not known here); one the server cannot count yet (the paint acknowledgement not applied,
  // or applied less than the dwell ago) is held. ``key``: the st-key class of the button
  // pressed
  const tooSoon = (e, key) => {
    const dwell = Date.now() - drawnAt;
    if (!drawnPoint || minDwell <= 0) return false;
    if (dwell < minDwell && !drawnEarlier) {
      drop(e, "dwell", "Press ignored: the point had been on screen for " + dwell + " ms " +
           "(less than " + minDwell + " ms).");
      return true;
    }
    const confirmed = confirmedAt();
    if (!confirmed || Date.now() - confirmed < minDwell) {
      hold(e, key);
      return true;
    }
    return false;
  };
  // whether an st-key class is a multi-label class toggle (rlscore.ui.label_sets.set_panel)
  const isToggle = (key) => !!key && key.startsWith("st-key-label_toggle");
  // when the last class toggle was sent (0: a run ended since, or none started in time):
  // until then Save on screen (enabled only once a class is chosen) is not the choice yet
  let toggleAt = 0;
  const toggleAnswered = () => {
    const app = doc.querySelector('[data-testid="stApp"]');
    const running = app && app.getAttribute("data-test-script-state") === "running";
    if (toggleAt && !running && Date.now() - toggleAt > __NO_RUN_MS__) toggleAt = 0;
    return !toggleAt;
  };
  // a multi-label project's Save, shown but disabled: no class is chosen
  const saveDisabled = () =>
    !!doc.querySelector('[class*="st-key-label_save_"] button[disabled]');
  // the press of a key once its button is known: shortcut keys lock until answered
  const press = (e, button) => {
    const key = keyClass(button);
    if (actionKeys.has(e.key) && tooSoon(e, key)) return false;
    // a multi-label project's class toggle changes no point and stores nothing: it neither
    // locks the keys (its short run may never show as running) nor counts as a press sent
    if (isToggle(key)) { toggleAt = Date.now(); return true; }
    busy = true; sawRun = false; pressedAt = Date.now(); pressedOn = panelState();
    if (actionKeys.has(e.key)) sent();
    return true;
  };
  // Enter with Save disabled: no class chosen, said so (a key no button answers otherwise)
  const unanswered = (e) => {
    if (e.key === "Enter" && saveDisabled()) drop(e, "nothing chosen", __NOTHING_CHOSEN__);
    else drop(e, "none", "Press ignored: no button on this page answers key " + e.key +
              "; nothing was saved.");
  };
  // an Enter sent while a toggle's run is pending: held until it has ended, then pressed
  // (Save enabled) or said to have nothing to save; another point drawn meanwhile drops it
  const enterAfterToggle = (e, point) => {
    if (!toggleAnswered()) { w.setTimeout(() => enterAfterToggle(e, point), 40); return; }
    if (drawnPoint !== point) return;
    const button = answers("Enter");
    if (!button) { unanswered(e); return; }
    if (press(e, button)) button.click();
  };
  // the st-key class of a button's container (its widget key: rlscore.ui.label.actions)
  const keyClass = (button) => {
    const box = button && button.closest('[class*="st-key-"]');
    const m = box && box.className.match(/st-key-\\S+/);
    return m ? m[0] : null;
  };
  const watch = () => {
    const app = doc.querySelector('[data-testid="stApp"]');
    if (!app) { w.setTimeout(watch, 50); return; }
    // the states the runs went through, from the records' old values: a short run (a
    // multi-label toggle) can start and end within one batch of records
    new w.MutationObserver((records) => {
      const states = records.map((r) => r.oldValue);
      states.push(app.getAttribute("data-test-script-state"));
      for (let j = 1; j < states.length; j++) {
        const running = states[j] === "running";
        const ended = !running && states[j - 1] === "running";
        if (ackSentAt && !ackDoneAt) {  // the run that applies the acknowledgement, and its end
          if (running) ackRan = true;
          else if (ended && ackRan) ackDoneAt = Date.now();
        }
        // any run that ends after the press frees the keys: a press made while a run was
        // going (a teammate's poll, the paint acknowledgement) may be answered by that run's
        // continuation, so no start of a run of its own is seen (the server still refuses a
        // second press on a point that changed)
        if (running) sawRun = true;
        else if (ended && busy) { busy = false; sawRun = false; }
        else if (ended) sawRun = false;
        if (ended) toggleAt = 0;  // the toggle's run (or a later one) has drawn Save
      }
    }).observe(app, {attributes: true, attributeFilter: ["data-test-script-state"],
                     attributeOldValue: true});
    new w.MutationObserver(() => {
      pointDrawn();
      if (ackPoint) afterPaint();
      if (busy && pressedOn !== null && panelState() !== pressedOn) busy = false;
    }).observe(app, {subtree: true, childList: true, attributes: true,
                     attributeFilter: ["data-rls-state", "data-rls-point", "data-rls-taken"]});
    pointDrawn(true);
  };
  watch();
  w.addEventListener("keydown", (e) => {
    if (!keys.has(e.key) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (typing(doc.activeElement)) return;
    // in an outage the outage script refuses keys (rlscore.ui.shell.database_status)
    if (doc.querySelector("[data-rls-outage]")) return;
    sticky = false;  // a new press: the notice of a dropped one goes with the next point
    if (busy && !sawRun && Date.now() - pressedAt > __NO_RUN_MS__) busy = false;
    if (e.repeat) { drop(e, "repeat", "Press ignored: a key held down does not label."); return; }
    if (busy) {
      drop(e, "busy", "Press ignored: your previous press is still being answered.");
      return;
    }
    if (e.key === "Enter" && !toggleAnswered()) {
      e.stopImmediatePropagation();
      e.preventDefault();
      enterAfterToggle(e, drawnPoint);
      return;
    }
    const button = answers(e.key);
    if (!button) { unanswered(e); return; }
    press(e, button);
  }, true);
  // clicks on a label or Skip button are held to the same minimum dwell
  w.addEventListener("click", (e) => {
    const t = e.target;
    const box = t && t.closest && t.closest('[class*="st-key-label_"], [class*="st-key-skip_"]');
    if (!box) return;
    sticky = false;
    if (tooSoon(e, keyClass(box))) return;
    if (isToggle(keyClass(box))) toggleAt = Date.now();
    else sent();
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
"""


def key_guard_script() -> str:
    """The page script of the key rules (an HTML ``<script>`` element; module docstring)."""
    return (
        _SCRIPT.replace("__NO_RUN_MS__", str(NO_RUN_MS))
        .replace("__ACTION_KEYS__", js_key_set(ACTION_KEYS))
        .replace("__KEYS__", js_key_set(SHORTCUT_KEYS))
        .replace("__PANEL__", repr(PANEL_MARKER))
        .replace("__MIN_DWELL_MS__", str(round(min_dwell_seconds() * 1000)))
        .replace("__NOTHING_CHOSEN__", json.dumps(NOTHING_CHOSEN))
    )


def install_key_guard() -> None:
    """Install the page's key rules (once per browser page; later calls do nothing there)."""
    st.sidebar.html(key_guard_script(), unsafe_allow_javascript=True)


__all__ = ["NOTHING_CHOSEN", "NO_RUN_MS", "install_key_guard", "key_guard_script"]
