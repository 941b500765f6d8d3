"""Which buttons a user may press: the role checks of :mod:`rlscore.sessions.team.permissions`
asked before drawing a button, so one the user may not use is drawn disabled with a help text
naming the role it needs.

This is only what the page shows: every action is checked again below the UI, when it runs
(a crafted callback is refused the same way, and the refusal shown by
:func:`rlscore.ui.shell.errors.flash_errors`).
"""

from __future__ import annotations

from rlscore.sessions.team.permissions import ACTIONS, allowed
from rlscore.storage import LabelStore


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


__all__ = ["can", "gate", "needs"]
