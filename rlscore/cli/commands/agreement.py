"""``python -m rlscore agreement``: how well a project's annotators agree.

Fleiss' κ and Krippendorff's α over the points labeled by two or more annotators, Cohen's κ
of every pair, each annotator's labels, median seconds per label and agreement with the
final label (ties no reviewer decided left out: a tie's final label is only the latest of the
tied labels), and the disagreements no reviewer has decided yet
(:mod:`rlscore.sessions.team.agreement_report`). A multi-label project's report has the set
measures instead: Krippendorff's α with the MASI distance, the share of points given the same
set and Cohen's κ per class for each pair. Plain-text tables, or JSON with ``--json``.

No role is checked: whoever can run this on the database's machine (or holds its PostgreSQL
credentials) can read every label anyway, so shell access is an administrator's, as for
``members``. The app's Review page shows the agreement to reviewers and owners only.
"""

from __future__ import annotations

import argparse
import json
import sys

from rlscore.cli.io.database_option import add_db_argument, open_existing_store
from rlscore.cli.io.errors import CommandError, run_command
from rlscore.cli.io.reader_option import add_reader_argument, check_read, reader
from rlscore.sessions.state.label_log import FINAL_RULES
from rlscore.sessions.team.agreement_report import agreement_as, project_agreement


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlscore agreement",
        description="Print the inter-annotator agreement of a project.",
    )
    add_db_argument(parser)
    add_reader_argument(parser)
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
    """Run the command; returns the exit status (0 ok, 2 any failure — an unknown project or
    database, a project without labels — with one ``error:`` line)."""
    return run_command(_run, sys.argv[1:] if argv is None else list(argv))


def _run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    with open_existing_store(args.db) as store:
        user = reader(args)
        check_read(store, args.project, user)
        if user is None:  # the database's administrator
            report = project_agreement(store, args.project, rule=args.rule)
        else:  # as the app: a reviewer's or an owner's
            report = agreement_as(store, args.project, user, rule=args.rule)
    if not report.ratings:
        raise CommandError(f"project {args.project!r} has no labels yet: nothing to compare")
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
