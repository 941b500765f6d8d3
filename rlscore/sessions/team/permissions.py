"""Who may do what in a project: roles, the role each action needs, and the checks.

A project's members each hold one of :data:`~rlscore.storage.sql.access.ROLES`, kept in the label
database (SQLite and PostgreSQL alike, schema version 5). The roles are ordered — an *owner*
may do everything a *reviewer* may, a reviewer everything an *annotator* may — and
:data:`ACTIONS` says which role each action needs:

========================  ==========  ==================================================
action                    role        what
========================  ==========  ==================================================
``read``                  annotator   list, open, search, tune or review the project
``label``, ``relabel``    annotator   label a point (again)
``skip``                  annotator   skip a point
``undo_own``              annotator   revert one's own last label, skip or review
``undo_others``           reviewer    revert a teammate's
``review``                reviewer    decide a point's final label
``agreement``             reviewer    read the team's agreement
``see_labels``            reviewer    read who labeled what: teammates' labels, names, counts
``settings``              owner       change the project's learner settings
``export``                owner       export the labels
``delete``, ``restore``   owner       delete the project (recoverably), bring it back
``members``               owner       add, change or remove members
``see_members``           owner       read the members' addresses and the audit trail
========================  ==========  ==================================================

**The open local mode.** A project with no members is open: every action is allowed to
anyone, as before roles existed (one machine, a typed name). Once it has an owner, every
action is checked, and a user who is not a member, or holds a lesser role, is refused with
:class:`PermissionDeniedError`, whose message names the role needed. The store keeps the
invariant that a project with members has an owner (:mod:`rlscore.storage.sql.access`).

The checks run in the session layer — :class:`~rlscore.sessions.actions.session.LabelingSession`'s
``label``, ``skip``, ``undo`` and ``review``, :func:`~rlscore.sessions.actions.review.review_point`,
:func:`~rlscore.sessions.actions.undo.undo_last`,
:func:`~rlscore.sessions.state.settings.save_project_settings`, the functions below and
:func:`~rlscore.sessions.team.audit.export_project` — so a page's callback, a crafted one or a
direct Python call are refused alike. The user is whoever the caller says acts (the annotator's
name, or the signed-in user once sign-in exists): the check is only as good as the identity it is
given. The store's own methods (``append_event``, ``save_settings`` …) are the floor below and are
not checked: whoever can call them can write to the database anyway.

**Reading is a permission like the others** (issue 34): a project with members is read by
its members only. :func:`can_read` and :func:`require_read` are the one rule, asked by every
read that names a reader — :class:`~rlscore.sessions.actions.session.LabelingSession` (and so
search, tuning, the Label page), :func:`readable_projects` (the lists of projects),
:func:`members_as` and :func:`~rlscore.sessions.team.audit.audit_as` (an owner's), the export
(an owner's) and the commands' ``--as`` option. A project without members stays open to
everyone. Whoever reads the database itself (a store opened from Python, a shell command
without ``--as``) is its holder, not a user, and is not checked: the check guards the app's
users, not the database's credentials.

**Who may create projects** is a server setting, :data:`CREATORS_ENV`
(:func:`may_create_projects`). **The first user** of a fresh database becomes the owner of
every project in it (the samples): :func:`claim_ownership`, to be called when a user signs in.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from rlscore.data.projects.project import Project
from rlscore.storage import LabelStore, UnknownProjectError
from rlscore.storage.sql.access import ROLES, member_id

#: the role each action needs (see the module's docstring)
ACTIONS = {
    "read": "annotator",
    "label": "annotator",
    "relabel": "annotator",
    "skip": "annotator",
    "undo_own": "annotator",
    "undo_others": "reviewer",
    "review": "reviewer",
    "agreement": "reviewer",
    "see_labels": "reviewer",
    "settings": "owner",
    "export": "owner",
    "delete": "owner",
    "restore": "owner",
    "members": "owner",
    "see_members": "owner",
}
#: what each action is called in a refusal ("… may not <verb> in project …")
_VERBS = {
    "read": "read anything",
    "label": "label points",
    "relabel": "relabel points",
    "skip": "skip points",
    "undo_own": "undo their own actions",
    "undo_others": "undo a teammate's action",
    "review": "decide reviews",
    "agreement": "see the team's agreement",
    "see_labels": "see who labeled what",
    "settings": "change the project's settings",
    "export": "export the labels",
    "delete": "delete the project",
    "restore": "restore the project",
    "members": "change the project's members",
    "see_members": "see the members' addresses",
}
#: how much a role may do: a role may do whatever a lesser one may
RANK = {role: len(ROLES) - i for i, role in enumerate(ROLES)}
#: environment variable: who may create projects — unset or empty: anyone (the local mode);
#: else a comma-separated list of users (``alice@example.org``), e-mail domains
#: (``@example.org``) or ``*`` (anyone signed in)
CREATORS_ENV = "RLSCORE_PROJECT_CREATORS"
#: environment variable: days a deleted project can be restored before it is purged
GRACE_ENV = "RLSCORE_DELETE_GRACE_DAYS"
#: the grace period when :data:`GRACE_ENV` is unset
DEFAULT_GRACE_DAYS = 14.0


class PermissionDeniedError(ValueError):
    """An action refused because the user lacks the role it needs (nothing was written).

    A ``ValueError``, so the app shows its message and a command prints it as its one
    ``error:`` line.

    Attributes
    ----------
    project : str
    user : str or None
    action : str
        A key of :data:`ACTIONS` (or ``"create"``).
    needed : str or None
        The role the action needs (None: a server setting decides, as for ``create``).
    role : str or None
        The user's role in the project (None: not a member).
    """

    def __init__(
        self,
        message: str,
        *,
        project: str = "",
        user: str | None = None,
        action: str = "",
        needed: str | None = None,
        role: str | None = None,
    ):
        super().__init__(message)
        self.project, self.user, self.action = project, user, action
        self.needed, self.role = needed, role


def role_of(store: LabelStore, project: str, user: str | None) -> str | None:
    """The role of ``user`` in ``project`` (None: not a member, or no user)."""
    if user is None or not str(user).strip():
        return None
    return store.members(project).get(member_id(str(user)))


def is_open(store: LabelStore, project: str) -> bool:
    """Whether ``project`` has no members: the open local mode, where everything is allowed."""
    return not store.members(project)


def allowed(members: dict[str, str], user: str | None, action: str) -> bool:
    """Whether ``user`` may do ``action`` in a project of ``members`` (member -> role)."""
    needed = _needed(action)
    if not members:
        return True
    if user is None or not str(user).strip():
        return False
    role = members.get(member_id(str(user)))
    return role is not None and RANK[role] >= RANK[needed]


def require(store: LabelStore, project: str, user: str | None, action: str) -> None:
    """Refuse ``action`` by ``user`` in ``project`` unless their role allows it.

    Parameters
    ----------
    store, project
        The label database and the project (a live one).
    user
        Who acts (a member's name or e-mail address; None or "": nobody signed in).
    action
        A key of :data:`ACTIONS`.

    Raises
    ------
    PermissionDeniedError
        The project has members and ``user`` is not one with the role the action needs; the
        message names that role.
    ValueError
        An unknown action.
    UnknownProjectError
        No project of that name.
    """
    _check(store.members(project), project, user, action)


def _needed(action: str) -> str:
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}: one of {sorted(ACTIONS)}")
    return ACTIONS[action]


def _check(
    members: dict[str, str],
    project: str,
    user: str | None,
    action: str,
    hidden: Callable[[], str] | None = None,
) -> None:
    """Refuse unless allowed; with ``hidden``, a user who is not a member (or nobody) is told
    ``hidden()``, what an unknown project's name gets (:func:`_hidden`): a read refused
    (:func:`require_read`) says nothing of the project, not even that it exists. A member
    lacking a role, or a non-member refused a write in the open local mode (which reads no
    one's membership first), is told the role needed."""
    if allowed(members, user, action):
        return
    needed = _needed(action)
    name = None if user is None or not str(user).strip() else member_id(str(user))
    role = None if name is None else members.get(name)
    verb = _VERBS[action]
    if role is None and hidden is not None:
        # nobody signed in is a non-member too: told of a private project what an unknown
        # name gets (an empty name confirmed that it exists)
        message = hidden()
    elif name is None:
        message = (
            f"nobody signed in may {verb} in project {project!r}: that needs the {needed} "
            "role; sign in as a member"
        )
    elif role is None:
        message = (
            f"{name!r} may not {verb} in project {project!r}: that needs the {needed} role, "
            f"and {name!r} is not a member (an owner can add them)"
        )
    else:
        message = (
            f"{name!r} may not {verb} in project {project!r}: that needs the {needed} role, "
            f"and {name!r} is {_article(role)} {role}"
        )
    raise PermissionDeniedError(
        message, project=project, user=name, action=action, needed=needed, role=role
    )


def _article(role: str) -> str:
    return "an" if role[0] in "aeiou" else "a"


def require_undo(store: LabelStore, project: str, user: str | None, whose: str) -> None:
    """Refuse ``user``'s undo of an action by ``whose`` unless their role allows it: their
    own (``undo_own``, an annotator) or a teammate's (``undo_others``, a reviewer)."""
    require(store, project, user, "undo_own" if same_user(user, whose) else "undo_others")


def same_user(a: str | None, b: str | None) -> bool:
    """Whether two names are the same user (as :func:`~rlscore.storage.sql.access.member_id`)."""
    a, b = (str(x or "").strip() for x in (a, b))
    return bool(a) and member_id(a) == member_id(b or "-")


# -- reading ------------------------------------------------------------------------------------
def can_read(store: LabelStore, project: str, user: str | None) -> bool:
    """Whether ``user`` may read ``project``: list it, open it, search, tune or review it.
    Anyone may read a project without members; once it has members, only they may.

    Raises
    ------
    UnknownProjectError
        No project of that name.
    """
    return allowed(store.members(project), user, "read")


def require_read(store: LabelStore, project: str, user: str | None) -> None:
    """Refuse ``user`` any read of ``project`` unless they may (:func:`can_read`).

    Raises
    ------
    PermissionDeniedError
        The project has members and ``user`` is not one; nothing of it is read.
    UnknownProjectError
        No project of that name; the message lists only the projects ``user`` may read.
    """
    try:
        members = store.members(project)
    except UnknownProjectError:
        # the store's own message lists every project: a reader is told only theirs
        raise UnknownProjectError(_hidden(store, project, user)()) from None
    _check(members, project, user, "read", _hidden(store, project, user))


def _no_project_text(project: str, readable: list[str]) -> str:
    """A refusal that says as much about a project that exists as about one that does not
    (the pages' words: :func:`rlscore.ui.shell.sidebar.project_selector`)."""
    return (
        f"no project named {project!r} that you may read (none exists, or it has members and "
        f"you are not one of them); projects: {readable}"
    )


def _hidden(store: LabelStore, project: str, user: str | None) -> Callable[[], str]:
    """What a non-member is told of ``project``: :func:`_no_project_text`, built when needed
    (it reads every project's members for the list)."""
    return lambda: _no_project_text(project, readable_projects(store, user))


def readable_projects(store: LabelStore, user: str | None) -> list[str]:
    """The projects ``user`` may read (:func:`can_read`), in the store's order: those without
    members and those they are a member of. A project deleted meanwhile is left out."""
    names = []
    for name in store.list_projects():
        try:
            if can_read(store, name, user):
                names.append(name)
        except UnknownProjectError:  # deleted between the two reads
            continue
    return names


def members_as(store: LabelStore, project: str, user: str | None) -> dict[str, str]:
    """The members of ``project`` (member -> role) as ``user`` may read them: an owner's
    (anyone's while the project is open, when the answer is empty).

    Raises
    ------
    PermissionDeniedError
        ``user`` is not an owner of a project with members (their addresses stay unread).
    """
    members = store.members(project)
    _check(members, project, user, "see_members")
    return members


# -- members ------------------------------------------------------------------------------------
def add_member(
    store: LabelStore, project: str, member: str, role: str, user: str | None
) -> str | None:
    """Give ``member`` ``role`` in ``project`` (a new member or a changed role), as ``user``
    (an owner, or anyone while the project is open; its first member must be an owner).
    Recorded in the audit; returns the member's previous role (None: a new member)."""
    require(store, project, user, "members")
    return store.set_member(project, member, role, by=_who(user))


def remove_member(store: LabelStore, project: str, member: str, user: str | None) -> str:
    """Remove ``member`` from ``project`` as ``user`` (an owner); recorded in the audit;
    returns the role they held. The last owner stays while other members remain; removing
    every member reopens the project."""
    require(store, project, user, "members")
    return store.remove_member(project, member, by=_who(user))


def claim_ownership(store: LabelStore, user: str) -> list[str]:
    """Make ``user`` the owner of every project of a fresh database: one where no project has
    any member yet (the samples, before anyone signed in). Returns the projects claimed, []
    when the database already has members (then nothing changes).

    Meant to be called each time a user signs in: the first one becomes the owner, every
    later call is a no-op. Atomic across servers (one write transaction under a lock of the
    whole database), so two users signing in at once do not both become owners.
    """
    return store.claim_unowned(user)


# -- creating and deleting projects ---------------------------------------------------------------
def may_create_projects(user: str | None) -> bool:
    """Whether ``user`` may create projects, by the server setting :data:`CREATORS_ENV`:
    unset or empty, anyone (the local mode, typed names); ``*``, anyone signed in; else the
    users and ``@domain`` entries listed (e-mail addresses compared in lower case)."""
    setting = os.environ.get(CREATORS_ENV, "").strip()
    if not setting:
        return True
    if user is None or not str(user).strip():
        return False
    name = member_id(str(user))
    for entry in (e.strip() for e in setting.split(",")):
        if not entry:
            continue
        if entry == "*" or member_id(entry) == name:
            return True
        if entry.startswith("@") and name.endswith(entry.casefold()):
            return True
    return False


def create_project(store: LabelStore, project: Project, user: str | None) -> None:
    """Store ``project`` as ``user``, who becomes its owner (None: an open project, the local
    mode). Refused unless :func:`may_create_projects`."""
    if not may_create_projects(user):
        who = "nobody signed in" if user is None or not str(user).strip() else repr(user)
        raise PermissionDeniedError(
            f"{who} may not create projects on this server: the server setting "
            f"{CREATORS_ENV} does not list them (ask the server's administrator)",
            project=project.name,
            user=user,
            action="create",
        )
    store.create_project(project)
    if user is not None and str(user).strip():
        store.set_member(project.name, str(user), "owner", by=_who(user))


def grace_seconds() -> float:
    """How long a deleted project can be restored: :data:`GRACE_ENV` days (default
    :data:`DEFAULT_GRACE_DAYS`)."""
    text = os.environ.get(GRACE_ENV, "").strip()
    if not text:
        return DEFAULT_GRACE_DAYS * 86400.0
    try:
        days = float(text)
    except ValueError:
        days = -1.0
    if not days >= 0:  # also NaN
        raise ValueError(f"{GRACE_ENV} must be a number of days ≥ 0, got {text!r}")
    return days * 86400.0


def delete_project(store: LabelStore, project: str, user: str | None) -> int:
    """Delete ``project`` as ``user`` (an owner) recoverably: it can be restored with
    :func:`restore_project` for :func:`grace_seconds`, then it is purged (by the next
    deletion). Recorded in the audit; returns the deleted project's uid."""
    require(store, project, user, "delete")
    uid = store.trash_project(project, by=_who(user))
    purge_expired(store, by=_who(user))
    return uid


def restore_project(store: LabelStore, project: str, user: str | None) -> str:
    """Bring back the most recently deleted project named ``project`` as ``user`` (one of
    its owners, or anyone if it had no members). Recorded in the audit.

    Raises
    ------
    UnknownProjectError
        No deleted project of that name (never deleted, or purged after the grace period).
    PermissionDeniedError
        ``user`` was not an owner of it.
    ValueError
        A project of that name was created since.
    """
    trashed = [t for t in store.trashed_projects() if t["name"] == project]
    unknown = f"no deleted project named {project!r} to restore"
    if not trashed:
        raise UnknownProjectError(unknown)
    _check(trashed[0]["members"], project, user, "restore", lambda: unknown)
    return store.restore_project(trashed[0]["uid"], by=_who(user))


def purge_expired(store: LabelStore, *, by: str = "") -> list[str]:
    """Delete for good the projects deleted longer than :func:`grace_seconds` ago."""
    return store.purge_trash(time.time() - grace_seconds(), by=by)


def _who(user: str | None) -> str:
    """The actor recorded in the audit ("" when nobody is named: the local mode)."""
    return "" if user is None or not str(user).strip() else member_id(str(user))


__all__ = [
    "ACTIONS",
    "CREATORS_ENV",
    "DEFAULT_GRACE_DAYS",
    "GRACE_ENV",
    "RANK",
    "ROLES",
    "PermissionDeniedError",
    "add_member",
    "allowed",
    "can_read",
    "claim_ownership",
    "create_project",
    "delete_project",
    "grace_seconds",
    "is_open",
    "may_create_projects",
    "members_as",
    "purge_expired",
    "readable_projects",
    "remove_member",
    "require",
    "require_read",
    "require_undo",
    "same_user",
    "restore_project",
    "role_of",
]
