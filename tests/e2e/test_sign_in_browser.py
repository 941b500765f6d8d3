"""Sign-in in a real browser: Streamlit's OpenID Connect flow against a provider the tests run.

The provider (tests/support/oidc_provider.py) and the app server both listen on 127.0.0.1;
the app reads a secrets file pointing at the provider (the ``signed_in_server`` fixture).
Who labeled what is read back from the database, independently of the app.
"""

from __future__ import annotations

import re

from app_page import (
    APP_IDLE,
    SIGN_IN,
    heading_number,
    label_button,
    rerun,
    settle,
    sign_in,
    stored,
    wait_text,
)
from browser_context import new_context
from playwright.sync_api import Page, expect
from streamlit_server import StreamlitServer

from rlscore.sessions import LabelingSession
from rlscore.sessions.team.permissions import add_member
from rlscore.storage import open_store

ALICE = "alice@example.org"  # her verified e-mail address, in lower case
BOB = "bob@example.org"
EXCEPTION = '[data-testid="stException"]'
ALERT = '[data-testid="stAlert"]'


def events(db, project: str = "two_moons") -> list:
    with open_store(db) as store:
        return list(store.events(project))


def members(db, project: str = "two_moons") -> dict[str, str]:
    with open_store(db) as store:
        return store.members(project)


def labeled_heading(page: Page) -> None:
    """Wait for the Label page with its query and plot."""
    page.get_by_role("heading", name=re.compile(r"Next query: point #\d+")).wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    settle(page)


def test_visitor_sees_only_sign_in_then_labels_as_the_signed_in_user(
    browser, signed_in_server, artifacts
):
    srv = signed_in_server
    context = new_context(browser)
    page = context.new_page()
    try:
        page.goto(srv.url)
        expect(page.get_by_role("button", name=SIGN_IN)).to_be_visible()
        page.locator(APP_IDLE).wait_for()
        page.screenshot(path=artifacts / "sign_in_screen.png", full_page=True)
        # only the sign-in button: no page, no navigation, no annotator box, no label button
        expect(page.get_by_role("button")).to_have_count(1)
        expect(page.get_by_role("textbox")).to_have_count(0)
        expect(page.locator('[data-testid="stSidebarNav"]')).to_have_count(0)

        sign_in(page, srv.url, "alice")
        labeled_heading(page)
        expect(page.get_by_text("Alice Archer")).to_be_visible()
        expect(page.get_by_role("textbox", name="Annotator")).to_have_count(0)
        page.screenshot(path=artifacts / "signed_in.png", full_page=True)
        label_button(page, "1").click()
        wait_text(page, "Labeled 1 of 220")
        assert [(e.kind, e.annotator) for e in events(srv.db)] == [("label", ALICE)]

        # a crafted ?annotator= changes nothing: still alice, and the address bar drops it
        page.goto(f"{srv.url}/?annotator=mallory")
        labeled_heading(page)
        expect(page.get_by_text("Alice Archer")).to_be_visible()
        expect(page).not_to_have_url(re.compile("annotator="))
        label_button(page, "1").click()
        wait_text(page, "Labeled 2 of 220")
        assert [(e.kind, e.annotator) for e in events(srv.db)] == [("label", ALICE)] * 2
    finally:
        context.close()


def test_unverified_address_is_not_the_identity_and_sign_out_returns_to_sign_in(
    browser, signed_in_server, oidc_provider
):
    context = new_context(browser)
    page = context.new_page()
    try:
        # carol's token claims alice's address, unverified: she is carol at the provider
        sign_in(page, signed_in_server.url, "carol")
        expect(page.get_by_text("Carol Chen")).to_be_visible()
        carol = f"carol@{oidc_provider.issuer.removeprefix('http://')}"
        assert members(signed_in_server.db) == {carol: "owner"}
        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_role("button", name=SIGN_IN)).to_be_visible()
        expect(page.get_by_text("Signed in as")).to_have_count(0)
        # and it stays signed out on a fresh load (the cookie is gone)
        page.goto(signed_in_server.url)
        expect(page.get_by_role("button", name=SIGN_IN)).to_be_visible()
        expect(page.get_by_text("Signed in as")).to_have_count(0)
    finally:
        context.close()


def test_first_user_owns_a_second_non_member_is_told_no_project_is_open_to_him(
    browser, signed_in_server, artifacts
):
    srv = signed_in_server
    first, second = new_context(browser), new_context(browser)
    try:
        a = first.new_page()
        sign_in(a, srv.url, "alice")
        assert members(srv.db) == {ALICE: "owner"}

        b = second.new_page()
        sign_in(b, srv.url, "bob")
        expect(b.get_by_text("Bob Baker")).to_be_visible()
        assert members(srv.db) == {ALICE: "owner"}  # bob claimed nothing
        # every project has members and he is none: no project is listed or opened for him
        # (issue 34), said as information, not as a failure
        notice = b.locator(ALERT).filter(has_text="No project on this server is open to you")
        expect(notice).to_be_visible()
        b.locator(APP_IDLE).wait_for()
        b.screenshot(path=artifacts / "bob_refused.png", full_page=True)
        expect(b.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))).to_have_count(
            0
        )
        expect(b.locator(EXCEPTION)).to_have_count(0)
        expect(b.locator(ALERT).filter(has_text="failed")).to_have_count(0)
        assert [e for e in events(srv.db) if e.kind == "label"] == []
        with open_store(srv.db) as store:
            assert all(who != BOB for who, _ in store.claims("two_moons").values())
    finally:
        first.close()
        second.close()


def test_an_annotator_is_told_a_teammate_labeled_the_point_not_who_nor_how(
    browser, signed_in_server, artifacts
):
    # a tester, four times: bob's press on a point alice labeled since it was drawn said
    # "Not saved: alice@example.org labeled it 1 …" — a teammate's name and label, which are
    # a reviewer's read
    srv = signed_in_server
    first, second = new_context(browser), new_context(browser)
    try:
        sign_in(first.new_page(), srv.url, "alice")  # the first user: she owns the samples
        with open_store(srv.db) as store:
            add_member(store, "two_moons", BOB, "annotator", ALICE)
        b = second.new_page()
        sign_in(b, srv.url, "bob")
        labeled_heading(b)
        q = heading_number(b, "Next query:")
        with open_store(srv.db) as store:  # alice labels bob's point, from Python
            LabelingSession(store, "two_moons", annotator=ALICE, snapshots=False).label(q, 1)
        rerun(b, lambda: label_button(b, "-1").click())
        notice = b.locator(ALERT).filter(has_text=f"after point #{q} was shown here").first
        expect(notice).to_contain_text(
            re.compile(r"Not saved: a teammate labeled it \(\d+ s ago\)")
        )
        b.screenshot(path=artifacts / "teammate_notice.png")
        assert "alice" not in notice.inner_text().lower()
        assert stored(srv.db, "two_moons").labels == {q: 1}  # bob's press wrote nothing
    finally:
        first.close()
        second.close()


def test_local_mode_says_unauthenticated_and_refuses_a_public_address(
    browser, tmp_path, artifacts, monkeypatch
):
    monkeypatch.delenv("RLSCORE_ALLOW_UNAUTHENTICATED", raising=False)
    context = new_context(browser)
    page = context.new_page()
    servers = []
    try:
        local = StreamlitServer(tmp_path / "local.sqlite3", artifacts / "local.log")
        servers.append(local.start())
        page.goto(f"{local.url}/?annotator=ada")
        expect(page.get_by_text(re.compile("no sign-in is configured"))).to_be_visible()
        expect(page.get_by_text("Local mode: not signed in")).to_be_visible()
        labeled_heading(page)

        # bound to every interface (connected to through 127.0.0.1): refused, nothing else
        public = StreamlitServer(
            tmp_path / "public.sqlite3", artifacts / "public.log", address="0.0.0.0"
        )
        servers.append(public.start())
        page.goto(f"{public.url}/?annotator=ada")
        expect(page.get_by_text("Sign-in is not configured")).to_be_visible()
        page.locator(APP_IDLE).wait_for()
        page.screenshot(path=artifacts / "refused.png", full_page=True)
        refusal = page.locator(ALERT)
        expect(refusal).to_have_count(1)
        expect(refusal).to_contain_text("RLSCORE_ALLOW_UNAUTHENTICATED")
        expect(refusal).to_contain_text("secrets.toml")
        expect(page.get_by_role("button")).to_have_count(0)
        expect(page.get_by_role("textbox")).to_have_count(0)
        expect(page.locator(".js-plotly-plot")).to_have_count(0)
        with open_store(public.db) as store:  # the page never opened a session on it
            assert all(not store.events(p) for p in store.list_projects())
    finally:
        context.close()
        for srv in servers:
            srv.stop()
