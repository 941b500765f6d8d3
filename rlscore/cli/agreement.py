"""``python -m rlscore agreement``: how well a project's annotators agree.

Fleiss' κ and Krippendorff's α over the points labeled by two or more annotators, Cohen's κ
of every pair, each annotator's labels, median seconds per label and agreement with the
final label, and the disagreements no reviewer has decided yet
(:mod:`rlscore.sessions.agreement`). Plain-text tables, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rlscore.sessions.agreement import project_agreement
from rlscore.sessions.log import FINAL_RULES
from rlscore.storage import DB_ENV, UnknownProjectError, default_db_path, open_store
from rlscore.storage.postgres import is_postgres_url


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlscore agreement",
        description="Print the inter-annotator agreement of a project.",
    )
    parser.add_argument(
        "--db",
        default=None,
        help=f"label database, a path or URL (default: ${DB_ENV}, else {default_db_path()})",
    )
    parser.add_argument("--project", required=True, help="project name")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument(
        "--rule",
        choices=FINAL_RULES,
        default=None,
        help="how a point's final label follows from its annotators' labels when no review "
        "decided it (default: the project's: majority with overlap, else latest)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 1 unknown project or database, 2 a
    project without labels)."""
    args = build_parser().parse_args(argv)
    # a URL goes to the store as given; a path must exist (opening would create it)
    if (
        args.db is not None
        and not is_postgres_url(args.db)
        and not Path(args.db).expanduser().is_file()
    ):
        print(f"error: no label database at {args.db}", file=sys.stderr)
        return 1
    with open_store(default_db_path() if args.db is None else args.db) as store:
        try:
            report = project_agreement(store, args.project, rule=args.rule)
        except UnknownProjectError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    if not report.ratings:
        print(f"project {args.project!r} has no labels yet: nothing to compare", file=sys.stderr)
        return 2
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
