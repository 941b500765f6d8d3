"""Deep links on a fresh server (rlscore/ui/shell/navigation.py): the very first request a server
ever gets is a page's own address, as a bookmark opened after a restart.

Until some run has called ``st.navigation``, Streamlit runs a deep-linked file of ``pages/``
on its own; the page must still come up inside ``app.py`` (its sign-in gate, layout and page
list), be the page the address names, and keep the address's query parameters. Each case
starts its own server, so no earlier request has registered the app's navigation.
"""

from __future__ import annotations

import re

import pytest
from app_page import SIGN_IN, settle
from browser_context import new_context
from playwright.sync_api import expect

#: the app's page list (app.py), as the sidebar names it
APP_PAGES = ("Label", "Tune", "Compare", "Review", "Data", "Admin")
#: the local mode's sidebar caption (rlscore.ui.shell.auth): app.py's gate ran
LOCAL_MODE = "Local mode: not signed in (names are not checked)."


@pytest.mark.parametrize(
    ("link", "headings"),
    [
        ("/data", ["Data", "Projects"]),
        ("/tune?project=spheres", ["Tune σ and λ · spheres"]),
        ("/review?project=circles", ["Review · circles"]),
        ("/admin?project=circles", ["Admin", "Members · circles"]),
        ("/compare?project=circles", ["Compare strategies · circles"]),
    ],
)  # fmt: skip
def test_a_fresh_servers_first_request_opens_the_deep_linked_page_in_the_app(
    browser, start_server, artifacts, link, headings
):
    server = start_server()
    context = new_context(browser)
    try:
        page = context.new_page()
        page.goto(f"{server.url}{link}")
        for heading in headings:
            expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
        settle(page)
        page.screenshot(path=artifacts / "first_page.png")
        # the app's navigation and gate, not Streamlit's list of pages/ (which has "app")
        nav = page.get_by_test_id("stSidebarNav")
        expect(nav.get_by_role("link")).to_have_count(len(APP_PAGES))
        for title in APP_PAGES:
            expect(nav.get_by_role("link", name=title, exact=True)).to_be_visible()
        expect(page.get_by_test_id("stSidebar").get_by_text(LOCAL_MODE)).to_be_visible()
        path, _, query = link.partition("?")
        expect(page).to_have_url(re.compile(re.escape(path) + (rf"\?.*{query}" if query else "")))
        expect(page.get_by_test_id("stException")).to_have_count(0)
        # the page works on: its project still the linked one after a rerun of its own
        page.reload()
        expect(page.get_by_role("heading", name=headings[-1], exact=True)).to_be_visible()
        settle(page)
    finally:
        context.close()


@pytest.mark.parametrize("link", ["/admin?project=two_moons", "/data"])
def test_a_fresh_servers_first_deep_link_with_sign_in_shows_only_the_sign_in(
    browser, signed_in_server, artifacts, link
):
    context = new_context(browser)
    try:
        page = context.new_page()
        page.goto(f"{signed_in_server.url}{link}")
        expect(page.get_by_role("button", name=SIGN_IN)).to_be_visible()
        settle(page)
        page.screenshot(path=artifacts / "first_page.png")
        # only the sign-in screen: no page of the app, no page list, no annotator box
        expect(page.get_by_role("heading", name="rlscore", exact=True)).to_be_visible()
        for heading in ("Admin", "Data", "Projects"):
            expect(page.get_by_role("heading", name=heading, exact=True)).to_have_count(0)
        expect(page.get_by_test_id("stSidebarNav")).to_have_count(0)
        expect(page.get_by_role("textbox")).to_have_count(0)
        expect(page.get_by_role("button", name=SIGN_IN)).to_have_count(1)
        # the sign-in screen answers the page's address: no "page not found" over it
        expect(page.get_by_text("Page not found")).to_have_count(0)
    finally:
        context.close()
