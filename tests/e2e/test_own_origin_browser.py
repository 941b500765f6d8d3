"""No request leaves the server's own origin (issue 34 item 2): a session that opens every
page of the app, navigates between them, labels a point and searches a text project's items
asks nothing of another host — no icon, font, script or style from a public server, so an
offline or private deployment works and tells no third party who uses it.

Two records, since a browser does not report every fetch to the page (Chromium fetches a
tab's icon outside it): every request and web socket the page makes (Playwright's
``page.on("request")``, ``page.on("websocket")``), and every resource address the page's
document holds at the end of each page (icons and other ``link`` elements, scripts, images,
frames, sources). Each must be on the app's own host and port, or inline (``data:``,
``blob:``).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from app_page import APP_IDLE, label_button, settle, wait_text
from playwright.sync_api import Page, expect

#: every address the document asks the browser to load, as the browser resolved it
RESOURCE_URLS = """() => [...document.querySelectorAll(
    'link[href], script[src], img[src], iframe[src], source[src], video[src], audio[src], '
    + 'image[href], use[href]')]
  .map(e => e.href && e.href.baseVal !== undefined ? e.href.baseVal : (e.href || e.src))
  .filter(Boolean)
  .map(u => new URL(u, document.baseURI).href)"""
PAGES = ("Tune", "Compare", "Review", "Data", "Admin", "Label")


def elsewhere(urls, origin: str) -> list[str]:
    """The addresses of ``urls`` that are neither inline nor on ``origin`` (host:port)."""
    return sorted(
        {u for u in urls if not u.startswith(("data:", "blob:")) and urlsplit(u).netloc != origin}
    )


def test_a_session_through_every_page_asks_only_the_apps_own_origin(page: Page, server, own_sample):
    moons = own_sample("two_moons")  # labeled here: a copy, the shared server's samples stay
    origin = urlsplit(server.url).netloc
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.on("websocket", lambda ws: requested.append(ws.url.replace("ws", "http", 1)))
    documented: list[str] = []

    def read_document() -> None:
        page.locator(APP_IDLE).wait_for()
        documented.extend(page.evaluate(RESOURCE_URLS))

    page.goto(f"{server.url}/?project={moons}&annotator=ada")
    expect(page.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))).to_be_visible()
    settle(page)
    label_button(page, "1").click()
    wait_text(page, "Labeled 1 of 220")
    read_document()
    # every page, reached through the app's own navigation
    for title in PAGES:
        page.get_by_role("link", name=title).first.click()
        expect(page.locator("h1, h2, h3").first).to_be_visible()
        read_document()
    # a text project's items, and a search in them
    page.goto(f"{server.url}/?project=debian_games&annotator=ada")
    expect(page.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))).to_be_visible()
    settle(page)
    page.get_by_text("Find items", exact=True).click()
    page.get_by_label("Text to find").fill("game")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_text(re.compile(r"^20 results for text 'game'"))).to_be_visible()
    read_document()

    assert requested and documented  # the records hold the session
    assert elsewhere(requested, origin) == []
    assert elsewhere(documented, origin) == []
    icons = page.evaluate(
        "() => [...document.querySelectorAll('link[rel*=icon]')].map(e => e.href)"
    )
    assert icons and not elsewhere(icons, origin), icons
