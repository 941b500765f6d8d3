"""``python -m rlscore settings``: show or change a project's labeling settings.

The same settings the app's sidebar and Tune page save for a project (strategy, kernel,
σ, λ, automatic λ, class weights, budget), stored in the label database for every annotator
and server (:mod:`rlscore.sessions.settings`). Values are JSON (``--set sigma=1.7
--set lam_auto=true --set class_weight='"balanced"'``); a bare word is taken as a string.
"""

from __future__ import annotations

import argparse
import json
import sys

from rlscore.sessions.settings import SETTING_KEYS, project_settings, save_project_settings
from rlscore.storage import DB_ENV, UnknownProjectError, default_db_path, open_store


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlscore settings",
        description="Print a project's labeling settings as JSON, or change them with --set.",
    )
    parser.add_argument(
        "--db", default=None, help=f"label database (default: ${DB_ENV}, else {default_db_path()})"
    )
    parser.add_argument("--project", required=True, help="project name")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"change a setting ({', '.join(SETTING_KEYS)}); may be repeated",
    )
    return parser


def _parse(assignment: str) -> tuple[str, object]:
    key, sep, text = assignment.partition("=")
    if not sep:
        raise ValueError(f"--set takes KEY=VALUE, got {assignment!r}")
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = text
    return key.strip(), value


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 1 unknown project or invalid value)."""
    args = build_parser().parse_args(argv)
    with open_store(default_db_path() if args.db is None else args.db) as store:
        try:
            if args.set:
                changes = dict(_parse(a) for a in args.set)
                unknown = sorted(set(changes) - set(SETTING_KEYS))
                if unknown:
                    raise ValueError(f"unknown setting(s) {unknown}: choose from {SETTING_KEYS}")
                save_project_settings(store, args.project, changes)
            settings = project_settings(store, args.project)
        except (UnknownProjectError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    print(json.dumps(settings, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
