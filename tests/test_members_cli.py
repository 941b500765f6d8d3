"""``python -m rlscore members``: list, add and remove a project's members from a shell, on
SQLite and PostgreSQL; every failure is one ``error:`` line, exit status 2, and changes
nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support.access import dump
from support.stores import small_project

from rlscore.cli import main
from rlscore.storage import open_store


@pytest.fixture
def db(db_target):
    with open_store(db_target) as store:
        store.create_project(small_project("P"))
    return db_target


def run(db, capsys, *args) -> tuple[int, str, str]:
    status = main(["members", "--db", db, "--project", "P", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_list_add_change_remove(db, capsys):
    assert run(db, capsys, "--list") == (
        0,
        "project 'P' has no members: it is open (anyone may do anything)\n",
        "",
    )
    status, out, _ = run(db, capsys, "--json")  # --list is the default
    assert status == 0 and json.loads(out) == {"project": "P", "open": True, "members": []}
    assert run(db, capsys, "--add", "Alice@Example.org", "--role", "owner")[:2] == (
        0,
        "alice@example.org: added owner in project 'P'\n",  # as stored, as the list says
    )
    assert run(db, capsys, "--add", "bob", "--role", "reviewer")[0] == 0
    assert run(db, capsys, "--add", "cy@example.org", "--role", "annotator")[0] == 0
    assert run(db, capsys, "--add", "bob", "--role", "annotator")[1] == (
        "bob: changed from reviewer to annotator in project 'P'\n"
    )
    status, out, _ = run(db, capsys, "--list")
    assert out.splitlines() == [
        "alice@example.org  owner",
        "bob                annotator",
        "cy@example.org     annotator",
    ]
    assert run(db, capsys, "--remove", "bob")[:2] == (
        0,
        "bob: removed (annotator) from project 'P'\n",
    )
    status, out, _ = run(db, capsys, "--list", "--json")
    assert json.loads(out) == {
        "project": "P",
        "open": False,
        "members": [
            {"member": "alice@example.org", "role": "owner"},
            {"member": "cy@example.org", "role": "annotator"},
        ],
    }
    with open_store(db) as store:
        records = store.audit("P")
    assert len(records) == 5 and all(r.actor.startswith("shell") for r in records)
    assert [r.action for r in records] == ["member"] * 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--add", "bob", "--role", "boss"],
            "role must be one of ['owner', 'reviewer', 'annotator']",
        ),
        (["--add", "bob"], "--add needs --role"),
        (["--role", "owner"], "--role goes with --add"),
        (["--add", "bob", "--role", "reviewer"], "first member must be an owner"),
        (["--remove", "bob"], "'bob' is not a member of project 'P'"),
        (["--add", "a", "--role", "owner", "--remove", "b"], "choose one of --add, --remove"),
        (["--remove", "b", "--json"], "--json goes with --list"),
        (["--add", " ", "--role", "owner"], "a member is a non-empty user name"),
    ],
)
def test_bad_requests_are_one_line_and_change_nothing(db, capsys, args, message):
    before = dump(db)
    status, out, err = run(db, capsys, *args)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: ") and message in err, err
    assert dump(db) == before


def test_the_last_owner_stays_and_an_unknown_project_is_named(db, capsys):
    run(db, capsys, "--add", "alice@example.org", "--role", "owner")
    run(db, capsys, "--add", "bob", "--role", "annotator")
    before = dump(db)
    for args in (["--remove", "alice@example.org"], ["--add", "alice@example.org", "--role",
                                                     "reviewer"]):  # fmt: skip
        status, _, err = run(db, capsys, *args)
        assert status == 2 and err.count("\n") == 1 and "last owner" in err
    status = main(["members", "--db", db, "--project", "Q", "--list"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "no project named 'Q'" in err
    assert dump(db) == before


def test_a_missing_database_is_not_created(tmp_path, capsys):
    missing = tmp_path / "none.sqlite3"
    assert main(["members", "--db", str(missing), "--project", "P"]) == 2
    assert "no label database" in capsys.readouterr().err and not missing.exists()


def test_as_a_subprocess(db):
    add = [sys.executable, "-m", "rlscore", "members", "--db", db, "--project", "P"]
    done = subprocess.run(
        [*add, "--add", "alice@example.org", "--role", "owner"],
        capture_output=True,
        text=True,
        env={**os.environ, "RLSCORE_TRACEBACK": ""},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    done = subprocess.run([*add, "--remove", "zed"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr
        == "error: 'zed' is not a member of project 'P'; members: ['alice@example.org']\n"
    )


@pytest.mark.parametrize(
    ("change", "verb"),
    [
        (["--add", "bob", "--role", "owner"], "change the project's members"),
        (["--remove", "alice"], "change the project's members"),
    ],
)
def test_a_refusal_as_a_member_names_the_action_attempted(db, capsys, change, verb):
    """``--as bob`` (an annotator) adding himself as owner is refused as a change of the
    members (it was refused as reading their addresses), and nothing changes."""
    with open_store(db) as store:
        store.set_member("P", "alice", "owner", by="t")
        store.set_member("P", "bob", "annotator", by="t")
    status, out, err = run(db, capsys, "--as", "bob", *change)
    assert (status, out) == (2, "")
    assert err == f"error: 'bob' may not {verb} in project 'P': that needs the owner role, " \
                  "and 'bob' is an annotator\n"  # fmt: skip
    with open_store(db) as store:
        assert store.members("P") == {"alice": "owner", "bob": "annotator"}
