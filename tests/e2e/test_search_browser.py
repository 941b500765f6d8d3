"""Find items on the Label page in Chromium (issue 22 item 4): search debian_games for
"game", label a result in place, and read the label back from the database bound to the
item that was shown (its text on screen, the annotator, the log version of the list)."""

from __future__ import annotations

import re

from app_page import settle
from playwright.sync_api import expect

from rlscore.data.samples.bundled import project_from_sample
from rlscore.storage import open_store

MIN_DWELL_MS = 200


def test_search_debian_games_and_label_a_result_in_place(page, server, own_sample, artifacts):
    project = project_from_sample("debian_games")
    expected = [i for i, t in enumerate(project.texts) if "game" in t.casefold()][:20]
    games = own_sample("debian_games")
    page.goto(f"{server.url}/?project={games}&annotator=ada")
    expect(page.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))).to_be_visible()
    settle(page)
    page.get_by_text("Find items", exact=True).click()
    page.get_by_label("Text to find").fill("game")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_text(re.compile(r"^20 results for text 'game'"))).to_be_visible()
    settle(page)
    point = expected[3]
    # the list is on screen now: wait out the minimum dwell before pressing (a person would)
    t0 = page.evaluate("Date.now()")
    page.wait_for_function(f"Date.now() - {t0} >= {MIN_DWELL_MS + 100}")
    button = page.locator(f"[class*='st-key-search_c1_{point}_'] button")
    expect(button).to_have_count(1)
    # the innermost block holding both the result's heading and its button: its card
    card = (
        page.locator("[data-testid='stVerticalBlock']")
        .filter(has=button)
        .filter(has=page.get_by_text(f"Point #{point}", exact=True))
        .last
    )
    on_screen = card.locator("[data-testid='stText']").all_inner_texts()
    assert project.texts[point] in on_screen
    button.click()
    expect(page.get_by_text(f"Labeled: {project.class_text(1)}", exact=True)).to_be_visible()
    settle(page)
    page.screenshot(path=artifacts / "search_label_in_place.png", full_page=True)
    with open_store(server.db) as store:
        events = [e for e in store.events(games) if e.kind == "label"]
    assert [(e.point, e.label, e.annotator) for e in events] == [(point, 1, "ada")]
