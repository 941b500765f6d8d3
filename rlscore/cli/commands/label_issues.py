"""``python -m rlscore label-issues``: a project's labels that are probably wrong, as CSV.

Each labeled point is judged by the exact leave-one-out RLS with the project's current kernel,
σ, λ (or automatic λ) and class weights; on a point labeled by several annotators, by their
consensus with that model — the table of the Review page's "Probably wrong" queue, with the
project's final-label rule (:func:`rlscore.sessions.views.label_issues.team_label_issues`).
The rows come most suspicious first, ``score`` being the calibrated chance that the label is
wrong. Read-only: nothing is written to the label database. ``--as USER`` reads as that user,
checked as the app checks the Review page's queue: a reviewer's or an owner's once the project
has members (:mod:`rlscore.cli.io.reader_option`).
"""

from __future__ import annotations

import argparse
import sys

from rlscore.cli.io.database_option import add_db_argument, open_existing_store
from rlscore.cli.io.errors import CommandError, run_command
from rlscore.cli.io.output_files import output_file
from rlscore.cli.io.reader_option import add_reader_argument, check_read, reader
from rlscore.sessions.views.label_issues import label_issues_as, stored_label_issues


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlscore label-issues",
        description=(
            "Print a project's labels ranked by the chance that they are wrong (CSV: index, "
            "point_id, label, suggested, score, label_margin, annotator), judged by the "
            "exact leave-one-out model with the project's settings and, where several "
            "annotators labeled a point, by their consensus with it (as the Review page)."
        ),
    )
    add_db_argument(parser)
    add_reader_argument(parser)
    parser.add_argument("--project", required=True, help="project name")
    parser.add_argument(
        "--top", type=int, default=None, metavar="K", help="only the K most suspicious labels"
    )
    parser.add_argument(
        "--out",
        default=None,
        metavar="FILE.csv",
        help="write to this file instead of standard output",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 2 any failure: one ``error:`` line)."""
    return run_command(_run, sys.argv[1:] if argv is None else list(argv))


def _run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.top is not None and args.top < 1:
        raise CommandError(f"--top must be a whole number ≥ 1, got {args.top}")
    output = None if args.out is None else output_file(args.out, "--out")
    with open_existing_store(args.db) as store:
        # as the Review page's queue: its reviewers and owners once the project has members
        user = reader(args)
        check_read(store, args.project, user)
        try:
            if user is None:  # the database's administrator
                table = stored_label_issues(store, args.project).table
            else:
                table = label_issues_as(store, args.project, user).table
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    if args.top is not None:
        table = table.head(args.top)
    data = table.to_csv(index=False, float_format="%.10g")
    if output is not None:
        output.write_text(data, encoding="utf-8")
    else:
        sys.stdout.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
