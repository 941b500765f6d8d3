"""Roles per project, enforced below the UI (issue 23): every forbidden action is tried
directly through the Python API — the session's methods and the functions a page's callback
calls, with a crafted user — and must be refused with a message naming the role, leaving the
database exactly as it was; every allowed action must work. On SQLite and PostgreSQL.

The reference is the table of the issue, written out here independently of
``rlscore.sessions.team.permissions.ACTIONS``: owner (settings, members, delete, export), reviewer
(review decisions, agreement), annotator (label, skip, undo own), each role also allowed what
the lesser ones are.
"""

from __future__ import annotations

import threading

import pytest
from support.access import dump
from support.sessions import session
from support.stores import BARRIER_SECONDS, raw_sql, small_project

from rlscore.sessions.actions.review import review_point
from rlscore.sessions.actions.undo import undo_last
from rlscore.sessions.state.settings import project_settings, save_project_settings
from rlscore.sessions.team import permissions
from rlscore.sessions.team.audit import export_project, project_audit
from rlscore.sessions.team.permissions import (
    PermissionDeniedError,
    add_member,
    claim_ownership,
    create_project,
    delete_project,
    remove_member,
    require,
    restore_project,
)
from rlscore.storage import UnknownProjectError, open_store

OWNER, REVIEWER, ANNOTATOR, OTHER = (
    "olga@example.org",
    "rita@example.org",
    "ann@example.org",
    "abe@example.org",
)
OUTSIDER = "eve@example.org"
#: the issue's table: the least role each action needs
NEEDS = {
    "label": "annotator",
    "relabel": "annotator",
    "skip": "annotator",
    "undo_own": "annotator",
    "review": "reviewer",
    "agreement": "reviewer",
    "see_labels": "reviewer",
    "settings": "owner",
    "members": "owner",
    "delete": "owner",
    "restore": "owner",
    "export": "owner",
}
#: who holds which role in the team project; None: nobody signed in
PEOPLE = {OWNER: "owner", REVIEWER: "reviewer", ANNOTATOR: "annotator", OUTSIDER: None, None: None}
_LEVEL = {None: 0, "annotator": 1, "reviewer": 2, "owner": 3}


def expected_allowed(role: str | None, action: str) -> bool:
    return _LEVEL[role] >= _LEVEL[NEEDS[action]]


@pytest.fixture
def team(store):
    """The moons project with an owner, a reviewer and two annotators (added as the CLI and
    a signed-in owner would), and a label by each annotator."""
    assert claim_ownership(store, OWNER.upper()) == ["moons"]  # e-mail: any case
    add_member(store, "moons", REVIEWER, "reviewer", OWNER)
    add_member(store, "moons", ANNOTATOR, "annotator", OWNER)
    add_member(store, "moons", OTHER, "annotator", OWNER)
    # one session shared by the team, as the app's: opened unchecked, each action names its user
    s = session(store, snapshots=False, checked=False)
    s.label(0, s.project.truth[0], annotator=OTHER)
    s.label(1, s.project.truth[1], annotator=ANNOTATOR)
    return s


def target(store) -> str:
    return str(store.path)


def refused(store, call, needed: str) -> PermissionDeniedError:
    """``call()`` must be refused naming ``needed``, with the database unchanged (a
    non-member's restore: told what a name never deleted gets)."""
    before = dump(target(store))
    with pytest.raises(PermissionDeniedError) as info:
        call()
    assert dump(target(store)) == before
    assert info.value.needed == needed
    if str(info.value).startswith("no deleted project"):
        assert info.value.role is None  # a non-member, or nobody signed in
    else:
        assert f"needs the {needed} role" in str(info.value)
    return info.value


# -- the table ------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", list(NEEDS))
@pytest.mark.parametrize("person", list(PEOPLE), ids=lambda p: str(p).split("@")[0])
def test_require_follows_the_issues_table(team, action, person):
    store = team.store
    if expected_allowed(PEOPLE[person], action):
        require(store, "moons", person, action)
    else:
        error = refused(store, lambda: require(store, "moons", person, action), NEEDS[action])
        assert error.role == PEOPLE[person]


def test_a_refused_read_says_nothing_of_the_project(team):
    """A non-member refused a read is told what a name that exists nowhere gets."""
    with pytest.raises(UnknownProjectError) as unknown:
        permissions.require_read(team.store, "nosuch", OUTSIDER)
    with pytest.raises(PermissionDeniedError) as refused_read:
        permissions.require_read(team.store, "moons", OUTSIDER)
    assert str(refused_read.value) == str(unknown.value).replace("'nosuch'", "'moons'")
    assert refused_read.value.role is None and refused_read.value.needed == "annotator"


def test_role_of_and_is_open_say_what_a_page_needs_to_hide_buttons(team, store):
    for person, role in PEOPLE.items():
        assert permissions.role_of(store, "moons", person) == role
    assert permissions.role_of(store, "moons", OWNER.upper()) == "owner"
    assert not permissions.is_open(store, "moons")
    members = store.members("moons")
    for person, role in PEOPLE.items():
        for action in NEEDS:
            assert permissions.allowed(members, person, action) is expected_allowed(role, action)
    assert permissions.allowed({}, None, "delete")
    with pytest.raises(ValueError, match="unknown action 'fly'"):
        permissions.allowed({}, OWNER, "fly")


def test_the_modules_table_is_the_issues():
    assert {a: permissions.ACTIONS[a] for a in NEEDS} == NEEDS
    # issue 34: reading is a member's, the members' addresses an owner's
    assert permissions.ACTIONS["read"] == "annotator"
    assert permissions.ACTIONS["see_members"] == "owner"
    assert permissions.ACTIONS["undo_others"] == "reviewer"


def test_an_open_project_allows_everything_to_anyone(store):
    """No members: today's local mode, typed names, nothing checked."""
    s = session(store, snapshots=False)
    for name in ("anonymous", "", "whoever"):
        for action in NEEDS:
            require(store, "moons", name or None, action)
    s.label(0, s.project.truth[0], annotator="x")
    s.review(0, s.project.truth[0], reviewer="y")
    s.undo(annotator=None)  # anyone's
    save_project_settings(store, "moons", {"lam": 0.2})
    assert export_project(store, "moons", None).labels.startswith("point_id")


# -- labeling: label, relabel, skip, undo ---------------------------------------------------------
def test_a_non_member_or_nobody_cannot_label_skip_or_relabel(team):
    s, y = team, team.project.truth
    for who in (OUTSIDER, None, "OLGA"):  # a name that is not the owner's address
        refused(s.store, lambda w=who: s.label(5, y[5], annotator=w), "annotator")
        refused(s.store, lambda w=who: s.skip(5, annotator=w), "annotator")
        refused(s.store, lambda w=who: s.label(1, y[1], annotator=w), "annotator")  # relabel
    # the session's own annotator, when the call names none
    s.set_params(annotator=OUTSIDER)
    refused(s.store, lambda: s.label(5, y[5]), "annotator")
    assert 5 not in s.labels


def test_members_label_skip_and_relabel(team):
    s, y = team, team.project.truth
    for i, who in enumerate((ANNOTATOR, REVIEWER, OWNER)):
        s.label(10 + i, y[10 + i], annotator=who)
        s.skip(20 + i, annotator=who)
    s.label(0, -y[0], annotator=ANNOTATOR)  # a teammate's point: their own label of it
    assert {10, 11, 12}.issubset(s.labels) and {20, 21, 22} <= s.skipped
    last = s.store.events("moons")[-1]
    assert (last.kind, last.point, last.annotator, last.label) == ("label", 0, ANNOTATOR, -y[0])


def test_an_annotator_undoes_their_own_action_only(team):
    s = team
    # the most recent action is ANNOTATOR's own (point 1): theirs to undo
    s.label(2, s.project.truth[2], annotator=OTHER)  # now the newest is a teammate's
    refused(s.store, lambda: s.undo(annotator=None, expected=None), "reviewer")
    # the engine-less path the Label and Review pages call (a crafted callback)
    refused(s.store, lambda: undo_last(s.store, "moons", by=ANNOTATOR), "reviewer")
    refused(s.store, lambda: undo_last(s.store, "moons", annotator=OTHER, by=ANNOTATOR), "reviewer")
    refused(s.store, lambda: undo_last(s.store, "moons", annotator=ANNOTATOR, by=OUTSIDER),
            "reviewer")  # fmt: skip
    reverted = s.undo(annotator=ANNOTATOR)
    assert reverted.point == 1 and reverted.annotator == ANNOTATOR and 1 not in s.labels


def test_a_reviewer_undoes_a_teammates_action(team):
    s = team
    reverted = undo_last(s.store, "moons", annotator=ANNOTATOR, by=REVIEWER)
    assert reverted.point == 1
    s.sync()
    assert 1 not in s.labels and [e.annotator for e in s.store.events("moons")][-1] == REVIEWER


# -- review ----------------------------------------------------------------------------------------
def test_only_reviewers_and_owners_decide_reviews(team):
    s, y = team, team.project.truth
    for who in (ANNOTATOR, OUTSIDER, None):
        refused(s.store, lambda w=who: s.review(0, y[0], reviewer=w), "reviewer")
        # what the Review page's callback calls, with a crafted reviewer
        refused(s.store, lambda w=who: review_point(s.store, "moons", 0, y[0], w), "reviewer")
    s.review(0, -y[0], reviewer=REVIEWER)
    review_point(s.store, "moons", 1, y[1], OWNER)
    s.sync()
    reviews = [(e.point, e.annotator) for e in s.store.events("moons") if e.kind == "review"]
    assert reviews == [(0, REVIEWER), (1, OWNER)] and s.labels[0] == -y[0]


# -- settings --------------------------------------------------------------------------------------
def test_only_owners_change_settings_and_each_change_is_audited(team):
    store = team.store
    for who in (REVIEWER, ANNOTATOR, OUTSIDER, None):
        refused(store, lambda w=who: save_project_settings(store, "moons", {"lam": 0.01}, user=w),
                "owner")  # fmt: skip
    save_project_settings(store, "moons", {"lam": 0.01}, user=OWNER)
    assert project_settings(store, "moons")["lam"] == 0.01
    settings = [r for r in project_audit(store, "moons") if r.action == "settings"]
    assert len(settings) == 1 and settings[0].actor == OWNER
    # against the λ in force before (the project's), the only setting that changed
    assert settings[0].details == {"lam": [store.load_project("moons").meta["lam"], 0.01]}


# -- export ----------------------------------------------------------------------------------------
def test_only_owners_export(team):
    store = team.store
    for who in (REVIEWER, ANNOTATOR, OUTSIDER, None):
        refused(store, lambda w=who: export_project(store, "moons", w, "json"), "owner")
    out = export_project(store, "moons", OWNER, "json")
    assert '"point_id": "m' in out.labels and '"action": "export"' in out.audit


# -- members ---------------------------------------------------------------------------------------
def test_only_owners_change_members(team):
    store = team.store
    for who in (REVIEWER, ANNOTATOR, OUTSIDER, None):
        refused(store, lambda w=who: add_member(store, "moons", OUTSIDER, "owner", w), "owner")
        refused(store, lambda w=who: remove_member(store, "moons", OTHER, w), "owner")
    add_member(store, "moons", OUTSIDER, "reviewer", OWNER)
    remove_member(store, "moons", OTHER, OWNER)
    assert store.members("moons") == {
        OWNER: "owner",
        REVIEWER: "reviewer",
        ANNOTATOR: "annotator",
        OUTSIDER: "reviewer",
    }
    # the new reviewer may now review, the removed annotator no longer label
    review_point(store, "moons", 3, team.project.truth[3], OUTSIDER)
    refused(store, lambda: team.label(4, team.project.truth[4], annotator=OTHER), "annotator")


def test_a_project_with_members_always_has_an_owner(store):
    with pytest.raises(ValueError, match="first member must be an owner"):
        add_member(store, "moons", ANNOTATOR, "annotator", None)
    assert store.members("moons") == {}
    add_member(store, "moons", OWNER, "owner", None)  # open: anyone may add the owner
    add_member(store, "moons", ANNOTATOR, "annotator", OWNER)
    before = dump(target(store))
    with pytest.raises(ValueError, match="last owner"):
        add_member(store, "moons", OWNER, "reviewer", OWNER)
    with pytest.raises(ValueError, match="last owner"):
        remove_member(store, "moons", OWNER, OWNER)
    assert dump(target(store)) == before
    add_member(store, "moons", REVIEWER, "owner", OWNER)
    add_member(store, "moons", OWNER, "reviewer", REVIEWER)  # another owner remains
    remove_member(store, "moons", ANNOTATOR, REVIEWER)
    remove_member(store, "moons", OWNER, REVIEWER)
    remove_member(store, "moons", REVIEWER, REVIEWER)  # the last member: open again
    assert store.members("moons") == {}
    require(store, "moons", "anyone", "delete")


def test_the_first_user_of_a_fresh_database_owns_the_samples_once(store):
    other = store.__class__(store.path)  # another server on the same database
    try:
        assert claim_ownership(store, OWNER) == ["moons"]
        assert claim_ownership(other, OUTSIDER) == []
        assert claim_ownership(store, OWNER) == []
    finally:
        other.close()
    assert store.members("moons") == {OWNER: "owner"}
    (record,) = project_audit(store, "moons")
    assert (record.action, record.actor, record.details["role"]) == ("member", OWNER, "owner")


# -- deletion: recoverable, by owners ------------------------------------------------------------
def test_only_owners_delete_and_restore(team, monkeypatch):
    store = team.store
    for who in (REVIEWER, ANNOTATOR, OUTSIDER, None):
        refused(store, lambda w=who: delete_project(store, "moons", w), "owner")
    delete_project(store, "moons", OWNER)
    assert "moons" not in store.list_projects()
    with pytest.raises(UnknownProjectError):
        team.label(5, team.project.truth[5], annotator=ANNOTATOR, project_uid=team.project.uid)
    for who in (REVIEWER, ANNOTATOR, OUTSIDER, None):
        refused(store, lambda w=who: restore_project(store, "moons", w), "owner")
    assert restore_project(store, "moons", OWNER) == "moons"
    team.sync()
    assert set(team.labels) == {0, 1}  # every label came back with the project
    actions = [(r.action, r.actor) for r in project_audit(store, "moons")][-2:]
    assert actions == [("delete", OWNER), ("restore", OWNER)]


def test_a_deleted_project_is_gone_from_every_lookup_and_its_name_is_free(store):
    s = session(store, snapshots=False)
    s.label(0, s.project.truth[0], annotator="x")
    uid = store.project_uid("moons")
    delete_project(store, "moons", None)
    assert store.list_projects() == [] and store.project_uid("moons") is None
    assert [p["name"] for p in store.project_summaries()] == []
    for call in (lambda: store.load_project("moons"), lambda: store.events("moons")):
        with pytest.raises(UnknownProjectError):
            call()
    with pytest.raises(UnknownProjectError):  # not even by the trashed row's own name
        store.load_project(f" deleted {uid} moons")
    store.create_project(s.project)  # the name is free while the old one waits in the trash
    with pytest.raises(ValueError, match="created since"):
        restore_project(store, "moons", None)
    delete_project(store, "moons", None)
    assert restore_project(store, "moons", None) == "moons"  # the newer one
    assert store.events("moons") == []
    store.delete_project("moons")  # the newer one for good: the older is next in the trash
    assert restore_project(store, "moons", None) == "moons"
    assert store.project_uid("moons") == uid and len(store.events("moons")) == 1


def test_deleted_projects_are_purged_after_the_grace_period(store, monkeypatch):
    s = session(store, snapshots=False)
    s.label(0, s.project.truth[0], annotator="x")
    uid = store.project_uid("moons")
    delete_project(store, "moons", "x")
    assert [t["name"] for t in store.trashed_projects()] == ["moons"]
    monkeypatch.setenv(permissions.GRACE_ENV, "0")
    assert permissions.purge_expired(store, by="x") == ["moons"]
    assert store.trashed_projects() == []
    with pytest.raises(UnknownProjectError):
        restore_project(store, "moons", "x")
    for table in ("events", "settings", "members", "projects"):
        assert dump(target(store))[table] == []
    # the audit outlives the project
    assert [r.action for r in project_audit(store, uid=uid)] == ["delete", "purge"]
    monkeypatch.setenv(permissions.GRACE_ENV, "soon")
    with pytest.raises(ValueError, match="number of days"):
        permissions.grace_seconds()


# -- creating projects: a server setting ---------------------------------------------------------
@pytest.mark.parametrize(
    ("setting", "user", "may"),
    [
        ("", None, True),
        ("", "anyone", True),
        ("*", "anyone", True),
        ("*", None, False),
        ("olga@example.org, @corp.example", "OLGA@example.org", True),
        ("olga@example.org, @corp.example", "bo@corp.example", True),
        ("olga@example.org, @corp.example", "bo@evilcorp.example", False),
        ("olga@example.org, @corp.example", "bo@x.corp.example", False),
        ("olga@example.org", None, False),
    ],
)
def test_who_may_create_projects_is_a_server_setting(monkeypatch, setting, user, may):
    monkeypatch.setenv(permissions.CREATORS_ENV, setting)
    assert permissions.may_create_projects(user) is may


def test_a_creator_becomes_the_owner_and_others_are_refused(store, monkeypatch):
    monkeypatch.setenv(permissions.CREATORS_ENV, OWNER)
    before = dump(target(store))
    with pytest.raises(PermissionDeniedError, match=permissions.CREATORS_ENV):
        create_project(store, small_project("new"), OUTSIDER)
    assert dump(target(store)) == before
    create_project(store, small_project("new"), OWNER)
    assert store.members("new") == {OWNER: "owner"}
    monkeypatch.delenv(permissions.CREATORS_ENV)
    create_project(store, small_project("open"), None)  # the local mode: an open project
    assert store.members("open") == {}


def test_two_servers_signing_in_at_once_make_one_owner(db_target):
    """The first-user claim is atomic: server A stops right after finding no members, inside
    its transaction; server B then starts its claim and says when it is about to take the
    database's lock (or, were its check outside the lock, right after its check); only then
    does A commit. B must find A's owner and claim nothing."""
    first, second = open_store(db_target), open_store(db_target)
    first.create_project(small_project())
    a_checked, b_waiting = threading.Event(), threading.Event()
    lock = second.dialect.lock_schema or second.dialect.begin_write

    def a_run(sql, params=(), run=first._db.run):
        out = run(sql, params)
        if sql.startswith("SELECT 1 FROM members"):
            a_checked.set()
            assert b_waiting.wait(BARRIER_SECONDS), "B never reached its claim"
        return out

    def b_run(sql, params=(), run=second._db.run):
        if sql == lock:
            b_waiting.set()
        out = run(sql, params)
        if sql.startswith("SELECT 1 FROM members"):
            b_waiting.set()
        return out

    first._db.run, second._db.run = a_run, b_run
    won = {}
    a = threading.Thread(target=lambda: won.update(A=claim_ownership(first, OWNER)))
    a.start()
    try:
        assert a_checked.wait(BARRIER_SECONDS)
        won["B"] = claim_ownership(second, OUTSIDER)
    finally:
        b_waiting.set()
        a.join(BARRIER_SECONDS)
    first.close()
    second.close()
    assert won == {"A": ["p"], "B": []}
    assert raw_sql(db_target, "SELECT member, role FROM members") == [(OWNER, "owner")]


def test_a_checked_session_acts_as_its_annotator_only(team):
    """A tester's session opened as annotator ann labeled and undid as the owner (the undo
    recorded as the owner's) and exported every label with names."""
    store = team.store
    ann = session(store, snapshots=False, annotator=ANNOTATOR)  # checked: read as ann
    point = int(ann.query(annotator=ANNOTATOR)[0])
    for call in (
        lambda: ann.label(point, ann.project.truth[point], annotator=OWNER),
        lambda: ann.skip(point, annotator=OWNER),
        lambda: ann.undo(annotator=OWNER),
        lambda: ann.review(point, ann.project.truth[point], reviewer=OWNER),
        lambda: ann.export("csv"),
    ):
        before = dump(target(store))
        with pytest.raises(PermissionDeniedError):
            call()
        assert dump(target(store)) == before
    ann.label(point, ann.project.truth[point], annotator=ANNOTATOR.upper())  # the same user
    assert store.events("moons")[-1].annotator.lower() == ANNOTATOR
    assert ann.undo().annotator.lower() == ANNOTATOR  # their own, as themselves
    owner = session(store, snapshots=False, annotator=OWNER)
    assert "label[" in owner.export("csv").splitlines()[0]  # an owner's read
    assert team.export("csv") == owner.export("csv")  # unchecked: the database's holder


def test_a_checked_sessions_undo_reverts_its_annotators_own_last_action(team):
    # a tester: ann's session refused ann's Undo ("may not undo a teammate's action") because
    # the project's newest action was a teammate's label, not hers
    store = team.store
    ann = session(store, snapshots=False, annotator=ANNOTATOR)
    point = int(ann.query(annotator=ANNOTATOR)[0])
    ann.label(point, ann.project.truth[point])
    team.label(2, team.project.truth[2], annotator=OTHER)  # a teammate's label, newer
    before = dump(target(store))
    reverted = ann.undo()
    assert reverted.annotator == ANNOTATOR and reverted.point == point
    assert len(dump(target(store))["events"]) == len(before["events"]) + 1  # one undo, hers
    assert store.events("moons")[-1].annotator == ANNOTATOR
    assert 2 in team.labels  # the teammate's label stands
