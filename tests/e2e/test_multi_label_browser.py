"""A multi-label project labeled in the browser (issue 38): ten label sets given on the Label
page — five by keys (the class keys toggle, Enter saves), five by clicks (toggles and Save,
once "None of these") — each stored set read back from the database and bound to the point
whose number was on screen when it was saved.

Every press waits until its point has been drawn for the minimum dwell (the page's own draw
times), and every toggle but one until its run has finished, as a person's would. The one is
followed by Enter at once, as a quick typist's is: the Enter waits for the toggle's run, which
enables Save. Enter with nothing chosen (Save disabled) stores nothing and says so: it stored
"(none of these)" while the page said "Chosen: nothing yet".
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from app_page import heading_number, open_app, rerun, stored, wait_dwell, wait_text
from playwright.sync_api import expect

from rlscore.data.projects.table_project import project_from_table
from rlscore.storage import open_store
from rlscore.ui.label.keys import NOTHING_CHOSEN

NAME = "ml_browser_tags"
CLASSES = ["news", "sports", "tech"]
#: the sets given by keys (class positions), then by clicks (the empty one: None of these)
BY_KEYS = [(0,), (0, 2), (1,), (1, 2), (0, 1, 2)]
BY_CLICKS = [(2,), (0, 1), (), (0,), (1, 2)]
N = 40


def tagged_table() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(N, 2))
    tags = [
        "|".join(c for k, c in enumerate(CLASSES) if X[i, k % 2] > (k - 1) / 2) for i in range(N)
    ]
    return pd.DataFrame({"x1": X[:, 0], "x2": X[:, 1], "tags": tags})


def chosen_text(positions: tuple) -> str:
    return "Chosen: " + (" | ".join(CLASSES[k] for k in positions) if positions else "nothing yet")


def button(page, kind: str, point: int):
    """A button of the point ``point``'s panel by its widget key (rlscore.ui.label.actions)."""
    # the one on screen: a run can leave a hidden or stale copy behind for a moment
    live = '.stElementContainer:not([data-stale="true"])'
    return page.locator(f'{live}[class*="st-key-label_{kind}_{point}_"] button >> visible=true')


def check_stored(db, point: int, positions: tuple, labeled: int) -> None:
    """The newest label in the database is on ``point`` with the set of ``positions``."""
    with open_store(db) as store:
        newest = [e for e in store.events(NAME) if e.kind == "label"][-1]
    assert (newest.point, newest.label) == (point, tuple(CLASSES[k] for k in positions))
    assert len(stored(db, NAME).labels) == labeled


def test_label_ten_sets_by_keys_and_by_clicks(page, server, artifacts):
    project = project_from_table(
        tagged_table(), NAME, feature_columns=["x1", "x2"], truth_column="tags", multi_label=True
    )
    assert project.classes == CLASSES
    with open_store(server.db) as store:
        store.create_project(project)
    open_app(page, f"{server.url}/?project={NAME}", 0, total=N)
    given: dict[int, tuple] = {}
    # nothing chosen: Save is disabled and Enter saves nothing, with a note that says why
    q = heading_number(page, "Next query:")
    wait_dwell(page, q)
    expect(button(page, "save", q)).to_be_disabled()
    expect(button(page, "none", q)).to_be_enabled()
    page.keyboard.press("Enter")
    expect(page.locator("#rlscore-press-notice")).to_have_text(NOTHING_CHOSEN)
    assert page.evaluate("window.__rlscoreDropped.at(-1).reason") == "nothing chosen"
    page.wait_for_timeout(1000)  # time enough for a press the server took to be stored
    assert stored(server.db, NAME).labels == {}
    assert heading_number(page, "Next query:") == q
    for k, positions in enumerate(BY_KEYS):
        q = heading_number(page, "Next query:")
        expect(page.get_by_text(chosen_text(()), exact=True)).to_be_visible()  # nothing pre-set
        wait_dwell(page, q)
        if k == 0:  # a class key, then Enter at once: the Enter waits for the toggle's run
            (c,) = positions
            page.keyboard.press(str(c + 1))
        else:
            for c in positions:
                rerun(page, lambda c=c: page.keyboard.press(str(c + 1)))
            expect(page.get_by_text(chosen_text(positions), exact=True)).to_be_visible()
        page.keyboard.press("Enter")
        wait_text(page, f"Labeled {k + 1} of {N}")
        check_stored(server.db, q, positions, k + 1)
        given[q] = positions
    page.screenshot(path=artifacts / "by_keys.png", full_page=True)
    for k, positions in enumerate(BY_CLICKS, start=len(BY_KEYS)):
        q = heading_number(page, "Next query:")
        wait_dwell(page, q)
        for c in positions:
            rerun(page, button(page, f"toggle{c}", q).click)
        if positions:
            expect(page.get_by_text(chosen_text(positions), exact=True)).to_be_visible()
            button(page, "save", q).click()
        else:
            button(page, "none", q).click()
        wait_text(page, f"Labeled {k + 1} of {N}")
        check_stored(server.db, q, positions, k + 1)
        given[q] = positions
    page.screenshot(path=artifacts / "by_clicks.png", full_page=True)
    labels = stored(server.db, NAME).labels
    assert labels == {q: tuple(CLASSES[c] for c in s) for q, s in given.items()}
    # sets are shown as text: the recent labels list the last one's classes joined by " | "
    last_q, last = list(given.items())[-1]
    expect(page.get_by_text(f"#{last_q}: " + " | ".join(CLASSES[c] for c in last))).to_be_visible()
