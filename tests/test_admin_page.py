"""The Admin page in Streamlit's AppTest: members, the audit trail, deleted projects.

A project with an owner alice, an annotator bob and a reviewer carol (set up through the
Python API). What each sees and may do is checked against the database read independently
(``open_store``), and a crafted callback (a disabled button forced: its callback runs with the
user it was drawn for) is refused with the role's message.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support.access import team_database
from support.app import REPO, ok, stored_log
from support.markdown import IMAGE_NAME, assert_shown_as_text, plain

from rlscore.sessions.team import permissions
from rlscore.storage import open_store

#: not a sample (the app would create a deleted sample again)
PROJECT = "moons"
#: labels on the project before anyone acts: (point, label, annotator)
LABELS = [(0, 1, "bob"), (1, -1, "bob"), (2, 1, "alice")]


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    team_database(path, PROJECT, LABELS)
    return path


def admin_page(user: str | None) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = PROJECT
    if user:
        at.query_params["annotator"] = user
    at.run()
    at.switch_page("pages/admin.py")
    return ok(at.run())


def messages(at: AppTest) -> list[str]:
    """Every alert on the page as the user reads it."""
    return [plain(a.value) for a in [*at.success, *at.info, *at.warning, *at.error]]


def members_in(db: Path) -> dict[str, str]:
    with open_store(db) as store:
        return store.members(PROJECT)


def _callback_script(module: str, name: str, args: tuple, state: dict) -> None:
    """A Streamlit script that calls a page callback directly (a crafted call), then shows
    what it flashed."""
    import importlib

    import streamlit as st

    from rlscore.ui.shell.flash import show_flash

    st.session_state.update(state)
    getattr(importlib.import_module(module), name)(*args)
    show_flash()


def crafted(module: str, name: str, *args, **state) -> AppTest:
    """Run callback ``module.name(*args)`` straight, as a crafted request would, with widget
    values ``state``; the page of what it showed."""
    at = AppTest.from_function(
        _callback_script, args=(module, name, args, state), default_timeout=60
    )
    return ok(at.run())


def edit_buttons(at: AppTest) -> list:
    return [
        b
        for b in at.button
        if b.key and b.key.startswith(("add_member", "change_", "remove_", "restore_"))
    ]


def test_the_owner_manages_members_and_the_audit_shows_who(db):
    at = admin_page("alice")
    assert [b.disabled for b in edit_buttons(at)] == [False] * len(edit_buttons(at))
    at.text_input(key="new_member").input("dave@Example.org")
    at.selectbox(key="new_member_role").select("reviewer")
    ok(at.button(key="add_member").click().run())
    assert members_in(db)["dave@example.org"] == "reviewer"
    assert "Added dave@example.org as reviewer of moons." in messages(at)  # as stored
    # the choice is its own rerun in a browser: the box must keep it until the click
    ok(at.selectbox(key="role_of_bob").select("reviewer").run())
    assert at.selectbox(key="role_of_bob").value == "reviewer"
    ok(at.button(key="change_bob").click().run())
    assert members_in(db)["bob"] == "reviewer"
    assert "bob is now reviewer of moons." in messages(at)
    ok(at.button(key="remove_carol").click().run())
    assert "carol" not in members_in(db)
    audit = at.dataframe[0].value  # the audit: the only table
    mine = audit[audit["who"] == "alice"]["what"].tolist()
    assert "added dave@example.org as reviewer" in mine
    assert "bob: annotator → reviewer" in mine
    assert "removed carol (reviewer)" in mine


def test_an_annotator_sees_no_edit_controls_and_a_crafted_call_is_refused(db):
    at = admin_page("bob")
    buttons = edit_buttons(at)
    assert buttons and all(b.disabled for b in buttons)
    assert all("owner role" in b.help for b in buttons)
    assert at.text_input(key="new_member").disabled
    # crafted: the page's callbacks called straight with bob
    at = crafted("rlscore.ui.forms.admin", "add_member", PROJECT, "bob", new_member="mallory")
    assert "mallory" not in members_in(db)
    refusal = " ".join(messages(at))
    assert "'bob' may not change the project's members" in refusal
    assert "needs the owner role" in refusal
    at = crafted("rlscore.ui.forms.admin", "remove_member", PROJECT, "bob", "alice")
    assert members_in(db)["alice"] == "owner"
    assert "needs the owner role" in " ".join(messages(at))
    at = crafted(
        "rlscore.ui.forms.admin", "change_role", PROJECT, "bob", "bob", role_of_bob="owner"
    )
    assert members_in(db)["bob"] == "annotator"
    assert "needs the owner role" in " ".join(messages(at))


def test_restore_brings_the_labels_back(db):
    with open_store(db) as store:
        before = stored_log(db, PROJECT).labels
        permissions.delete_project(store, PROJECT, "alice")
        assert PROJECT not in store.list_projects()
    at = admin_page("bob")  # not an owner of the deleted project: Restore disabled
    restore = next(b for b in at.button if b.key and b.key.startswith("restore_"))
    assert restore.disabled and "owner" in restore.help
    at = crafted("rlscore.ui.forms.admin", "restore", PROJECT, "bob")
    assert "needs the owner role" in " ".join(messages(at))
    with open_store(db) as store:
        assert PROJECT not in store.list_projects()  # refused
    at = admin_page("alice")
    restore = next(b for b in at.button if b.key and b.key.startswith("restore_"))
    assert not restore.disabled
    ok(restore.click().run())
    assert any("Restored project" in m for m in messages(at))
    assert stored_log(db, PROJECT).labels == before
    audit = admin_page("alice").dataframe[0].value  # the audit: the only table
    assert {"delete", "restore"} <= set(audit[audit["who"] == "alice"]["action"])


def test_names_are_shown_as_text(db):
    at = admin_page("alice")
    at.text_input(key="new_member").input(IMAGE_NAME)
    ok(at.button(key="add_member").click().run())
    assert members_in(db)[IMAGE_NAME] == "annotator"
    assert IMAGE_NAME in [t.value for t in at.text]  # the members' list: st.text
    assert_shown_as_text(at, IMAGE_NAME)  # the flash says it, escaped
