"""The Label page's views follow its query panel, one step behind, so a label is answered fast.

A label reruns only the query panel's fragment: the next point and its buttons are drawn in
about Streamlit's own round trip. Redrawing the pool plot (a few thousand markers and a
decision surface) takes the browser longer than all the rest, so the plot and the figures
below the fold are fragments of their own that are refreshed right *after* the panel has
been drawn: each fragment writes a marker of the state it shows (:func:`marker`), and a small
script (:func:`install_view_refresh`) presses a view's hidden refresh button
(:func:`refresh_button`) when its marker differs from the panel's. The annotator can label
the next point while the plot catches up; a full page run draws everything at once.

Streamlit may drop one of two fragment runs asked for at the same moment (a label pressed
while a view refreshes): the action itself runs, but one fragment is not redrawn. The script
therefore asks for one run at a time, and redraws the panel when a view shows a newer log
version than the panel does — the panel never stays behind.
"""

from __future__ import annotations

import html

import streamlit as st

#: hidden buttons that rerun a view's fragment (pressed by the script, never by a person)
REFRESH_KEYS = ("refresh_plot", "refresh_figures")
_PAGE_RUN = "page_run_requested"
#: hidden button that redraws the query panel (when a view got ahead of it)
PANEL_REFRESH = "refresh_panel"
#: CSS selector of the query panel's marker (the last element the panel draws)
PANEL_MARKER = "[data-rls-view='panel']"

_SCRIPT = """
<script>
(() => {
  const w = window;
  if (w.__rlscoreViewRefresh) return;
  w.__rlscoreViewRefresh = true;
  const doc = w.document;
  const keys = __KEYS__;
  const app = () => doc.querySelector('[data-testid="stApp"]');
  const idle = () => app() && app().getAttribute("data-test-script-state") === "notRunning";
  // one run at a time: Streamlit may drop one of two fragment runs asked for at once
  let pending = 0, sawRun = false;
  const tries = new Map();
  const seen = (state) => Number(String(state).split("|")[0]);
  const press = (key, state) => {
    const button = doc.querySelector(".st-key-" + key + " button");
    const n = tries.get(key + "@" + state) || 0;
    if (!button || n >= 3) return false;
    tries.set(key + "@" + state, n + 1);
    pending = Date.now(); sawRun = false;
    button.click();
    return true;
  };
  const check = () => {
    if (pending && Date.now() - pending < 2000) return;
    pending = 0;
    if (!idle()) return;
    const panel = doc.querySelector(__PANEL__);
    if (!panel) return;
    for (const key of keys) {
      const view = doc.querySelector("[data-rls-view='" + key + "']");
      if (!view || view.dataset.rlsState === panel.dataset.rlsState) continue;
      // a view ahead of the panel: the panel's own run was dropped, so it is redrawn;
      // else the view catches up with the panel
      const ahead = seen(view.dataset.rlsState) > seen(panel.dataset.rlsState);
      if (ahead ? press(__PANEL_KEY__, view.dataset.rlsState)
                : press(key, panel.dataset.rlsState)) return;
    }
  };
  const watch = () => {
    if (!app()) { w.setTimeout(watch, 50); return; }
    new w.MutationObserver(() => {
      if (!idle()) sawRun = true;
      else if (sawRun) { pending = 0; sawRun = false; }
      check();
    }).observe(app(), {subtree: true, childList: true, attributes: true,
      attributeFilter: ["data-test-script-state", "data-rls-state"]});
    w.setInterval(check, 500);  // a dropped run changes nothing on the page: look again
  };
  watch();
})();
</script>
"""


def install_view_refresh() -> None:
    """Install the script that refreshes the views after the panel (once per browser page)."""
    keys = "[" + ", ".join(f'"{k}"' for k in REFRESH_KEYS) + "]"
    script = (
        _SCRIPT.replace("__KEYS__", keys)
        .replace("__PANEL__", repr(PANEL_MARKER))
        .replace("__PANEL_KEY__", repr(PANEL_REFRESH))
    )
    st.sidebar.html(script, unsafe_allow_javascript=True)
    # the refresh buttons are for the script only; the markers take no room
    rules = ", ".join(f".st-key-{k}" for k in (*REFRESH_KEYS, PANEL_REFRESH))
    st.html(
        f"<style>{rules}, .stElementContainer:has(span[data-rls-view]) {{display: none}}</style>"
    )


def marker(view: str, state: str, point: str | None = None, taken: int | None = None) -> None:
    """Write an invisible marker saying which ``state`` the ``view`` (``"panel"`` or one of
    :data:`REFRESH_KEYS`) shows; ``state`` starts with the log version (``"<seen>|…"``).

    ``point``: the panel's marker also names the point its buttons act on
    (``"<project uid>:<point>"``, empty when none), so the page's key guard knows when a new
    point is drawn (:mod:`rlscore.ui.label.keys`); ``taken``: and how many label and skip
    presses the server has taken (:func:`rlscore.ui.label.actions.presses_taken`)."""
    extra = "" if point is None else f" data-rls-point='{html.escape(point)}'"
    if taken is not None:
        extra += f" data-rls-taken='{int(taken)}'"
    st.html(
        f"<span data-rls-view='{html.escape(view)}' "
        f"data-rls-state='{html.escape(state)}'{extra}></span>"
    )


def request_page_run() -> None:
    """From a callback in a view: the action changed what the panel shows too (a point picked
    in the plot, auto-labeling, a relabel), so the whole page runs next."""
    st.session_state[_PAGE_RUN] = True


def follow_page_run() -> None:
    """First thing in a view's fragment: run the whole page if an action asked for it."""
    if st.session_state.pop(_PAGE_RUN, False):
        st.rerun()


def refresh_button(view: str) -> None:
    """The hidden button the script presses to rerun the fragment it is in."""
    st.button("Refresh", key=view)


def start_view(view: str) -> None:
    """First thing in a view's fragment (one of :data:`REFRESH_KEYS`): run the whole page if
    an action asked for it, then the view's refresh button."""
    follow_page_run()
    refresh_button(view)


__all__ = [
    "PANEL_MARKER",
    "PANEL_REFRESH",
    "REFRESH_KEYS",
    "follow_page_run",
    "install_view_refresh",
    "marker",
    "refresh_button",
    "request_page_run",
    "start_view",
]
