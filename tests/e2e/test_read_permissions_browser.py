"""Reads with sign-in in a real browser (issue 34 item 1), on a team's PostgreSQL: a user
signed in through the test provider who is a member of no project sees neither a project
with members nor its items — not in the project lists, not by a deep link to any page — and
is told so neutrally (no "failed" box, no exception); its owner, on the same pages, does.

Alice signs in first and so owns every sample (the first user of a fresh database); a shell
administrator then takes her off ``two_moons``, which is open again (no members). Bob is a
member of nothing. The private project read is ``debian_games``, a text project: its item
texts are what must not reach bob's screen.

One backend is enough here: the pages read through the same permission checks whichever
store holds the labels, and the SQLite store's reads are refused below the UI and on every
page in AppTest (tests/test_read_permissions.py, tests/test_read_permissions_pages.py).
"""

from __future__ import annotations

import re

import pytest
from app_page import APP_IDLE, settle, sign_in
from browser_context import new_context
from playwright.sync_api import Page, expect
from streamlit_server import StreamlitServer

from rlscore.data.samples.bundled import project_from_sample
from rlscore.storage import open_store

ALICE = "alice@example.org"
PRIVATE, OPEN = "debian_games", "two_moons"
PAGES = ("", "tune", "review", "data", "admin")
EXCEPTION = '[data-testid="stException"]'
ALERT = '[data-testid="stAlert"]'


@pytest.fixture
def server(tmp_path, artifacts, oidc_provider, pg_url, monkeypatch):
    """An app server with sign-in through the test provider, on PostgreSQL."""
    from support.oidc_provider import secrets_toml

    monkeypatch.delenv("RLSCORE_ALLOW_UNAUTHENTICATED", raising=False)
    secrets = tmp_path / "secrets.toml"
    srv = StreamlitServer(pg_url, artifacts / "server.log", secrets=secrets)
    secrets.write_text(secrets_toml(oidc_provider, srv.url))
    srv.start()
    yield srv
    srv.stop()


def shown_text(page: Page, url: str) -> str:
    """Everything page ``url`` shows once its runs have finished (with the sidebar)."""
    page.goto(url)
    page.locator(APP_IDLE).wait_for()
    page.wait_for_timeout(0)  # let the last delta paint
    return page.locator("body").inner_text()


def project_options(page: Page, box: str = "Project") -> list[str]:
    """The options of the select box ``box`` (opened, read, closed)."""
    combo = page.get_by_role("combobox", name=box).first
    combo.click()
    options = page.get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    return options


def test_a_non_member_sees_neither_the_project_nor_its_items(browser, server, artifacts):
    texts = [t for t in project_from_sample(PRIVATE).texts if len(t) >= 20]
    alice_context, bob_context = new_context(browser), new_context(browser)
    try:
        alice = alice_context.new_page()
        sign_in(alice, server.url, "alice")
        with open_store(server.db) as store:
            assert store.members(PRIVATE) == {ALICE: "owner"}
            store.remove_member(OPEN, ALICE, by="shell:test")  # open again
            assert store.members(OPEN) == {}

        bob = bob_context.new_page()
        sign_in(bob, server.url, "bob")
        for path in PAGES:
            said = shown_text(bob, f"{server.url}/{path}?project={PRIVATE}")
            if path != "data":  # the Data page has its own project choice, of the listed
                assert f"There is no project {PRIVATE} that you can open" in said, path
            assert PRIVATE not in said.replace(f"no project {PRIVATE} that", ""), path
            assert not [t for t in texts if t in said], path  # not one of its items
            assert "alice" not in said.casefold(), path  # nor its members
            expect(bob.locator(EXCEPTION)).to_have_count(0)
            expect(bob.locator(ALERT).filter(has_text=re.compile("failed"))).to_have_count(0)
        bob.screenshot(path=artifacts / "non_member_admin.png", full_page=True)
        bob.goto(f"{server.url}/?project={PRIVATE}")
        expect(
            bob.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))
        ).to_be_visible()
        settle(bob)
        assert [o for o in project_options(bob) if PRIVATE in o] == []
        bob.goto(f"{server.url}/data")
        bob.locator(APP_IDLE).wait_for()
        assert project_options(bob, "Project") == [OPEN]
        with open_store(server.db) as store:
            assert store.claims(PRIVATE) == {} and store.events(PRIVATE) == []
        # expected refusals are information, never logged as failures (issue 34, item 3)
        logged = server.written()
        assert "Traceback" not in logged and "PermissionDeniedError" not in logged, logged[-3000:]

        # the owner, on the same link, reads the project and its items: the checks above
        # would have seen them
        alice.goto(f"{server.url}/?project={PRIVATE}")
        expect(
            alice.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))
        ).to_be_visible()
        settle(alice)
        said = alice.locator("body").inner_text()
        assert [t for t in texts if t in said]
        alice.goto(f"{server.url}/admin?project={PRIVATE}")
        expect(alice.get_by_text(ALICE, exact=True)).to_be_visible()
    finally:
        alice_context.close()
        bob_context.close()
