"""The ``--as USER`` option of the commands that read or change a project (``labels``,
``label-issues``, ``agreement``, ``members``, ``settings``, ``negatives``, ``create-project``):
act as that user, checked as the app checks them.

Without it a command acts as whoever holds the database (its file, or its URL with a password):
the database's administrator, not checked, as before. With ``--as`` (or :data:`READER_ENV`) the
command acts as that user: a project with members is listed, read and changed by its members
only, with the roles of :mod:`rlscore.sessions.team.permissions` — the way to give a shell to
people who should see only their projects (the check is only as good as the shell's control
of the option: whoever can read the database's credentials can read every project).
"""

from __future__ import annotations

import argparse
import os

from rlscore.cli.io.errors import CommandError
from rlscore.core.conventions.user_names import clean_name
from rlscore.sessions.team.permissions import readable_projects, require_read
from rlscore.storage import LabelStore

#: environment variable: the default of ``--as`` (unset or empty: the database's administrator)
READER_ENV = "RLSCORE_USER"


def add_reader_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--as USER`` (stored as ``reader``) to ``parser``."""
    parser.add_argument(
        "--as",
        dest="reader",
        metavar="USER",
        default=None,
        help=(
            f"act as this user (an e-mail address; default: ${READER_ENV}), checked as in the "
            "app: a project with members is read by its members only; without it, as the "
            "database's administrator (nothing checked)"
        ),
    )


def reader(args: argparse.Namespace) -> str | None:
    """Who the command acts as: ``--as``, else :data:`READER_ENV`, else None (the database's
    administrator), spelled as the app spells a typed name
    (:func:`~rlscore.core.conventions.user_names.clean_name`).

    Raises
    ------
    CommandError
        ``--as`` given, or :data:`READER_ENV` set, blank once cleaned (``--as ""`` too):
        it would otherwise act as the administrator.
    """
    if args.reader is not None:
        chosen, where = args.reader, "--as"
    else:
        chosen, where = os.environ.get(READER_ENV, ""), f"${READER_ENV}"
    user = clean_name(chosen)
    if user is None and (args.reader is not None or chosen != ""):
        # a restricted shell's user must not become the administrator by naming nobody
        raise CommandError(
            f"{where} names nobody ({chosen!r} is blank once control characters and spaces "
            f"are removed): give a user's name or e-mail address, or leave {where} out"
        )
    return user


def check_read(store: LabelStore, project: str, user: str | None) -> None:
    """Refuse a read of ``project`` by ``user`` (None: the administrator, never refused)
    unless they may (:func:`~rlscore.sessions.team.permissions.require_read`)."""
    if user is not None:
        require_read(store, project, user)


def listed_projects(store: LabelStore, user: str | None) -> list[str]:
    """The projects a command lists for ``user``: every one for the administrator (None),
    else those they may read."""
    return store.list_projects() if user is None else readable_projects(store, user)


__all__ = ["READER_ENV", "add_reader_argument", "check_read", "listed_projects", "reader"]
