"""Which projects a user may see and which buttons they may press: the checks of
:mod:`rlscore.sessions.team.permissions` asked before drawing, so a project the user may not
read is not listed (:func:`visible_projects`), and a button they may not use is drawn disabled
with a help text naming the role it needs.

**Reads with sign-in** follow :func:`~rlscore.sessions.team.permissions.can_read`: a project
with members is listed, opened and read by its members only, its members' addresses and audit
by its owners only. **In local mode** (no sign-in configured) nobody is authenticated, so reads
stay open as before (the typed name only signs the labels, and writes are checked against it).

This is only what the page shows: every action is checked again below the UI, when it runs
(a crafted callback is refused the same way, and the refusal shown by
:func:`rlscore.ui.shell.errors.flash_errors`).
"""

from __future__ import annotations

from rlscore.sessions.team.permissions import ACTIONS, allowed, readable_projects
from rlscore.storage import LabelStore
from rlscore.ui.shell.auth import current_user, sign_in_configured


def can(store: LabelStore, project: str, user: str | None, action: str) -> bool:
    """Whether ``user`` may do ``action`` (a key of
    :data:`~rlscore.sessions.team.permissions.ACTIONS`) in ``project`` now."""
    return allowed(store.members(project), user, action)


def needs(action: str) -> str:
    """The help text of a button for ``action`` that the user may not use."""
    return (
        f"Needs the {ACTIONS[action]} role in this project (an owner can give it on the "
        "Admin page)."
    )


def gate(store: LabelStore, project: str, user: str | None, action: str, help: str = "") -> dict:
    """Keyword arguments for a button doing ``action``: ``disabled`` and ``help`` (``help``
    when allowed, :func:`needs` when not)."""
    ok = can(store, project, user, action)
    return {"disabled": not ok, "help": (help or None) if ok else needs(action)}


def reads_checked() -> bool:
    """Whether reads are checked: with sign-in (the reader is the signed-in user); in local
    mode nobody is authenticated and every project is readable, as before."""
    return sign_in_configured()


def visible_projects(store: LabelStore) -> list[str]:
    """The projects this tab's user may list and open: every project in local mode, else
    :func:`~rlscore.sessions.team.permissions.readable_projects` of the signed-in user."""
    if not reads_checked():
        return store.list_projects()
    return readable_projects(store, current_user())


def may_see_members(store: LabelStore, project: str, user: str | None) -> bool:
    """Whether the page may show ``project``'s members' addresses and audit to ``user``: an
    owner, or anyone while it has no members (and anyone in local mode)."""
    return not reads_checked() or can(store, project, user, "see_members")


__all__ = ["can", "gate", "may_see_members", "needs", "reads_checked", "visible_projects"]
