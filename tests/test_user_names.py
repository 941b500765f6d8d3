"""Names people type and the control characters they may not hold
(rlscore.core.conventions.user_names), on SQLite and PostgreSQL.

``?annotator=ok%00x`` broke the Label page on PostgreSQL (``psycopg.DataError``: a text field
cannot hold NUL) while SQLite stored the NUL. A user's name is now cleaned the same way at
every entry point (the address, the sidebar, sign-in, ``--as``, the members), a project name
holding a control character is refused naming the field, and the store refuses the rest
alike on both databases.
"""

from __future__ import annotations

import argparse

import pytest
from support.app import app_page, ok
from support.sessions import moons_store
from support.stores import small_project

from rlscore.cli.io.errors import CommandError
from rlscore.cli.io.reader_option import reader
from rlscore.core.conventions.user_names import check_no_control, clean_name
from rlscore.data.items.columns import ItemColumn
from rlscore.sessions import LabelingSession
from rlscore.storage import Event, UnknownProjectError, open_store
from rlscore.storage.sql.access import member_id
from rlscore.ui.shell import auth
from rlscore.ui.shell.params import clean_annotator


@pytest.mark.parametrize(
    ("typed", "cleaned"),
    [
        ("ok\x00x", "okx"),
        ("  ada\tlove\nlace \x1b[31m", "ada love lace [31m"),
        ("\x00\x7f", None),
        # a right-to-left override shows as nothing and reverses what follows it
        ("\u202ebob\u2066 x\u2069", "bob x"),
    ],
)
def test_every_entry_point_spells_a_name_alike(typed, cleaned):
    """The address and sidebar (clean_annotator), ``--as`` and the members: one spelling,
    whitespace collapsed and every other control character (NUL, escape, DEL) removed."""
    assert clean_name(typed) == cleaned
    assert clean_annotator(typed) == cleaned
    if cleaned is None:  # an explicit --as naming nobody is refused, not the administrator
        with pytest.raises(CommandError, match="--as names nobody"):
            reader(argparse.Namespace(reader=typed))
        with pytest.raises(ValueError, match="non-empty user name"):
            member_id(typed)
    else:
        assert reader(argparse.Namespace(reader=typed)) == cleaned
        assert member_id(typed) == cleaned


def test_a_sign_in_identity_holds_no_control_character():
    assert auth.identity({"sub": "abc\x00def", "iss": "https://idp.example/"}) == (
        "abcdef@idp.example"
    )


def test_a_project_name_with_a_control_character_is_refused_naming_the_field():
    with pytest.raises(
        ValueError, match=r"project name 'a\\tb' holds a control character \(U\+0009\)"
    ):
        check_no_control("a\tb", "project name")


def test_a_project_name_with_a_bidirectional_override_is_refused():
    with pytest.raises(ValueError, match=r"holds a control character \(U\+202E\)"):
        check_no_control("\u202enoom", "project name")


def test_the_store_refuses_a_name_over_its_limit(db_target, tmp_path):
    # a 300-character name wrapped over ten heading lines on every page (an exploratory test)
    with moons_store(tmp_path, db_target) as store:
        with pytest.raises(ValueError, match="at most 100 characters, this one 101"):
            store.create_project(small_project("n" * 101))
        store.create_project(small_project("n" * 100))
        assert store.list_projects() == ["moons", "n" * 100]


def test_the_store_refuses_control_characters_alike_on_both_databases(db_target, tmp_path):
    with moons_store(tmp_path, db_target) as store:
        with pytest.raises(ValueError, match=r"project name 'a\\x00b' holds .*U\+0000"):
            store.create_project(small_project("a\x00b"))
        assert store.list_projects() == ["moons"]
        with pytest.raises(UnknownProjectError, match="no project named 'a\\\\x00b'"):
            store.load_project("a\x00b")  # PostgreSQL cannot even compare it
        with pytest.raises(ValueError, match="annotator name 'ok\\\\x00x' holds"):
            store.append_event("moons", Event("label", 0, 1, "ok\x00x"))
        with pytest.raises(ValueError, match="annotator name"):
            store.claim("moons", 0, "ok\x00x", 60.0)
        assert store.events("moons") == [] and store.claims("moons") == {}
        with pytest.raises(ValueError, match="the acting user's name"):
            store.set_member("moons", "bob", "owner", by="x\x00y")
        assert store.members("moons") == {} and store.audit("moons") == []
        store.set_member("moons", "bo\x00b", "owner", by="t")
        assert store.members("moons") == {"bob": "owner"}


def test_a_session_labels_under_the_cleaned_name_on_both_databases(db_target, tmp_path):
    """What the Label page does with ``?annotator=ok%00x``: the name as cleaned claims and
    labels (it failed with a DataError on PostgreSQL)."""
    with moons_store(tmp_path, db_target) as store:
        session = LabelingSession(
            store, "moons", "arls", annotator=clean_annotator("ok\x00x"), snapshots=False
        )
        i, _ = session.query()
        session.label(i, 1)
        assert [(e.point, e.annotator) for e in store.events("moons")] == [(i, "okx")]


def test_class_names_and_item_texts_with_nul_are_kept_on_both_databases(db_target):
    """Checked, not changed: classes, readable class names and item texts are written as JSON,
    which spells NUL ``\\u0000``, so PostgreSQL stores them as SQLite does."""
    project = small_project("c", classes=("x\x00y", "z"))
    project.items = [ItemColumn("te\x00xt", "text", [f"t\x00{i}" for i in range(project.n)])]
    project.meta["class_names"] = {"z": "n\x00o"}
    with open_store(db_target) as store:
        store.create_project(project)
        back = store.load_project("c")
        store.append_event("c", Event("label", 0, "x\x00y", "ada"))
        assert back.classes == ["x\x00y", "z"] and back.class_names == {"z": "n\x00o"}
        assert back.items[0].values[:2] == ["t\x000", "t\x001"]
        assert store.events("c")[0].label == "x\x00y"


def test_the_label_page_on_postgresql_labels_as_the_cleaned_name(pg_url, monkeypatch):
    """The tester's link, ``/?project=two_moons&annotator=ok%00x``, on PostgreSQL."""
    monkeypatch.setenv("RLSCORE_DB", pg_url)
    at = app_page("label.py")
    at.query_params["project"] = "two_moons"
    at.query_params["annotator"] = "ok\x00x"
    ok(at.run())
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["annotator"] == "okx"
    next(b for b in at.button if b.key and b.key.startswith("label_0_")).click()
    ok(at.run())
    assert not at.error, [e.value for e in at.error]
    with open_store(pg_url) as store:
        assert {e.annotator for e in store.events("two_moons")} == {"okx"}
