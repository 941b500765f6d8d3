"""The interface of a store of projects and labeling events.

Every label, review, skip and undo is an :class:`~rlscore.storage.interface.events.Event` appended
to a per-project log and committed before :meth:`LabelStore.append_event` returns; a labeling
session's state is a pure function of that log (see :mod:`rlscore.sessions`), so nothing labeled is
lost by a reload, a server restart or ``kill -9``. A database that cannot be reached raises
:class:`~rlscore.storage.sql.connection.DatabaseUnavailableError` and is reached again by the next
call; :meth:`LabelStore.find_event` tells whether an interrupted write was saved. The store knows
:class:`~rlscore.data.projects.project.Project`, not where projects come from (samples, uploads).

An annotator's name is written, and read back, as its key
(:func:`~rlscore.core.conventions.user_names.user_key`: an e-mail address in lower case), in
events and claims alike: one person under two spellings of an address is one annotator to
every reader of the log, in a database written before the rule too.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from rlscore.core.conventions.user_names import user_key
from rlscore.data.projects.project import Project
from rlscore.storage.interface.events import Event


class LabelStore(ABC):
    """Interface of a store of projects and labeling events."""

    @abstractmethod
    def list_projects(self) -> list[str]:
        """Names of the stored projects, sorted."""

    @abstractmethod
    def create_project(self, project: Project) -> None:
        """Store a new project; ``ValueError`` if the name is taken."""

    @abstractmethod
    def load_project(self, name: str) -> Project:
        """The stored project (with ``uid`` set); :class:`UnknownProjectError` if absent."""

    @abstractmethod
    def project_uid(self, name: str) -> int | None:
        """Identity of the stored project of that name (None if absent); cheap."""

    @abstractmethod
    def delete_project(self, name: str, *, by: str = "") -> None:
        """Delete a project and all its events now, for good (recorded in the audit with
        ``by``); :meth:`trash_project` is the recoverable deletion."""

    # -- trash, members and audit (schema version 5) ---------------------------------------
    @abstractmethod
    def trash_project(self, name: str, *, by: str = "") -> int:
        """Delete a project recoverably: it disappears from every list and lookup by name,
        its events, settings and members stay until :meth:`purge_trash`; returns its uid."""

    @abstractmethod
    def trashed_projects(self) -> list[dict]:
        """Trashed projects, newest first: ``uid``, ``name``, ``deleted``, ``deleted_by``,
        ``members``."""

    @abstractmethod
    def restore_project(self, uid: int, *, by: str = "") -> str:
        """Bring back a trashed project under its name (``ValueError`` if taken meanwhile);
        returns the name."""

    @abstractmethod
    def purge_trash(self, before: float, *, by: str = "") -> list[str]:
        """Delete for good the projects trashed before ``before`` (epoch seconds)."""

    @abstractmethod
    def members(self, name: str) -> dict[str, str]:
        """Member -> role of a project (empty: no members, the open local mode)."""

    @abstractmethod
    def set_member(self, name: str, member: str, role: str, *, by: str = "") -> str | None:
        """Add ``member`` with ``role`` or change their role; returns the previous role.
        ``ValueError`` for a first member who is not an owner or a last owner demoted."""

    @abstractmethod
    def remove_member(self, name: str, member: str, *, by: str = "") -> str:
        """Remove a member; returns their role. ``ValueError`` for a non-member, or the last
        owner while other members remain."""

    @abstractmethod
    def claim_unowned(self, user: str) -> list[str]:
        """Make ``user`` the owner of every project if no project has members yet."""

    @abstractmethod
    def record_audit(self, name: str, action: str, actor: str, details: dict) -> int:
        """Add a record to a project's audit; returns its id."""

    @abstractmethod
    def audit(self, name: str | None = None, *, uid: int | None = None) -> list:
        """A project's audit records, oldest first (by name, or by uid for a trashed or
        purged one)."""

    @abstractmethod
    def append_event(self, name: str, event: Event, *, unchanged_since: int | None = None) -> int:
        """Validate and commit one event; returns its id (committed before returning).

        With ``unchanged_since`` (a label, review or skip), the event is refused with
        :class:`~rlscore.storage.interface.events.StaleActionError` if an event on the same point
        was committed after that id; the check and the write are one transaction. An undo reverts
        ``event.target`` or, when None, the most recent label, review or skip of the project not yet
        undone.
        """

    @abstractmethod
    def events(self, name: str, after_id: int = 0) -> list[Event]:
        """The project's events with id > ``after_id``, in commit order."""

    def find_event(self, name: str, event: Event, *, after_id: int = 0) -> int | None:
        """Id of the stored event that ``event`` was written as (None: not in the log).

        How to learn whether a write whose commit was interrupted (a lost connection, see
        :class:`~rlscore.storage.sql.connection.DatabaseUnavailableError`) was saved: an event
        is known by its kind, point, annotator and ``timestamp``, which the writer sets to
        the moment it wrote (to the microsecond), so two events never share them.

        Parameters
        ----------
        name
            The project.
        event
            The event as it was written (its ``timestamp`` set).
        after_id
            Only events with a greater id are looked at (the event, if stored, is newer
            than every event the writer had seen).

        Returns
        -------
        int or None
        """
        if event.timestamp is None:
            raise ValueError("find_event needs the timestamp the event was written with")
        # the store writes (and reads) a name as its key
        key = (event.kind, event.point, user_key(event.annotator), float(event.timestamp))
        for stored in self.events(name, after_id):
            if (stored.kind, stored.point, stored.annotator, stored.timestamp) == key:
                return stored.id
        return None

    def ping(self) -> None:
        """Reach the database now (connecting again if the connection was lost);
        :class:`~rlscore.storage.sql.connection.DatabaseUnavailableError` if it cannot be."""
        self.list_projects()

    # -- claims: which annotator is being shown which point ---------------------------------
    @abstractmethod
    def claim(
        self,
        name: str,
        point: int,
        annotator: str,
        ttl: float,
        *,
        unchanged_since: int | None = None,
    ) -> bool:
        """Claim ``point`` for ``annotator`` for ``ttl`` seconds (renewing their claim).

        False, and nothing changes, when another annotator holds an unexpired claim on it.
        An annotator holds at most one claim per project: a new claim releases the old one.
        With ``unchanged_since`` (the newest event id the caller's view of the log holds),
        :class:`~rlscore.storage.interface.events.StaleActionError` when an event on the point was
        committed after it (a teammate labeled it meanwhile: their claim went with their
        label), checked in the same transaction as the claim.
        """

    @abstractmethod
    def claims(self, name: str) -> dict[int, tuple[str, float]]:
        """Unexpired claims of the project: point -> (annotator, expiry in epoch seconds)."""

    @abstractmethod
    def release_claims(self, name: str, annotator: str | None = None) -> None:
        """Drop every claim of ``annotator`` in the project (None: of everyone)."""

    # -- per-project settings --------------------------------------------------------------
    @abstractmethod
    def load_settings(self, name: str) -> dict | None:
        """The project's saved settings (a JSON object), None if never saved."""

    @abstractmethod
    def save_settings(
        self, name: str, settings: dict, *, by: str = "", before: dict | None = None
    ) -> None:
        """Replace the project's saved settings (JSON-serialisable values); a change is
        recorded in the audit with ``by``, against the saved settings over ``before`` (the
        settings in force where none are saved: the defaults)."""

    def project_summaries(self) -> list[dict]:
        """One dict per project, without loading its features: ``name``, ``n``, ``d``,
        ``classes``, ``has_truth``, ``meta``, ``created`` (epoch seconds), ``multi_label``."""
        out = []
        for name in self.list_projects():
            p = self.load_project(name)
            out.append(
                {
                    "name": name,
                    "n": p.n,
                    "d": int(p.X.shape[1]),
                    "classes": p.classes,
                    "has_truth": p.truth is not None,
                    "meta": p.meta,
                    "created": None,
                    "multi_label": p.multi_label,
                }
            )
        return out

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources."""
