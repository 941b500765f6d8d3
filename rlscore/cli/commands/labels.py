"""``python -m rlscore labels``: print a project's labels from the label database.

Without ``--project`` the projects are listed with their number of labels. The labels are
folded from the event log (undone labels are left out, relabels show the latest label); no
query engine is built, so this is fast on any pool. Every record carries the accuracy
estimate at export time — the Label page's headline: the exact leave-one-out accuracy of the
random checks among the labels with its exact 95 % interval (Clopper–Pearson)
(:func:`rlscore.sessions.stopping.accuracy_estimate.export_estimate`; one RLS fit on the
labels), fitted with the project's current settings as the page's is, also after a settings
change (:func:`rlscore.sessions.team.audit.labels_export`) — unless ``--no-estimate``. A
multi-label project's labels are sets (a ``|``-joined ``label`` column and a 0/1
``label:<class>`` column per class in CSV and Parquet, lists in JSON,
:func:`~rlscore.sessions.views.export.export_labels`); their headline is the micro-F1 of the
predicted sets from the random checks (``micro_f1_*`` columns,
:func:`~rlscore.sessions.stopping.set_accuracy.export_set_estimate`), and the list marks such a
project ``multi-label``.

With ``--as USER`` the command acts as that user (:mod:`rlscore.cli.io.reader_option`): it lists
the projects they may read, and prints a project's labels only for its owner (an export, as on
the Data page, recorded in the audit).
"""

from __future__ import annotations

import argparse
import sys

from rlscore.cli.io.database_option import add_db_argument, open_existing_store
from rlscore.cli.io.errors import CommandError, run_command
from rlscore.cli.io.output_files import output_file
from rlscore.cli.io.reader_option import (
    add_reader_argument,
    check_read,
    listed_projects,
    reader,
)
from rlscore.sessions import LabelLog
from rlscore.sessions.team.audit import export_project, labels_export
from rlscore.sessions.views.export import EXPORT_FORMATS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlscore labels",
        description=(
            "Print the labels of a project (CSV, JSON, JSON Lines or Parquet: the final label "
            "and every annotator's), or list the projects."
        ),
    )
    add_db_argument(parser)
    add_reader_argument(parser)
    parser.add_argument("--project", default=None, help="project name; omit to list projects")
    parser.add_argument("--format", choices=EXPORT_FORMATS, default="csv", dest="fmt")
    parser.add_argument(
        "--output", default=None, help="write to this file instead of standard output"
    )
    parser.add_argument(
        "--no-features",
        action="store_true",
        help="leave out the feature values (point id and index only)",
    )
    parser.add_argument(
        "--no-estimate",
        action="store_true",
        help="leave out the accuracy estimate at export time (the accuracy_* columns)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 2 any failure: one ``error:`` line)."""
    return run_command(_run, sys.argv[1:] if argv is None else list(argv))


def _run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    output = None if args.output is None else output_file(args.output, "--output")
    if args.fmt == "parquet" and output is None and sys.stdout.isatty():
        raise CommandError(
            "Parquet is a binary format, not for a terminal: give --output FILE, or redirect "
            "the output to a file"
        )
    user = reader(args)
    with open_existing_store(args.db) as store:
        if args.project is None:
            names = listed_projects(store, user)  # with --as, only the projects theirs to read
            if not names:
                print(f"no projects in {store.location}")
            for name in names:
                n_labels = len(LabelLog(store.events(name)).labels)
                project = store.load_project(name)
                kind = "\tmulti-label" if project.multi_label else ""
                print(f"{name}\t{n_labels} labeled of {project.n}{kind}")
            return 0
        # with --as, an unknown name is said without the projects the user may not read
        check_read(store, args.project, user)
        if user is not None:  # an export, as the app's: an owner's, recorded in the audit
            data = export_project(
                store,
                args.project,
                user,
                args.fmt,
                include_features=not args.no_features,
                estimate=not args.no_estimate,
            ).labels
        else:
            data = labels_export(
                store,
                args.project,
                args.fmt,
                include_features=not args.no_features,
                estimate=not args.no_estimate,
            )
    if isinstance(data, str):
        data = (data if data.endswith("\n") else data + "\n").encode("utf-8")
    if output is not None:
        output.write_bytes(data)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
