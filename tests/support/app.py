"""The app (app.py and its pages) in Streamlit's AppTest: reading and driving the Label page."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from rlscore.sessions import LabelLog
from rlscore.storage import open_store

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 180


def app_page(page: str, timeout: float = TIMEOUT) -> AppTest:
    """An AppTest of ``app.py`` showing ``pages/<page>`` (not run yet): the page inside the
    app's gate, sidebar and navigation, as a browser gets it. A page file given to AppTest on
    its own would run ``app.py``'s default page instead (rlscore.ui.shell.navigation)."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=timeout)
    # before the first run the page is found by its file name: each url_path is its stem
    at.switch_page(f"pages/{page}")
    return at


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def stored_log(db: Path, project: str) -> LabelLog:
    """The labels as stored in the database (read independently of the app)."""
    with open_store(db) as store:
        return LabelLog(store.events(project))


def plain_markdown(markdown: str) -> str:
    """The text a Markdown string with backslash escapes renders as (md_text's invisible
    word joiners dropped)."""
    return re.sub(r"\\(.)", r"\1", markdown.replace("\u2060", ""))


def button(at: AppTest, kind: str, k: int | str = ""):
    """The Label page's ``kind`` button (``label`` with class position ``k``, ``skip``,
    ``undo``): their keys carry the point and log version shown (rlscore.ui.label.actions)."""
    return next(b for b in at.button if b.key and b.key.startswith(f"{kind}_{k}_"))


def query_point(at: AppTest) -> int:
    heading = next(h.value for h in at.subheader if h.value.startswith("Next query: point #"))
    return int(heading.rsplit("#", 1)[1])
