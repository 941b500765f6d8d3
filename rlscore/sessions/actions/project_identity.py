"""An action is for the project its point was shown from, not for one of the same name.

A project can be deleted while a page still shows one of its points, and created again under
the same name (an upload, a restore): the point's index then names another item. Every
project has a :attr:`~rlscore.data.projects.project.Project.uid` the store never gives twice;
the Label page sends the uid of the project it drew the point from with the action, and
:func:`check_same_project` refuses the action if that is not the project in the store now.
"""

from __future__ import annotations

from rlscore.data.projects.project import Project
from rlscore.storage import LabelStore, UnknownProjectError


def check_same_project(store: LabelStore, project: Project, uid: int | None) -> None:
    """Refuse an action meant for the project of uid ``uid`` if ``project`` (as a session
    holds it) or the store's project of that name is another one: deleted, or deleted and
    created again under the same name. ``uid`` None: nothing to check.

    Raises
    ------
    UnknownProjectError
        The project was deleted after the point was shown: nothing may be written.
    """
    if uid is None:
        return
    if int(uid) != project.uid or store.project_uid(project.name) != uid:
        raise UnknownProjectError(
            f"project {project.name!r} was deleted after this point was shown: nothing was saved"
        )
