"""Two users signed in on two app servers that share one PostgreSQL database (issue 23).

Each server reads its own secrets file pointing at the throwaway OpenID Connect provider on
127.0.0.1 (tests/support/oidc_provider.py); alice signs in on the first server in one browser
context, bob on the second in another. Each page shows its own user's name and identity and
not the other's; each labels the point shown, and the database (read independently of the
app) holds each label under the right verified identity; the two are never handed the same
point, before or after their labels.
"""

from __future__ import annotations

import re

import pytest
from app_page import FRESH, heading_number, settle, sign_in, wait_dwell, wait_text
from browser_context import new_context
from playwright.sync_api import Page, expect
from streamlit_server import StreamlitServer

from rlscore.cli import main as cli_main
from rlscore.storage import open_store

ALICE = "alice@example.org"  # the verified e-mail addresses, in lower case: the identities
BOB = "bob@example.org"
SIDEBAR = '[data-testid="stSidebar"]'
#: the teammate poll of both servers (seconds), as a team runs them
POLL_SECONDS = 1.0


@pytest.fixture
def signed_in_team(pg_url, oidc_provider, tmp_path, artifacts, monkeypatch):
    """Two app servers on one PostgreSQL database, each with sign-in through the provider
    (its own secrets file: the redirect URI names the server's own address)."""
    from support.oidc_provider import secrets_toml

    monkeypatch.delenv("RLSCORE_ALLOW_UNAUTHENTICATED", raising=False)
    servers = []
    try:
        for k in (1, 2):
            secrets = tmp_path / f"secrets{k}.toml"
            srv = StreamlitServer(
                pg_url,
                artifacts / f"server{k}.log",
                poll_seconds=POLL_SECONDS,
                secrets=secrets,
            )
            secrets.write_text(secrets_toml(oidc_provider, srv.url))
            servers.append(srv.start())
        yield servers
    finally:
        for srv in servers:
            srv.stop()


def query_shown(page: Page) -> int:
    """The point of the Label page's query, once the page and its plot are drawn."""
    page.get_by_role("heading", name=re.compile(r"Next query: point #\d+")).wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    settle(page)
    return heading_number(page, "Next query:")


def label_shown_point(page: Page, point: int, text: str) -> None:
    """Label the query ``point`` with class ``text`` once it has been on screen for the
    minimum dwell (a sooner click is dropped on purpose)."""
    wait_dwell(page, point)
    button = re.compile(rf"^{re.escape(text)}( Shortcut \d)?$")
    page.locator(FRESH).get_by_role("button", name=button).click()


def labels(db) -> list[tuple[int, object, str]]:
    """(point, label, annotator) of every label event of two_moons, read from the database."""
    with open_store(db) as store:
        return [
            (e.point, e.label, e.annotator) for e in store.events("two_moons") if e.kind == "label"
        ]


def test_two_users_on_two_servers_label_as_themselves_and_never_share_a_point(
    browser, signed_in_team, pg_url, artifacts
):
    one, two = signed_in_team
    alice_context, bob_context = new_context(browser), new_context(browser)
    try:
        alice = alice_context.new_page()
        sign_in(alice, f"{one.url}/?project=two_moons", "alice")
        # the first user of the fresh database owns the samples; an administrator adds bob
        # from a shell, as the deployment page says
        add_bob = f"members --db {pg_url} --project two_moons --add {BOB} --role annotator"
        assert cli_main(add_bob.split()) == 0
        bob = bob_context.new_page()
        sign_in(bob, f"{two.url}/?project=two_moons", "bob")

        q_alice, q_bob = query_shown(alice), query_shown(bob)
        for page, own, other in (
            (alice, "Alice Archer", "Bob Baker"),
            (bob, "Bob Baker", "Alice Archer"),
        ):
            sidebar = page.locator(SIDEBAR)
            expect(sidebar.get_by_text(own, exact=True)).to_be_visible()
            expect(sidebar.get_by_text(other)).to_have_count(0)
            expect(page.get_by_role("textbox", name="Annotator")).to_have_count(0)
        # md_text puts an invisible word joiner after "@" (no address becomes a link)
        expect(alice.locator(SIDEBAR)).to_contain_text(re.compile("alice@\u2060?example\\.org"))
        expect(bob.locator(SIDEBAR)).to_contain_text(re.compile("bob@\u2060?example\\.org"))
        alice.screenshot(path=artifacts / "alice.png", full_page=True)
        bob.screenshot(path=artifacts / "bob.png", full_page=True)
        # claims live in the database: the other server hands bob another point
        assert q_alice != q_bob

        label_shown_point(alice, q_alice, "1")
        wait_text(alice, "Labeled 1 of 220")
        assert labels(pg_url) == [(q_alice, 1, ALICE)]
        # bob's page follows by its poll and still shows his own point; his label lands on it
        wait_text(bob, "Labeled 1 of 220")
        assert query_shown(bob) == q_bob
        label_shown_point(bob, q_bob, "-1")
        wait_text(bob, "Labeled 2 of 220")
        assert labels(pg_url) == [(q_alice, 1, ALICE), (q_bob, -1, BOB)]

        # the next points are new ones, and again not the same one
        wait_text(alice, "Labeled 2 of 220")
        next_alice, next_bob = query_shown(alice), query_shown(bob)
        assert next_alice != next_bob
        assert {next_alice, next_bob}.isdisjoint({q_alice, q_bob})
        with open_store(pg_url) as store:
            claims = store.claims("two_moons")
        assert {p: who for p, (who, _expires) in claims.items()} == {
            next_alice: ALICE,
            next_bob: BOB,
        }
    finally:
        alice_context.close()
        bob_context.close()
