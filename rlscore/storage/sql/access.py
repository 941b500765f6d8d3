"""Who may do what, and who did: the members, audit and trash of a SQL label store.

A project's **members** (``members`` table, schema version 5) each hold one of :data:`ROLES`;
what a role allows is decided one floor up (:mod:`rlscore.sessions.team.permissions`). The store
keeps two rules itself, inside the write transaction that changes the members, so that no
interleaving of servers can break them: the first member of a project is its owner, and the
last owner cannot be removed or demoted. A project with no members is in the open local mode.

The **audit** table records settings changes, membership changes, exports, deletions and
restores, with who and when. It is not the labeling event log (``events``): a session's state
is a pure function of that log, and every reader of it would otherwise have to step over
these records. An audit row keeps the project's uid and name without a foreign key, so the
record of a deletion outlives the project.

**Trash.** :meth:`AccessTables.trash` marks a project deleted (``projects.deleted``) instead
of deleting its row: its events, claims, settings and members stay until
:meth:`AccessTables.purge` removes trashed projects older than a grace period, and
:meth:`AccessTables.restore` brings one back. A trashed project's row is renamed (a leading
space, which no project name has: :class:`~rlscore.data.projects.project.Project` strips names), so
its name is free for a new project meanwhile.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from rlscore.core.conventions.json_values import jsonable
from rlscore.core.conventions.user_names import check_no_control, user_key
from rlscore.storage.interface.events import UnknownProjectError
from rlscore.storage.sql.connection import SQLConnection
from rlscore.storage.sql.project_table import ProjectTable

#: the roles of a project's members, most powerful first
ROLES = ("owner", "reviewer", "annotator")
#: what the audit records (``member``: a membership added, changed or removed)
AUDIT_ACTIONS = ("settings", "member", "export", "delete", "restore", "purge")


def member_id(user: str) -> str:
    """The one spelling of a user under which members are stored and looked up: their key
    (:func:`~rlscore.core.conventions.user_names.user_key`: a name as typed, whitespace
    collapsed and control characters removed, an e-mail address in lower case), the same
    key their events are written under.

    Raises
    ------
    ValueError
        An empty name.
    """
    name = user_key(user) if isinstance(user, str) else ""
    if not name:
        raise ValueError(f"a member is a non-empty user name or e-mail address, got {user!r}")
    return name


def acting_user(by: str | None) -> str:
    """``by``, who made a change (written with the audit), as the store keeps it: "" for
    nobody; ``ValueError`` naming the field for a name holding a control character (which
    PostgreSQL cannot store when it is NUL; the entry points clean names before)."""
    return check_no_control(str(by or ""), "the acting user's name")


def check_role(role: str) -> str:
    """``role`` if it is one of :data:`ROLES`; ``ValueError`` naming them otherwise."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {list(ROLES)}, got {role!r}")
    return role


@dataclass(frozen=True)
class AuditRecord:
    """One entry of a project's audit.

    Attributes
    ----------
    id : int
        Increases in commit order.
    project_uid : int
    project : str
        The project's name when it happened.
    action : str
        One of :data:`AUDIT_ACTIONS`.
    actor : str
        Who did it ("" when the caller did not say: the open local mode).
    timestamp : float
        Seconds since the epoch (UTC).
    details : dict
        What changed (settings: ``{key: [old, new]}``; member: ``member``, ``role``,
        ``previous``; export: ``format``; delete: ``recoverable``, false for a deletion
        without the trash).
    """

    id: int
    project_uid: int
    project: str
    action: str
    actor: str
    timestamp: float
    details: dict = field(default_factory=dict)


class AccessTables:
    """The ``members`` and ``audit`` tables and the projects' trash, on a connection.

    Parameters
    ----------
    db
        The connection to the label database.
    projects
        Its projects table (names, uids, the row lock of a project's writers).
    """

    def __init__(self, db: SQLConnection, projects: ProjectTable) -> None:
        self._db = db
        self._projects = projects

    # -- audit --------------------------------------------------------------------------------
    def record(self, uid: int, name: str, action: str, actor: str, details: dict) -> int:
        """Insert an audit row; the caller holds a write transaction."""
        if action not in AUDIT_ACTIONS:
            raise ValueError(f"audit action must be one of {AUDIT_ACTIONS}, got {action!r}")
        return self._db.insert(
            "INSERT INTO audit (project_uid, project, action, actor, timestamp, details) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (uid, name, action, acting_user(actor), time.time(), json.dumps(jsonable(details))),
        )

    def audit(self, uid: int) -> list[AuditRecord]:
        """The audit of the project of uid ``uid``, oldest first."""
        rows = self._db.fetchall(
            "SELECT id, project_uid, project, action, actor, timestamp, details FROM audit "
            "WHERE project_uid = ? ORDER BY id",
            (int(uid),),
        )
        return [
            AuditRecord(int(i), int(u), p, a, who, float(t), json.loads(d))
            for i, u, p, a, who, t, d in rows
        ]

    # -- members ------------------------------------------------------------------------------
    def members(self, uid: int) -> dict[str, str]:
        """Member -> role of the project of uid ``uid`` (empty: the open local mode)."""
        rows = self._db.fetchall(
            "SELECT member, role FROM members WHERE project_uid = ? ORDER BY member", (int(uid),)
        )
        return dict(rows)

    def set_member(self, name: str, member: str, role: str, by: str) -> str | None:
        """Give ``member`` ``role`` in project ``name`` (added, or their role changed) and
        record it; returns their previous role (None: new member).

        Raises
        ------
        ValueError
            An unknown role; a first member who is not an owner; the last owner demoted.
        UnknownProjectError
            No live project of that name.
        """
        member, role = member_id(member), check_role(role)
        with self._db.write():
            uid = self._projects.uid(name, lock=True)
            current = self._members_now(uid)
            previous = current.get(member)
            if not current and role != "owner":
                raise ValueError(
                    f"project {name!r} has no members yet: its first member must be an owner "
                    f"(add {member!r} with role owner, or add an owner first)"
                )
            if previous == "owner" and role != "owner" and _owners(current) == [member]:
                raise ValueError(
                    f"{member!r} is the last owner of project {name!r}: add another owner "
                    "before changing their role"
                )
            if previous == role:
                return previous
            self._db.run(
                "INSERT INTO members (project_uid, member, role, added, added_by) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (project_uid, member) DO UPDATE SET "
                "role = excluded.role, added = excluded.added, added_by = excluded.added_by",
                (uid, member, role, time.time(), acting_user(by)),
            )
            details = {"member": member, "role": role, "previous": previous}
            self.record(uid, name, "member", by, details)
            return previous

    def remove_member(self, name: str, member: str, by: str) -> str:
        """Remove ``member`` from project ``name`` and record it; returns their role.

        Raises
        ------
        ValueError
            Not a member; the last owner while other members remain (remove them first, or
            add another owner).
        """
        member = member_id(member)
        with self._db.write():
            uid = self._projects.uid(name, lock=True)
            current = self._members_now(uid)
            if member not in current:
                raise ValueError(
                    f"{member!r} is not a member of project {name!r}; members: {sorted(current)}"
                )
            role = current[member]
            if role == "owner" and _owners(current) == [member] and len(current) > 1:
                raise ValueError(
                    f"{member!r} is the last owner of project {name!r}: add another owner "
                    "first (removing every member returns the project to the open mode)"
                )
            self._db.run("DELETE FROM members WHERE project_uid = ? AND member = ?", (uid, member))
            details = {"member": member, "role": None, "previous": role}
            self.record(uid, name, "member", by, details)
            return role

    def claim_unowned(self, user: str) -> list[str]:
        """Make ``user`` the owner of every live project if no project of the database has a
        member yet (a fresh database: its first user); returns the projects (else [])."""
        user = member_id(user)
        with self._db.write():
            if self._db.dialect.lock_schema:  # PostgreSQL: one claimant at a time
                self._db.run(self._db.dialect.lock_schema)
            if self._db.run("SELECT 1 FROM members LIMIT 1").fetchone() is not None:
                return []
            rows = self._db.run("SELECT uid, name FROM projects WHERE deleted IS NULL").fetchall()
            for uid, name in sorted(rows, key=lambda r: r[1]):
                self._db.run(
                    "INSERT INTO members (project_uid, member, role, added, added_by) "
                    "VALUES (?, ?, 'owner', ?, ?)",
                    (uid, user, time.time(), user),
                )
                details = {"member": user, "role": "owner", "previous": None, "first_user": True}
                self.record(uid, name, "member", user, details)
            return sorted(name for _, name in rows)

    def _members_now(self, uid: int) -> dict[str, str]:
        """Members inside a write transaction (no retry: it would lose the transaction)."""
        rows = self._db.run(
            "SELECT member, role FROM members WHERE project_uid = ?", (uid,)
        ).fetchall()
        return dict(rows)

    # -- deletion -----------------------------------------------------------------------------
    def delete(self, name: str, by: str) -> int:
        """Delete project ``name`` for good now (no trash) and record it; returns its uid."""
        with self._db.write():
            uid = self._projects.uid(name, lock=True)
            self._projects.delete(uid)
            self.record(uid, name, "delete", by, {"recoverable": False})
            return uid

    def trash(self, name: str, by: str) -> int:
        """Mark project ``name`` deleted (recoverable until purged); returns its uid."""
        with self._db.write():
            uid = self._projects.uid(name, lock=True)
            self._db.run(
                "UPDATE projects SET name = ?, deleted = ?, deleted_name = ?, deleted_by = ? "
                "WHERE uid = ?",
                (_trashed_name(uid, name), time.time(), name, acting_user(by), uid),
            )
            self._db.run("DELETE FROM claims WHERE project_uid = ?", (uid,))
            self.record(uid, name, "delete", by, {"recoverable": True})
            return uid

    def trashed(self) -> list[dict]:
        """The trashed projects, newest deletion first: ``uid``, ``name``, ``deleted`` (epoch
        seconds), ``deleted_by``, ``members``."""
        rows = self._db.fetchall(
            "SELECT uid, deleted_name, deleted, deleted_by FROM projects "
            "WHERE deleted IS NOT NULL ORDER BY deleted DESC, uid DESC"
        )
        return [
            {
                "uid": int(uid),
                "name": name,
                "deleted": float(deleted),
                "deleted_by": by or "",
                "members": self.members(int(uid)),
            }
            for uid, name, deleted, by in rows
        ]

    def restore(self, uid: int, by: str) -> str:
        """Bring back the trashed project of uid ``uid`` under its name; returns the name.

        Raises
        ------
        ValueError
            A live project has taken its name meanwhile (rename or delete that one first).
        UnknownProjectError
            No trashed project of that uid (never deleted, or purged).
        """
        with self._db.write():
            row = self._db.run(
                "SELECT deleted_name FROM projects WHERE uid = ? AND deleted IS NOT NULL"
                + self._db.dialect.lock_row,
                (int(uid),),
            ).fetchone()
            if row is None:
                raise UnknownProjectError(f"no deleted project of uid {uid} to restore")
            name = row[0]
            taken = self._db.run(
                "SELECT 1 FROM projects WHERE name = ? AND deleted IS NULL", (name,)
            ).fetchone()
            if taken is not None:
                raise ValueError(
                    f"cannot restore project {name!r}: a project of that name was created "
                    "since; delete or rename it first"
                )
            self._db.run(
                "UPDATE projects SET name = ?, deleted = NULL, deleted_name = NULL, "
                "deleted_by = NULL WHERE uid = ?",
                (name, int(uid)),
            )
            self.record(int(uid), name, "restore", by, {})
            return name

    def purge(self, before: float, by: str) -> list[str]:
        """Delete for good the projects trashed before ``before`` (epoch seconds), with
        their events, claims, settings and members; returns their names. Their audit stays,
        with a ``purge`` record."""
        with self._db.write():
            rows = self._db.run(
                "SELECT uid, deleted_name FROM projects WHERE deleted IS NOT NULL AND deleted < ?",
                (float(before),),
            ).fetchall()
            for uid, name in rows:
                self._projects.delete(uid)
                self.record(int(uid), name, "purge", by, {})
            return sorted(name for _, name in rows)


def _owners(members: dict[str, str]) -> list[str]:
    return sorted(m for m, r in members.items() if r == "owner")


def _trashed_name(uid: int, name: str) -> str:
    """The name a trashed project's row takes: unique (its uid) and never a live project's
    (a leading space, which :class:`~rlscore.data.projects.project.Project` strips from names)."""
    return f" deleted {uid} {name}"


__all__ = ["AUDIT_ACTIONS", "ROLES", "AccessTables", "AuditRecord", "check_role", "member_id"]
