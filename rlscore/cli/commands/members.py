"""``python -m rlscore members``: list, add or remove a project's members and their roles.

Roles are per project and kept in the label database (:mod:`rlscore.sessions.team.permissions`):
``owner``, ``reviewer``, ``annotator``. Whoever can run this command on the database is its
administrator, so the command is not itself checked against a role; every change is recorded
in the project's audit as made by ``shell:<login name>``. With ``--as USER``
(:mod:`rlscore.cli.io.reader_option`) it acts as that user, checked as on the Admin page: the
members are listed, added and removed by the project's owners only. The first member of a
project must be an owner, and its last owner stays while other members remain.

Examples::

    python -m rlscore members --db labels.sqlite3 --project P --add alice@example.org --role owner
    python -m rlscore members --db "$URL" --project P --add bob@example.org --role reviewer
    python -m rlscore members --project P --remove bob@example.org
    python -m rlscore members --project P --list --json
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys

from rlscore.cli.io.database_option import add_db_argument, open_existing_store
from rlscore.cli.io.errors import CommandError, run_command
from rlscore.cli.io.reader_option import add_reader_argument, check_read, reader
from rlscore.sessions.team import permissions
from rlscore.storage.sql.access import ROLES, check_role, member_id


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlscore members",
        description=(
            "List a project's members (--list, the default), add one or change their role "
            "(--add USER --role ROLE), or remove one (--remove USER)."
        ),
    )
    add_db_argument(parser)
    add_reader_argument(parser)
    parser.add_argument("--project", required=True, help="project name")
    parser.add_argument("--add", metavar="USER", help="user (e-mail address) to add or change")
    parser.add_argument("--role", help=f"the role of --add: one of {', '.join(ROLES)}")
    parser.add_argument("--remove", metavar="USER", help="member to remove")
    parser.add_argument("--list", action="store_true", help="list the members (the default)")
    parser.add_argument("--json", action="store_true", help="list as JSON")
    return parser


def shell_actor() -> str:
    """Who the audit names for a change made from the shell: ``shell:<login name>``."""
    try:
        return f"shell:{getpass.getuser()}"
    except (OSError, KeyError):  # no login name (a container without a passwd entry)
        return "shell"


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 2 any failure — an unknown project,
    role or member, the last owner — with one ``error:`` line)."""
    return run_command(_run, sys.argv[1:] if argv is None else list(argv))


def _run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    chosen = [flag for flag, on in (("--add", args.add), ("--remove", args.remove),
                                    ("--list", args.list)) if on]  # fmt: skip
    if len(chosen) > 1:
        raise CommandError(f"choose one of --add, --remove and --list, not {' and '.join(chosen)}")
    if args.add is not None:
        if args.role is None:
            raise CommandError(f"--add needs --role (one of {', '.join(ROLES)})")
        check_role(args.role)
    elif args.role is not None:
        raise CommandError("--role goes with --add")
    if args.json and (args.add is not None or args.remove is not None):
        raise CommandError("--json goes with --list")
    user = reader(args)
    with open_existing_store(args.db) as store:
        check_read(store, args.project, user)
        if args.add is not None:
            previous = _add(store, args.project, args.add, args.role, user)
            done = "added" if previous is None else f"changed from {previous} to"
            # the spelling stored and compared (an address in lower case), not the typed one
            print(f"{member_id(args.add)}: {done} {args.role} in project {args.project!r}")
        elif args.remove is not None:
            role = _remove(store, args.project, args.remove, user)
            print(f"{member_id(args.remove)}: removed ({role}) from project {args.project!r}")
        else:
            # with --as, the addresses are an owner's to read (as on the Admin page)
            listed = (
                store.members(args.project)
                if user is None
                else permissions.members_as(store, args.project, user)
            )
            _print_members(args.project, listed, args.json)
    return 0


def _add(store, project: str, member: str, role: str, user: str | None) -> str | None:
    """Add ``member`` or change their role, as the administrator (None) or as ``user`` (an
    owner's: a refusal names the change of members, not the reading of them); returns their
    previous role."""
    if user is None:
        return store.set_member(project, member, role, by=shell_actor())
    return permissions.add_member(store, project, member, role, user)


def _remove(store, project: str, member: str, user: str | None) -> str:
    """Remove ``member``, as the administrator (None) or as ``user`` (an owner's); returns
    their role."""
    if user is None:
        return store.remove_member(project, member, by=shell_actor())
    return permissions.remove_member(store, project, member, user)


def _print_members(project: str, members: dict[str, str], as_json: bool) -> None:
    if as_json:
        listed = [{"member": m, "role": r} for m, r in sorted(members.items())]
        print(json.dumps({"project": project, "open": not members, "members": listed}, indent=2))
        return
    if not members:
        print(f"project {project!r} has no members: it is open (anyone may do anything)")
        return
    width = max(len(m) for m in members)
    order = {r: i for i, r in enumerate(ROLES)}
    for member, role in sorted(members.items(), key=lambda mr: (order[mr[1]], mr[0])):
        print(f"{member:<{width}}  {role}")


if __name__ == "__main__":
    sys.exit(main())
