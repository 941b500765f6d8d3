"""The label database gone away: a message, retries with backoff, and the page back by itself.

When the store raises :class:`~rlscore.storage.DatabaseUnavailableError` (a PostgreSQL server
stopped or restarting), the page does not show Streamlit's error box: :func:`show_outage`
replaces what the run was drawing with "The label database is unreachable; retrying in N s"
and what became of the tab's last label, skip or undo (:func:`note_saved`,
:func:`note_unavailable`). A small fragment counts down and tries the database again with a
growing pause (:data:`BACKOFF_SECONDS`); once it answers, an interrupted write whose commit
was not confirmed is looked up (:meth:`~rlscore.storage.LabelStore.find_event`), the outcome
is flashed, and the whole page runs again: it resumes without a reload.

While the message is up the page has no label buttons; a shortcut key pressed then is
refused with the same message in the page's status line (never dropped without a word). A
click that reached the server before the page noticed is refused by its callback
(:mod:`rlscore.ui.label.actions`), which says so and records the outcome shown here. A press
sent as the page met the outage, whose button was gone before the server could run its
callback, is named by the page's status line ("Your press on point #349 was not saved"): the
script sees that the press was not answered and that the message does not name its point.

:func:`database_guard` wraps a whole run (``app.py``),
:func:`~rlscore.ui.shell.errors.report_errors` sends this error here too, so it never reaches the
browser as an exception. Wherever the outage is met — a block of the page, a fragment's run, a
callback — it is recorded and the page runs again (:func:`enter_outage`): that run draws the
message alone, at the top of the page, before anything else (:func:`database_guard`). One
message in one place, never a second copy in the fragment that met it, nor below a half-drawn
page.
"""

from __future__ import annotations

import html
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from rlscore.storage import DatabaseUnavailableError, UnknownProjectError
from rlscore.ui.label.keys import SHORTCUT_KEYS, js_key_set
from rlscore.ui.shell.flash import flash
from rlscore.ui.shell.navigation import end_page
from rlscore.ui.shell.store import get_store

_LOG = logging.getLogger("rlscore.ui")

#: pauses between tries of the database, then the last one again (seconds)
BACKOFF_SECONDS = (1, 2, 3, 5)
#: how often the countdown is redrawn (seconds)
TICK_SECONDS = 1.0
#: session keys: the outage being waited out, and the tab's last write
_OUTAGE = "database_outage"
_LAST_WRITE = "database_last_write"
_WORDS = {"label": "label", "skip": "skip", "undo": "undo", "review": "decision"}


def backoff(attempt: int) -> float:
    """Seconds to wait before try ``attempt`` (0, 1, …) of the database."""
    return float(BACKOFF_SECONDS[min(attempt, len(BACKOFF_SECONDS) - 1)])


def note_saved(kind: str, point: int | None) -> None:
    """Record that the tab's last ``kind`` action (on ``point``) was committed."""
    st.session_state[_LAST_WRITE] = {"kind": kind, "point": point, "status": "saved"}


def note_unavailable(exc: DatabaseUnavailableError, kind: str, point: int | None) -> None:
    """Record that the tab's last ``kind`` action (on ``point``) met the outage ``exc``:
    not saved, or not known yet (its commit was interrupted: looked up once the database is
    back)."""
    if exc.committed is None:  # looked up once the database is back, if it can be
        status = "unknown" if exc.event is not None else "maybe"
    else:
        status = "saved" if exc.committed else "not_saved"
    st.session_state[_LAST_WRITE] = {
        "kind": kind,
        "point": point,
        "status": status,
        "project": exc.project,
        "event": exc.event,
        "after_id": exc.after_id,
    }
    _start_outage(exc)


def last_write_text() -> str:
    """What became of the tab's last action, for the outage message ("" if none yet)."""
    last = st.session_state.get(_LAST_WRITE)
    if last is None:
        return "nothing is saved until it is back"
    what = f"your last {_WORDS.get(last['kind'], last['kind'])}"
    if last["point"] is not None:
        what += f" (point #{last['point']})"
    if last["status"] == "saved":
        return f"{what} was saved"
    if last["status"] == "not_saved":
        return f"{what} was not saved: do it again once the page is back"
    if last["status"] == "maybe":  # an interrupted commit that cannot be looked up
        return f"{what} may or may not have been saved: check it once the page is back"
    return f"{what} may not have reached the database: that is checked as soon as it is back"


def refusal_text() -> str:
    """What an action that met the outage is told (after :func:`note_unavailable`)."""
    return f"The label database is unreachable — {last_write_text()}."


def outage_text(seconds: float) -> str:
    """The outage message with ``seconds`` until the next try."""
    wait = max(0, round(seconds))
    when = f"retrying in {wait} s" if wait else "retrying now"
    return f"The label database is unreachable; {when} — {last_write_text()}."


def _start_outage(exc: DatabaseUnavailableError) -> None:
    if st.session_state.get(_OUTAGE) is None:
        _LOG.warning("label database unreachable: %s", exc)  # the password is not in it
        st.session_state[_OUTAGE] = {"attempt": 0, "next": time.monotonic() + backoff(0)}


def _resolve_last_write() -> None:
    """Once the database is back: look up a write whose commit was interrupted, and flash
    what became of it."""
    last = st.session_state.get(_LAST_WRITE)
    if last is None or last["status"] in ("saved", "maybe"):
        flash("info", "The label database is back.")
        return
    if last["status"] == "unknown":
        try:
            found = get_store().find_event(
                last["project"], last["event"], after_id=last["after_id"]
            )
        except UnknownProjectError:  # the project was deleted meanwhile: nothing of it kept
            found = None
        last["status"] = "saved" if found is not None else "not_saved"
    word = _WORDS.get(last["kind"], last["kind"])
    point = "" if last["point"] is None else f" of point #{last['point']}"
    if last["status"] == "saved":
        flash("success", f"The label database is back: your {word}{point} was saved.")
    else:
        flash(
            "warning",
            f"The label database is back: your {word}{point} was not saved; do it again.",
        )


def database_back() -> bool:
    """Try the database once; True if it answers: the outage is over, and what became of
    the tab's last write, if the outage met it, is flashed (looked up first if its commit
    was interrupted)."""
    try:
        get_store().ping()
        _resolve_last_write()
    except DatabaseUnavailableError:
        return False
    st.session_state.pop(_OUTAGE, None)
    _LOG.warning("label database reachable again")
    return True


_KEY_SCRIPT = """
<script>
(() => {
  const w = window.parent && window.parent.document ? window.parent : window;
  if (w.__rlscoreOutageKeys) return;
  w.__rlscoreOutageKeys = true;
  const doc = w.document;
  const keys = __KEYS__;
  w.__rlscoreOutageRefused = 0;
  const REFUSED = "Press refused, nothing saved: ";
  // a press sent just before the page met the outage, that the message does not name: its
  // button was gone before the server could apply it (rlscore.ui.label.keys keeps it)
  let lost = "";
  const status = (text) => {
    // the key guard's status line (rlscore.ui.label.keys), created here if the page has none
    let note = doc.getElementById("rlscore-press-notice");
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
    return note;
  };
  w.addEventListener("keydown", (e) => {
    if (!keys.has(e.key) || e.ctrlKey || e.metaKey || e.altKey) return;
    const shown = doc.querySelector("[data-rls-outage]");
    if (!shown) return;
    const el = doc.activeElement;
    if (el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName)))
      return;
    e.preventDefault();
    w.__rlscoreOutageRefused += 1;
    // the point the press was for: the last one drawn (the message has replaced it), named
    // so that "your last label was saved" is never read as this press's fate
    const drawn = w.__rlscoreDrawTimes || [];
    const on = drawn.length ? String(drawn[drawn.length - 1].point).split(":").pop() : "";
    status(REFUSED + (on ? "(point #" + on + ") " : "") + shown.dataset.rlsOutage +
      (lost ? " " + lost : ""));
  }, true);
  w.setInterval(() => {
    const shown = doc.querySelector("[data-rls-outage]");
    const last = w.__rlscoreLastPress;
    if (shown && last && last.point && !last.answered && !last.reported) {
      last.reported = true;
      const n = last.point.split(":").pop();
      if (!shown.dataset.rlsOutage.includes("(point #" + n + ")")) {
        lost = "Your press on point #" + n + " was not saved: the page met the outage " +
          "before it was applied. Press it again once the page is back.";
        w.__rlscoreLostPress = n;
        status(lost);
      }
    }
    // the refusal goes once the database is back (the message is gone); a lost press stays
    const note = doc.getElementById("rlscore-press-notice");
    if (note && !note.hidden && note.textContent.startsWith(REFUSED) && !shown) {
      if (lost) note.textContent = lost; else note.hidden = true;
    }
    if (!shown && note && note.hidden) lost = "";
  }, 250);
})();
</script>
"""


def outage_pending() -> bool:
    """Whether this tab is waiting out an outage of the label database."""
    return st.session_state.get(_OUTAGE) is not None


def enter_outage(exc: DatabaseUnavailableError) -> None:
    """Record the outage ``exc`` met anywhere in a run and run the whole page again: that run
    shows the message alone (:func:`database_guard`). Raises Streamlit's rerun."""
    _start_outage(exc)
    st.rerun()  # from a fragment's run too: the whole page, so the message has one place


def show_outage() -> None:
    """Draw the outage message in place of the page, retry the database with backoff and run
    the page again once it answers; ends the page's run (``end_page``)."""
    script = _KEY_SCRIPT.replace("__KEYS__", js_key_set(SHORTCUT_KEYS))
    st.html(script, unsafe_allow_javascript=True)

    @st.fragment(run_every=TICK_SECONDS)
    def retry() -> None:
        outage = st.session_state.get(_OUTAGE)
        if outage is None:  # another run of this tab saw the database back
            st.rerun()
        now = time.monotonic()
        if now >= outage["next"]:
            if database_back():
                st.rerun()  # the whole page, as it was before the outage
            outage["attempt"] += 1
            outage["next"] = time.monotonic() + backoff(outage["attempt"])
        text = outage_text(outage["next"] - time.monotonic())
        st.error(text, icon=":material/cloud_off:")
        # the key refusal (the script above) quotes the message; the marker takes no room
        st.html(
            f"<span data-rls-outage='{html.escape(text)}' style='display:none'></span>"
            "<style>.stElementContainer:has(span[data-rls-outage]) {display: none}</style>"
        )

    retry()
    end_page()


@contextmanager
def database_guard(*, page: bool = True) -> Iterator[None]:
    """Run a page: while the label database cannot be reached, show the outage message alone
    and retry (:func:`show_outage`) instead of the page; an outage met during the page records
    it and runs the page again (:func:`enter_outage`), never an exception.

    ``page=False`` guards what runs before the page (the sign-in gate, which draws nothing
    before it fails): the message is drawn in place, since a run again would meet the same
    outage there before reaching the page's guard."""
    if page and outage_pending():
        show_outage()
    try:
        yield
    except DatabaseUnavailableError as exc:
        if not page:
            _start_outage(exc)
            show_outage()
        enter_outage(exc)


__all__ = [
    "BACKOFF_SECONDS",
    "backoff",
    "database_back",
    "database_guard",
    "enter_outage",
    "last_write_text",
    "note_saved",
    "note_unavailable",
    "outage_pending",
    "outage_text",
    "refusal_text",
    "show_outage",
]
