"""The team's agreement and the ``settings``/``agreement`` commands under roles.

The app reads the agreement through :func:`rlscore.sessions.team.agreement_report.agreement_as` (a
reviewer's or owner's once the project has members); the commands are a shell
administrator's: no role checked, a settings change audited as ``shell:<login>``. The
reference for the agreement is the unchecked report of the same log.
"""

from __future__ import annotations

import getpass
import json

import pytest
from support.stores import small_project

from rlscore.cli import main
from rlscore.sessions.state.settings import project_settings
from rlscore.sessions.team import permissions
from rlscore.sessions.team.agreement_report import agreement_as, project_agreement
from rlscore.storage import Event, open_store


@pytest.fixture
def db(tmp_path) -> str:
    path = str(tmp_path / "labels.sqlite3")
    with open_store(path) as store:
        store.create_project(small_project("P"))
        for who, labels in {"bob": [1, 1, -1], "carol": [1, -1, -1]}.items():
            for point, label in enumerate(labels):
                store.append_event("P", Event("label", point, label, who, seconds=1.0))
        permissions.add_member(store, "P", "alice", "owner", None)
        permissions.add_member(store, "P", "bob", "annotator", "alice")
        permissions.add_member(store, "P", "carol", "reviewer", "alice")
    return path


def test_the_agreement_is_a_reviewers(db):
    with open_store(db) as store:
        reference = project_agreement(store, "P").to_dict()
        for user in ("alice", "carol"):
            assert agreement_as(store, "P", user).to_dict() == reference
        for user in ("bob", "mallory", None):
            with pytest.raises(permissions.PermissionDeniedError, match="reviewer role"):
                agreement_as(store, "P", user)


def test_the_commands_act_as_the_shells_administrator(db, capsys):
    assert main(["agreement", "--db", db, "--project", "P", "--json"]) == 0
    with open_store(db) as store:
        assert json.loads(capsys.readouterr().out) == project_agreement(store, "P").to_dict()
    assert main(["settings", "--db", db, "--project", "P", "--set", "sigma=1.7"]) == 0
    with open_store(db) as store:
        assert project_settings(store, "P")["sigma"] == 1.7
        (record,) = [r for r in store.audit("P") if r.action == "settings"]
    assert record.actor == f"shell:{getpass.getuser()}"
    assert record.details["sigma"][1] == 1.7


def test_the_labels_that_are_probably_wrong_are_a_reviewers(db, capsys):
    # as the Review page's queue: an annotator may read the project, not its suspects
    assert main(["label-issues", "--db", db, "--project", "P", "--as", "bob"]) == 2
    err = capsys.readouterr().err
    assert "reviewer role" in err and "Traceback" not in err
    assert "may not see who labeled what" in err  # a read: not "decide reviews"
    assert main(["label-issues", "--db", db, "--project", "P"]) == 0
    reference = capsys.readouterr().out
    for user in ("alice", "carol"):
        assert main(["label-issues", "--db", db, "--project", "P", "--as", user]) == 0
        assert capsys.readouterr().out == reference


@pytest.mark.parametrize(
    "command",
    [["labels"], ["settings"], ["agreement"], ["members"], ["label-issues"], ["negatives"]],
)
def test_a_non_member_cannot_tell_a_project_from_none(db, capsys, command):
    """A tester probed project names with ``--as``: an existing project answered "may not
    read anything in project 'P' … not a member", an unknown one "no project named …"."""
    told = {}
    for name in ("P", "Q"):
        assert main([*command, "--db", db, "--project", name, "--as", "mallory"]) == 2
        told[name] = capsys.readouterr().err
    assert told["P"].replace("'P'", "'Q'") == told["Q"]
    assert told["Q"].startswith("error: no project named 'Q' that you may read")


@pytest.mark.parametrize(
    "command",
    [["labels"], ["settings"], ["agreement"], ["members"], ["label-issues"], ["negatives"]],
)
@pytest.mark.parametrize("blank", ["", " ", "\x01", "\u202e"])
def test_a_blank_as_is_refused_not_the_administrator(db, capsys, monkeypatch, command, blank):
    """A restricted shell (``RLSCORE_USER`` set) became the database's administrator with
    ``--as ' '`` (an exploratory test): a name that cleans to nothing is refused."""
    monkeypatch.setenv("RLSCORE_USER", "mallory")
    assert main([*command, "--db", db, "--project", "P", "--as", blank]) == 2
    err = capsys.readouterr().err
    assert "--as names nobody" in err and "Traceback" not in err
    monkeypatch.setenv("RLSCORE_USER", blank or " ")
    assert main([*command, "--db", db, "--project", "P"]) == 2
    assert "$RLSCORE_USER names nobody" in capsys.readouterr().err
    with open_store(db) as store:
        assert "mallory" not in store.members("P")


def test_members_add_with_a_blank_as_changes_nothing(db, monkeypatch):
    monkeypatch.setenv("RLSCORE_USER", "mallory")
    args = ["members", "--db", db, "--project", "P", "--as", " ", "--add", "mallory"]
    assert main([*args, "--role", "owner"]) == 2
    with open_store(db) as store:
        assert "mallory" not in store.members("P")


def test_create_project_as_a_user_follows_the_creators_setting(db, tmp_path, capsys, monkeypatch):
    """``create-project --as`` creates as the Data page does: refused unless
    ``RLSCORE_PROJECT_CREATORS`` lists the user, who then owns the project; without ``--as``,
    the administrator's open project as before."""
    table = tmp_path / "t.csv"
    table.write_text("x,y\n0.1,a\n0.5,b\n0.9,a\n")
    base = ["create-project", "--db", db, "--truth", "y"]
    monkeypatch.setenv("RLSCORE_PROJECT_CREATORS", "alice")
    assert main([*base, "--as", "mallory", "M", str(table)]) == 2
    assert "'mallory' may not create projects" in capsys.readouterr().err
    monkeypatch.setenv("RLSCORE_USER", "mallory")
    assert main([*base, "M", str(table)]) == 2
    monkeypatch.delenv("RLSCORE_USER")
    assert main([*base, "--as", "alice", "A", str(table)]) == 0
    assert "owned by 'alice'" in capsys.readouterr().out
    assert main([*base, "O", str(table)]) == 0
    with open_store(db) as store:
        assert "M" not in store.list_projects()
        assert store.members("A") == {"alice": "owner"}
        assert store.members("O") == {}
