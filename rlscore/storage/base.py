"""The interface of a store of projects and labeling events.

Every label, review, skip and undo is an :class:`~rlscore.storage.events.Event` appended to a
per-project log and committed before :meth:`LabelStore.append_event` returns; a labeling
session's state is a pure function of that log (see :mod:`rlscore.sessions`), so nothing
labeled is lost by a reload, a server restart or ``kill -9``. The store knows
:class:`~rlscore.data.projects.Project`, not where projects come from (samples, uploads).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from rlscore.data.projects import Project
from rlscore.storage.events import Event


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
    def delete_project(self, name: str) -> None:
        """Delete a project and all its events."""

    @abstractmethod
    def append_event(self, name: str, event: Event, *, unchanged_since: int | None = None) -> int:
        """Validate and commit one event; returns its id (committed before returning).

        With ``unchanged_since`` (a label, review or skip), the event is refused with
        :class:`~rlscore.storage.events.StaleActionError` if an event on the same point was
        committed after that id; the check and the write are one transaction. An undo
        reverts ``event.target`` or, when None, the most recent label, review or skip of the
        project not yet undone.
        """

    @abstractmethod
    def events(self, name: str, after_id: int = 0) -> list[Event]:
        """The project's events with id > ``after_id``, in commit order."""

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
        :class:`~rlscore.storage.events.StaleActionError` when an event on the point was
        committed after it (a teammate labeled it meanwhile: their claim went with their
        label), checked in the same transaction as the claim.
        """

    @abstractmethod
    def claims(self, name: str) -> dict[int, tuple[str, float]]:
        """Unexpired claims of the project: point -> (annotator, expiry in epoch seconds)."""

    @abstractmethod
    def release_claims(self, name: str, annotator: str) -> None:
        """Drop every claim of ``annotator`` in the project."""

    # -- per-project settings --------------------------------------------------------------
    @abstractmethod
    def load_settings(self, name: str) -> dict | None:
        """The project's saved settings (a JSON object), None if never saved."""

    @abstractmethod
    def save_settings(self, name: str, settings: dict) -> None:
        """Replace the project's saved settings (JSON-serialisable values)."""

    def project_summaries(self) -> list[dict]:
        """One dict per project, without loading its features: ``name``, ``n``, ``d``,
        ``classes``, ``has_truth``, ``meta``, ``created`` (epoch seconds)."""
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
                }
            )
        return out

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources."""
