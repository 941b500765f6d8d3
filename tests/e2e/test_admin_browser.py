"""Roles in the browser (issue 23): the owner deletes a project on the Data page and restores
it on the Admin page with its labels; a user who is not a member of a project is refused on
its Label page, with the role needed.

Local mode (typed names). The projects and their members are set up through the Python API
before the server starts; the labels are read from the database, independently of the app.
"""

from __future__ import annotations

import re

from app_page import choose, settle, stored
from browser_context import new_context
from playwright.sync_api import expect
from support.sessions import moons_subset

from rlscore.data.samples.bundled import ensure_sample_projects
from rlscore.sessions.team import permissions
from rlscore.storage import Event, open_store

LABELS = {0: 1, 1: -1, 2: 1}


def _set_up(db) -> None:
    with open_store(db) as store:
        # the samples made here, not by the server's first run: building the text samples
        # holds the server's interpreter long enough on a cold start to delay the first page
        ensure_sample_projects(store)
        for name in ("moons", "private"):
            store.create_project(moons_subset(name))
            permissions.add_member(store, name, "alice", "owner", None)
        permissions.add_member(store, "moons", "bob", "annotator", "alice")
        for point, label in LABELS.items():
            store.append_event("moons", Event("label", point, label, "bob", seconds=1.0))


def test_the_owner_deletes_and_restores_and_an_outsider_is_refused(browser, start_server, tmp_path):
    _set_up(tmp_path / "labels0.sqlite3")  # the database start_server's first server opens
    server = start_server()
    assert stored(server.db, "moons").labels == LABELS
    context = new_context(browser, height=1000)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/data")
        settle(page)
        annotator = page.get_by_role("textbox", name="Annotator")
        annotator.fill("alice")
        annotator.press("Enter")
        expect(page).to_have_url(re.compile(r"annotator=alice"))
        settle(page)
        choose(page, "Project", "moons")
        expect(page.get_by_text("restored with its labels on the Admin page")).to_be_visible()
        confirm = page.get_by_label("Type 'moons' to confirm")
        confirm.fill("moons")
        confirm.press("Enter")
        delete = page.get_by_role("button", name="Delete project")
        expect(delete).to_be_enabled()
        settle(page)
        delete.click()
        expect(page.get_by_text("Deleted project 'moons'")).to_be_visible()
        with open_store(server.db) as store:
            assert "moons" not in store.list_projects()

        page.goto(f"{server.url}/admin?annotator=alice")
        expect(page.get_by_role("heading", name="Deleted projects")).to_be_visible()
        settle(page)
        page.get_by_role("button", name="Restore").click()
        expect(page.get_by_text("Restored project moons with its labels.")).to_be_visible()
        with open_store(server.db) as store:
            assert "moons" in store.list_projects()
        assert stored(server.db, "moons").labels == LABELS

        other = new_context(browser, height=1000).new_page()
        try:
            other.goto(f"{server.url}/?project=private&annotator=bob")
            refusal = other.get_by_text("'bob' may not label points in project 'private'")
            expect(refusal.first).to_be_visible()
            expect(other.get_by_text("needs the annotator role").first).to_be_visible()
            with open_store(server.db) as store:
                assert all(who != "bob" for who, _ in store.claims("private").values())
                assert not store.events("private")
        finally:
            other.context.close()
    finally:
        context.close()
