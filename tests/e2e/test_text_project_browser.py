"""A text project made in the browser (issue 22): a CSV of sentences uploaded on the Data
page becomes a project with text features; the Label page shows the queried item's text;
five labels given by keys are stored bound to the items that were on screen.

Each key is pressed only once its point has been drawn for the minimum dwell (the page's own
draw times, ``window.__rlscoreDrawTimes``), so every press is one a person could make.
"""

from __future__ import annotations

import re

from app_page import open_app, settle, stored, wait_dwell, wait_text
from playwright.sync_api import expect

from rlscore.storage import open_store

ANIMALS = ["cat", "dog", "horse", "rabbit", "parrot", "goat"]
MARKETS = ["stocks", "bonds", "shares", "futures", "currencies", "options"]


def sentences_csv() -> str:
    rows = ["text,label"]
    for i in range(30):
        rows.append(f"the {ANIMALS[i % 6]} slept by the warm fire night {i},pets")
        rows.append(f"{MARKETS[i % 6]} fell sharply at the market on day {i},markets")
    return "\n".join(rows) + "\n"


def test_upload_texts_see_the_queried_text_and_label_five_by_keys(page, server, artifacts):
    upload = artifacts / "sentences.csv"
    upload.write_text(sentences_csv())
    page.goto(f"{server.url}/data")
    settle(page)
    page.locator("input[type=file]").set_input_files(upload)
    expect(page.get_by_role("heading", name="Preview")).to_be_visible()
    settle(page)
    expect(page.get_by_text(re.compile(r"% of the variance"))).to_be_visible()
    page.screenshot(path=artifacts / "data_text_upload.png", full_page=True)
    page.get_by_role("button", name="Create project").click()
    expect(page.get_by_text("Created project 'sentences'")).to_be_visible()
    settle(page)
    with open_store(server.db) as store:
        project = store.load_project("sentences")
    texts = project.items[0].values
    assert project.items[0].kind == "text" and project.feature_names[0] == "text_svd_1"

    open_app(page, f"{server.url}/?project=sentences", 0, total=60)
    shown: dict[int, tuple[str, int]] = {}  # point → (text on screen at the press, key)
    for k in range(5):
        heading = page.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))
        q = int(re.search(r"#(\d+)", heading.inner_text()).group(1))
        # the first text drawn after the query's heading: the queried item
        item = heading.locator("xpath=following::*[@data-testid='stText'][1]")
        expect(item).to_be_visible()
        text = item.inner_text().strip()
        assert text in texts  # an item's own sentence is on the page, as uploaded
        wait_dwell(page, q)
        key = 1 + k % 2
        page.keyboard.press(str(key))
        wait_text(page, f"Labeled {k + 1} of 60")
        shown[q] = (text, key)
    page.screenshot(path=artifacts / "label_text.png", full_page=True)

    labels = stored(server.db, "sentences").labels
    assert set(labels) == set(shown)
    for q, (text, key) in shown.items():
        assert texts[q] == text  # the stored point is the item whose text was on screen
        assert labels[q] == project.classes[key - 1]
