"""A teammate's label of the point on your screen is said beside your next point, in Chromium
(explore-perm finding 8).

ann's Label page showed point #71; rev labeled #71 from Python; the teammates' poll redrew the
page with #94 and no notice, and a press a moment later was saved on #94. Now the redraw says
"A teammate labeled point #71 (… s ago) after it was shown here; here is your next point." —
without the teammate's name or label — and the annotator's own label, or a teammate's label of
another point, adds no such notice.
"""

from __future__ import annotations

import re

from app_page import (
    FRESH,
    heading_number,
    open_app,
    press_after_dwell,
    settle,
    wait_text,
)
from playwright.sync_api import expect

from rlscore.storage import Event, open_store

#: the current run's alerts (a replaced alert Streamlit still holds while a run redraws is stale)
ALERT = f'{FRESH} [data-testid="stAlert"]'


def teammate_labels(db, point: int) -> None:
    """rev labels ``point`` of two_moons from Python (another server, or a script)."""
    with open_store(db) as store:
        store.append_event("two_moons", Event("label", point=point, label=1, annotator="rev"))


def test_a_point_a_teammate_took_is_said_beside_the_next_one(page, start_server):
    srv = start_server(poll_seconds=0.5)  # the teammates' poll redraws the page, as found
    q = open_app(page, f"{srv.url}/?project=two_moons", 0, annotator="ann")
    settle(page)
    teammate_labels(srv.db, q)
    taken = page.locator(ALERT).filter(has_text="A teammate")
    expect(taken).to_have_text(
        re.compile(
            rf"A teammate labeled point #{q} \(\d+ s ago\) after it was shown here; "
            r"here is your next point\."
        )
    )
    settle(page)
    nxt = heading_number(page, "Next query:")
    assert nxt != q
    assert "rev" not in taken.inner_text()  # an annotator is never told who, nor the label
    # the annotator's own label: its notice replaces this one, and no "teammate" is said
    press_after_dwell(page, "1", nxt)
    wait_text(page, "Labeled 2 of 220")
    expect(page.locator(ALERT).filter(has_text=f"Saved: point #{nxt} labeled")).to_be_visible()
    expect(taken).to_have_count(0)
    # a teammate's label of another point: the poll redraws the page, the point stays
    mine = heading_number(page, "Next query:")
    teammate_labels(srv.db, next(p for p in range(220) if p not in (q, nxt, mine)))
    wait_text(page, "Labeled 3 of 220")
    assert heading_number(page, "Next query:") == mine
    expect(taken).to_have_count(0)
