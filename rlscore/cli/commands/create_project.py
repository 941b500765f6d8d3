"""``python -m rlscore create-project NAME TABLE``: a project from a CSV or Parquet table, as
the Data page makes one.

The table is read as an upload is (:func:`~rlscore.data.upload.table_reading.read_table`) and
built by :func:`~rlscore.data.projects.table_project.project_from_table`: numeric feature
columns (default: every column but the id and truth columns), text columns, an id column, a
truth column, and ``--multi-label`` for a project whose label is a set of classes (the truth
column's cells ``a|b``, an empty cell for none of them: docs/app.md, "Multi-label projects").
Every reason the table cannot become a project is one ``error:`` line naming it.

With ``--as USER`` (or ``$RLSCORE_USER``; :mod:`rlscore.cli.io.reader_option`) the project is
created as the Data page creates it for a signed-in user: refused unless the server setting
``RLSCORE_PROJECT_CREATORS`` lists them, and they become its owner. Without it, as the
database's administrator: an open project, nothing checked.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from rlscore.cli.io.database_option import add_db_argument, open_existing_store
from rlscore.cli.io.errors import CommandError, run_command
from rlscore.cli.io.reader_option import add_reader_argument, reader
from rlscore.core.conventions.counted_words import counted
from rlscore.data.projects.class_labels import parse_class_names
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.upload.table_reading import read_table
from rlscore.sessions.team import permissions


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlscore create-project",
        description="Create a project from a CSV or Parquet table in the label database.",
    )
    add_db_argument(parser)
    add_reader_argument(parser)
    parser.add_argument("name", help="project name")
    parser.add_argument("table", help="the CSV or Parquet file")
    parser.add_argument("--truth", default=None, help="the truth column (optional)")
    parser.add_argument(
        "--multi-label",
        action="store_true",
        help="a point's label is a set of classes; truth cells separate them by |",
    )
    parser.add_argument("--id-column", default=None, help="column of unique point ids")
    parser.add_argument(
        "--feature-column", action="append", default=None, help="a numeric feature (repeatable)"
    )
    parser.add_argument(
        "--text-column", action="append", default=None, help="a text column (repeatable)"
    )
    parser.add_argument(
        "--classes", default=None, help="class names, comma-separated (see docs/cli.md)"
    )
    parser.add_argument("--description", default="", help="shown on the Data page")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 2 any failure: one ``error:`` line)."""
    return run_command(_run, sys.argv[1:] if argv is None else list(argv))


def _run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    user = reader(args)
    path = Path(args.table)
    if not path.is_file():
        raise CommandError(f"{args.table!r} is not a file: give a CSV or Parquet table")
    df = read_table(path, path.name)
    features = args.feature_column
    if features is None and not args.text_column:  # a numeric table: every other column
        features = [str(c) for c in df.columns if c not in (args.truth, args.id_column)]
    with warnings.catch_warnings(record=True) as fixed:
        warnings.simplefilter("always")
        project = project_from_table(
            df, args.name, features, id_column=args.id_column, truth_column=args.truth,
            class_names=parse_class_names(args.classes or ""), source=path.name,
            description=args.description, text_columns=args.text_column,
            multi_label=args.multi_label,
        )  # fmt: skip
    with open_existing_store(args.db) as store:
        if user is None:
            store.create_project(project)
        else:
            permissions.create_project(store, project, user)
        where = store.location
    for w in fixed:
        print(f"note: {w.message}")
    kind = "multi-label, " if project.multi_label else ""
    owner = "" if user is None else f", owned by {user!r}"
    print(
        f"created project {project.name!r}: {counted(project.n, 'point')}, "
        f"{counted(len(project.feature_names), 'feature')}, {kind}classes {project.classes}, "
        f"in {where}{owner}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
