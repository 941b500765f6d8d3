"""Reading is a permission like the others (issue 34 item 1), below the UI, on SQLite and
PostgreSQL: every read of a project with members — list it, open it (``LabelingSession``),
search it, tune it, review it, export it, read its members and audit — is tried through the
Python API and the commands' ``--as`` as its owner, reviewer, annotator, a signed-in
non-member and nobody. A refusal raises :class:`PermissionDeniedError` (or exits 2 with one
``error:`` line) and writes nothing; an allowed read gives what the unchecked read of the
same database gives (the reference). A project without members stays open to everyone.

The reference table is written out here, independently of ``permissions.ACTIONS``: any
member reads; a reviewer or owner reads the agreement; only an owner exports and reads the
members' addresses and the audit.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from support.access import dump
from support.sessions import moons_subset, session
from support.stores import small_project

from rlscore.cli import main
from rlscore.experiments.tuning.report import TuningModel, tuning_report
from rlscore.sessions.team import permissions
from rlscore.sessions.team.agreement_report import agreement_as, project_agreement
from rlscore.sessions.team.audit import audit_as, export_project, project_audit
from rlscore.sessions.team.permissions import PermissionDeniedError
from rlscore.sessions.views.export import export_labels
from rlscore.sessions.views.label_page import QueryPanelState
from rlscore.sessions.views.search_results import similar_points
from rlscore.storage import Event, UnknownProjectError

OWNER, REVIEWER, ANNOTATOR = "olga@example.org", "rita@example.org", "ann@example.org"
OUTSIDER = "eve@example.org"
#: who holds which role in "moons"; None: nobody signed in
ROLE = {OWNER: "owner", REVIEWER: "reviewer", ANNOTATOR: "annotator", OUTSIDER: None, None: None}
PEOPLE = list(ROLE)
_RANK = {None: 0, "annotator": 1, "reviewer": 2, "owner": 3}
#: the least role each read needs (the issue's words)
NEEDS = {"read": "annotator", "agreement": "reviewer", "review": "reviewer", "export": "owner",
         "members": "owner", "see_labels": "reviewer"}  # fmt: skip


def may(person: str | None, read: str) -> bool:
    return _RANK[ROLE[person]] >= _RANK[NEEDS[read]]


def ids(person) -> str:
    return str(person).split("@")[0]


@pytest.fixture
def team(store):
    """``moons`` with an owner, a reviewer and an annotator, a label of each class by the
    annotator and one by the reviewer, and ``open``, a project without members."""
    permissions.add_member(store, "moons", OWNER, "owner", None)
    permissions.add_member(store, "moons", REVIEWER, "reviewer", OWNER)
    permissions.add_member(store, "moons", ANNOTATOR, "annotator", OWNER)
    truth = store.load_project("moons").truth
    (neg, other), pos = np.flatnonzero(truth == -1)[:2], int(np.flatnonzero(truth == 1)[0])
    for point, label, who in ((neg, -1, ANNOTATOR), (pos, 1, ANNOTATOR), (other, -1, REVIEWER)):
        store.append_event("moons", Event("label", int(point), label, who, seconds=1.0))
    store.create_project(small_project("open"))
    return store


def unchanged(store, call, needed: str | None = None) -> PermissionDeniedError:
    """``call()`` must be refused (naming ``needed``) with the database unchanged."""
    before = dump(str(store.path))
    with pytest.raises(PermissionDeniedError) as info:
        call()
    assert dump(str(store.path)) == before
    if needed is not None:
        assert info.value.needed == needed
        refused_read = info.value.action == "read"
        if refused_read and info.value.role is None:  # a non-member's read: nothing told
            assert str(info.value).startswith("no project named 'moons' that you may read")
        else:
            assert f"needs the {needed} role" in str(info.value)
    return info.value


# -- the rule -------------------------------------------------------------------------------
@pytest.mark.parametrize("person", PEOPLE, ids=ids)
def test_only_members_read_a_project_with_members(team, person):
    member = ROLE[person] is not None
    assert permissions.can_read(team, "moons", person) is member
    assert permissions.can_read(team, "open", person)  # no members: open to everyone
    assert permissions.readable_projects(team, person) == (
        ["moons", "open"] if member else ["open"]
    )
    permissions.require_read(team, "open", person)
    if member:
        permissions.require_read(team, "moons", person)
    else:
        error = unchanged(team, lambda: permissions.require_read(team, "moons", person))
        assert error.needed == "annotator" and error.role is None


def test_an_unknown_project_is_named_without_the_ones_the_reader_may_not_read(team):
    with pytest.raises(UnknownProjectError) as info:
        permissions.require_read(team, "nope", OUTSIDER)
    assert "'nope'" in str(info.value) and "open" in str(info.value)
    assert "moons" not in str(info.value)
    with pytest.raises(UnknownProjectError, match="moons"):
        permissions.require_read(team, "nope", ANNOTATOR)


@pytest.mark.parametrize("nobody", [None, "", "   "])
def test_nobody_signed_in_cannot_tell_a_private_project_from_none(team, nobody):
    # an empty name was told "nobody signed in may read anything in project 'moons'", a
    # name that exists nowhere "no project named …" (an exploratory test)
    told = {}
    for name in ("moons", "nope"):
        with pytest.raises((PermissionDeniedError, UnknownProjectError)) as info:
            permissions.require_read(team, name, nobody)
        told[name] = str(info.value)
    assert told["moons"].replace("'moons'", "'nope'") == told["nope"]
    with pytest.raises(PermissionDeniedError) as info:
        session(team, annotator="   ", snapshots=False)
    assert str(info.value).startswith("no project named 'moons' that you may read")


# -- open, search, tune, review: through a session ------------------------------------------
@pytest.mark.parametrize("person", PEOPLE, ids=ids)
def test_a_session_is_opened_by_members_only(team, person):
    reference = session(team, checked=False, snapshots=False)  # the database's holder
    if not may(person, "read"):
        unchanged(team, lambda: session(team, annotator=person, snapshots=False), "annotator")
        return
    s = session(team, annotator=person, snapshots=False)
    assert s.labels == reference.labels
    # what a member reads through it: search and tuning
    assert similar_points(s, person, 3).points == similar_points(reference, person, 3).points
    model = TuningModel.for_settings("arls", "rbf")
    tuned = tuning_report(s.project.X, dict(s.labels), sigma=1.0, lam=0.5, model=model)
    again = tuning_report(reference.project.X, dict(reference.labels), sigma=1.0, lam=0.5,
                          model=model)  # fmt: skip
    assert tuned.lam_auto == again.lam_auto


def test_a_checked_session_changes_hands_only_to_a_reader(team):
    # set_params(annotator=…) skipped the check a new session makes
    s = session(team, annotator=ANNOTATOR, snapshots=False)
    unchanged(team, lambda: s.set_params(annotator=OUTSIDER), "annotator")
    assert s.annotator == ANNOTATOR
    s.set_params(annotator=REVIEWER)
    assert s.annotator == REVIEWER


def test_a_session_on_an_open_project_is_anyones(team):
    for person in PEOPLE:
        name = "anonymous" if person is None else person
        assert session(team, project="open", annotator=name, snapshots=False).project.n == 6


# -- owner's and reviewer's reads -------------------------------------------------------------
@pytest.mark.parametrize("person", PEOPLE, ids=ids)
def test_the_members_addresses_and_the_audit_are_an_owners(team, person):
    if may(person, "members"):
        assert permissions.members_as(team, "moons", person) == team.members("moons")
        assert audit_as(team, "moons", person) == project_audit(team, "moons")
    else:
        unchanged(team, lambda: permissions.members_as(team, "moons", person), "owner")
        unchanged(team, lambda: audit_as(team, "moons", person), "owner")
    assert permissions.members_as(team, "open", person) == {}  # open: nothing to hide


@pytest.mark.parametrize("person", PEOPLE, ids=ids)
def test_the_agreement_is_a_reviewers_and_the_export_an_owners(team, person):
    if may(person, "agreement"):
        assert agreement_as(team, "moons", person).to_dict() == (
            project_agreement(team, "moons").to_dict()
        )
    else:
        unchanged(team, lambda: agreement_as(team, "moons", person), "reviewer")
    if may(person, "export"):
        reference = export_labels(team.load_project("moons"), team.events("moons"), "csv")
        assert export_project(team, "moons", person, "csv").labels == reference
    else:
        unchanged(team, lambda: export_project(team, "moons", person, "csv"), "owner")


@pytest.mark.parametrize("person", [OWNER, REVIEWER, ANNOTATOR], ids=ids)
def test_who_labeled_what_through_a_session_is_a_reviewers(team, person):
    """A checked session tells its annotator their own labels, last action and count; another
    member's — labels, last action, overlap queue, count — need the reviewer role, as the
    Label page and ``agreement --as`` already said (an exploratory test read them)."""
    reference = session(team, checked=False, snapshots=False)
    s = session(team, annotator=person, snapshots=False)
    others = [p for p in (OWNER, REVIEWER, ANNOTATOR) if p != person]
    if may(person, "see_labels"):
        assert s.progress() == reference.progress() == {ANNOTATOR: 2, REVIEWER: 1}
        for other in others:
            assert s.recent_labels(other) == reference.recent_labels(other)
            assert s.last_action(other) == reference.last_action(other)
            assert s.overlap_queue(other) == reference.overlap_queue(other)
    else:
        for other in others:
            for read in (s.recent_labels, s.last_action, s.overlap_queue):
                error = unchanged(team, lambda read=read, other=other: read(other), "reviewer")
                assert error.action == "see_labels" and error.role == "annotator"
        assert s.progress() == {ANNOTATOR: 2}
    # their own, under any spelling of their address; last_action() is what their undo()
    # reverts: their own
    mine = reference.recent_labels(person)
    assert s.recent_labels(person) == s.recent_labels(person.upper()) == mine
    assert s.last_action() == reference.last_action(person)
    # the Label page's panel, from a checked session too: the count, no teammate's
    panel = QueryPanelState.for_annotator(s, person)
    assert panel.own_labels == len(mine)
    assert panel.progress == ({} if person == ANNOTATOR else reference.progress())


# -- the commands -----------------------------------------------------------------------------
def command(capsys, *argv) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def refused_command(store, capsys, *argv) -> str:
    """A command refused: exit 2, one ``error:`` line, nothing written."""
    before = dump(str(store.path))
    status, out, err = command(capsys, *argv)
    assert (status, out) == (2, "") and err.count("\n") == 1 and err.startswith("error: ")
    assert dump(str(store.path)) == before
    return err


@pytest.mark.parametrize("person", [p for p in PEOPLE if p is not None], ids=ids)
def test_the_commands_act_as_the_user_of_as(team, person, capsys):
    db = str(team.path)
    status, out, _ = command(capsys, "labels", "--db", db, "--as", person)
    listed = [line.split("\t")[0] for line in out.splitlines()]
    assert status == 0 and listed == permissions.readable_projects(team, person)

    moons = ("--db", db, "--project", "moons", "--as", person)
    if may(person, "read"):
        status, out, _ = command(capsys, "settings", *moons)
        assert status == 0 and json.loads(out)["strategy"]
    else:
        for argv in (("settings", *moons), ("negatives", *moons), ("label-issues", *moons)):
            told = refused_command(team, capsys, *argv)
            # a non-member is told what a project that does not exist gets
            unknown = [a if a != "moons" else "nosuch" for a in argv]
            assert told == refused_command(team, capsys, *unknown).replace("'nosuch'", "'moons'")
            assert "no project named 'moons' that you may read" in told
    if may(person, "review"):
        # the suspect labels as the Review page's queue shows them to a reviewer or owner
        status, out, _ = command(capsys, "label-issues", *moons)
        assert status == 0 and out == command(capsys, "label-issues", *moons[:4])[1]
    elif may(person, "read"):  # an annotator: the queue is not theirs on the page either
        assert "reviewer role" in refused_command(team, capsys, "label-issues", *moons)
    if may(person, "agreement"):
        status, out, _ = command(capsys, "agreement", *moons, "--json")
        assert status == 0 and json.loads(out) == project_agreement(team, "moons").to_dict()
    elif may(person, "read"):
        assert "reviewer role" in refused_command(team, capsys, "agreement", *moons)
    else:  # a non-member is refused the read itself, as if there were no such project
        told = refused_command(team, capsys, "agreement", *moons)
        assert "no project named 'moons' that you may read" in told
    if may(person, "members"):
        status, out, _ = command(capsys, "members", *moons, "--json")
        listed = {m["member"]: m["role"] for m in json.loads(out)["members"]}
        assert status == 0 and listed == team.members("moons")
        status, out, _ = command(capsys, "labels", *moons, "--no-estimate")
        reference = export_labels(team.load_project("moons"), team.events("moons"), "csv",
                                  estimate=False)  # fmt: skip
        assert status == 0 and out == reference.rstrip("\n") + "\n"
        assert [r.action for r in team.audit("moons")][-1] == "export"  # as the app's
    else:
        # a non-member is told what a project that does not exist gets
        said = "owner role" if may(person, "read") else "no project named 'moons' that you may"
        for argv in (("members", *moons, "--list"), ("labels", *moons)):
            assert said in refused_command(team, capsys, *argv)
        # a change is an owner's too
        assert said in refused_command(
            team, capsys, "members", *moons, "--add", OUTSIDER, "--role", "annotator"
        )
    # an unknown project is named without the projects the user may not read
    for command_name in ("labels", "label-issues", "agreement", "members", "settings", "negatives"):
        argv = (command_name, "--db", db, "--project", "nope", "--as", person)
        err = refused_command(team, capsys, *argv)
        assert "'nope'" in err and ("moons" in err) is may(person, "read"), err


def test_without_as_a_command_is_the_databases_administrator(team, capsys, monkeypatch):
    monkeypatch.delenv("RLSCORE_USER", raising=False)
    db = str(team.path)
    status, out, _ = command(capsys, "labels", "--db", db)
    assert status == 0 and [line.split("\t")[0] for line in out.splitlines()] == [
        "moons",
        "open",
    ]
    status, out, _ = command(capsys, "members", "--db", db, "--project", "moons", "--json")
    assert status == 0 and len(json.loads(out)["members"]) == 3
    # the environment variable stands for --as
    monkeypatch.setenv("RLSCORE_USER", OUTSIDER)
    status, out, _ = command(capsys, "labels", "--db", db)
    assert status == 0 and out == "open\t0 labeled of 6\n"


def test_a_session_names_its_reader_when_the_project_has_members(tmp_path):
    """The default annotator is nobody in particular: a project with members refuses it."""
    from rlscore.storage import open_store

    with open_store(tmp_path / "labels.sqlite3") as store:
        store.create_project(moons_subset())
        permissions.add_member(store, "moons", OWNER, "owner", None)
        with pytest.raises(PermissionDeniedError, match="no project named 'moons' that you may"):
            session(store, snapshots=False)
