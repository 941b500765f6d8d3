"""``python -m rlscore settings``: show or change a project's labeling settings.

The same settings the app's sidebar and Tune page save for a project (strategy, kernel,
σ, λ, automatic λ, class weights, budget), stored in the label database for every annotator
and server (:mod:`rlscore.sessions.state.settings`). Values are JSON (``--set sigma=1.7
--set lam_auto=true --set class_weight='{"1": 5}'``); ``none``, ``true`` and ``false`` in any
case are null, true and false, and any other bare word is taken as a string
(``class_weight=balanced``). A class-weight mapping's keys are the project's classes as text
(``"1"`` names the class 1); a key naming no class of the project is refused.

Shell access to the database is an administrator's, as for ``members``: no role is checked,
and a change is recorded in the project's audit as made by ``shell:<login name>``. With
``--as USER`` (:mod:`rlscore.cli.io.reader_option`) the command acts as that user, checked as in
the app: the settings are read by the project's members, changed by its owners.
"""

from __future__ import annotations

import argparse
import json
import sys

from rlscore.cli.commands.members import shell_actor
from rlscore.cli.io.database_option import add_db_argument, open_existing_store
from rlscore.cli.io.errors import CommandError, run_command
from rlscore.cli.io.reader_option import add_reader_argument, check_read, reader
from rlscore.sessions.state.settings import SETTING_KEYS, project_settings, save_project_settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlscore settings",
        description="Print a project's labeling settings as JSON, or change them with --set.",
    )
    add_db_argument(parser)
    add_reader_argument(parser)
    parser.add_argument("--project", required=True, help="project name")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"change a setting ({', '.join(SETTING_KEYS)}); may be repeated",
    )
    return parser


#: bare words read as the JSON values they name (``class_weight=none``, ``lam_auto=True``)
_WORDS = {"none": None, "null": None, "true": True, "false": False}


def _parse(assignment: str) -> tuple[str, object]:
    key, sep, text = assignment.partition("=")
    if not sep:
        raise CommandError(f"--set takes KEY=VALUE, got {assignment!r}")
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        # the words the settings' messages use ("none", "true or false"), in any case
        value = _WORDS.get(text.strip().lower(), text)
    return key.strip(), value


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 2 any failure — an unknown project or
    database, an invalid value — with one ``error:`` line)."""
    return run_command(_run, sys.argv[1:] if argv is None else list(argv))


def _run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    changes = dict(_parse(a) for a in args.set)
    unknown = sorted(set(changes) - set(SETTING_KEYS))
    if unknown:
        raise CommandError(f"unknown setting(s) {unknown}: choose from {list(SETTING_KEYS)}")
    # the database must exist: a mistyped --db does not become a new, empty one
    user = reader(args)
    with open_existing_store(args.db) as store:
        check_read(store, args.project, user)
        if changes and user is not None:  # as the app: an owner's, audited as them
            save_project_settings(store, args.project, changes, user=user)
        elif changes:
            # shell access is an administrator's (as for members): no role is checked, and
            # the change is recorded in the audit as shell:<login>
            save_project_settings(store, args.project, changes, user=shell_actor(), checked=False)
        settings = project_settings(store, args.project)
    print(json.dumps(settings, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
