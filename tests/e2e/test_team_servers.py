"""Two app servers on one PostgreSQL database, in Chromium: annotators on different servers
are shown different points (claims in the database), and a label made through one server
appears on the other server's open page by itself: no reload, no click there, only the Label
page's poll (:mod:`rlscore.ui.label.teammates`, every second). How long it takes is printed, not
asserted (a loaded machine is slow, not wrong)."""

from __future__ import annotations

import time

from app_page import fresh_label_button, open_app, settle, stored, wait_dwell
from browser_context import new_context
from playwright.sync_api import expect


def test_a_label_on_one_server_shows_on_the_other_by_its_poll(browser, two_servers, pg_url):
    one, two = two_servers
    pages = []
    for _ in range(2):
        context = new_context(browser)
        pages.append(context.new_page())
    ada, bob = pages
    try:
        q_ada = open_app(ada, f"{one.url}/?project=two_moons", 0, annotator="ada")
        q_bob = open_app(bob, f"{two.url}/?project=two_moons", 0, annotator="bob")
        # claims live in the database: the other server proposes another point
        assert q_ada != q_bob
        bob.evaluate("window.__same_page = true")  # gone if the page were reloaded
        navigations = []
        bob.on("framenavigated", lambda frame: navigations.append(frame.url))
        clicked = time.monotonic()
        fresh_label_button(ada, "1").click()
        # bob's page, on the other server, follows by itself: no reload, no input there
        expect(bob.get_by_text("Labeled 1 of 220", exact=True)).to_be_visible()
        delay = time.monotonic() - clicked
        print(f"teammate's label shown on the other server {delay:.2f} s after the click")
        assert bob.evaluate("window.__same_page === true") and navigations == []
        assert stored(pg_url, "two_moons").labels == {q_ada: 1}
        # bob still has his own point; his label lands on it
        expect(bob.get_by_role("heading", name=f"Next query: point #{q_bob}")).to_be_visible()
        # the poll's rerun redraws the panel: press once the page is at rest (a press the key
        # guard drops says why on the page, and the label below is then missing)
        settle(bob)
        wait_dwell(bob, q_bob)
        fresh_label_button(bob, "-1").click()
        expect(bob.get_by_text("Labeled 2 of 220", exact=True)).to_be_visible()
        assert stored(pg_url, "two_moons").labels == {q_ada: 1, q_bob: -1}
        expect(ada.get_by_text("Labeled 2 of 220", exact=True)).to_be_visible()
    finally:
        for page in pages:
            page.context.close()
