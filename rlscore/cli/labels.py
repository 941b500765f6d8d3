"""``python -m rlscore labels``: print a project's labels from the label database.

Without ``--project`` the projects are listed with their number of labels. The labels are
folded from the event log (undone labels are left out, relabels show the latest label); no
query engine is built, so this is fast on any pool.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rlscore.cli.database import add_db_argument, database_to_read
from rlscore.sessions import LabelLog, export_labels
from rlscore.sessions.export import EXPORT_FORMATS
from rlscore.storage import UnknownProjectError, open_store


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlscore labels",
        description=(
            "Print the labels of a project (CSV, JSON, JSON Lines or Parquet: the final label "
            "and every annotator's), or list the projects."
        ),
    )
    add_db_argument(parser)
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
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 1 unknown project or database)."""
    args = build_parser().parse_args(argv)
    path, error = database_to_read(args.db)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    with open_store(path) as store:
        if args.project is None:
            names = store.list_projects()
            if not names:
                print(f"no projects in {args.db or path}")
            for name in names:
                n_labels = len(LabelLog(store.events(name)).labels)
                n_points = store.load_project(name).n
                print(f"{name}\t{n_labels} labeled of {n_points}")
            return 0
        try:
            project = store.load_project(args.project)
            events = store.events(args.project)
        except UnknownProjectError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    data = export_labels(project, events, args.fmt, include_features=not args.no_features)
    if isinstance(data, str):
        data = (data if data.endswith("\n") else data + "\n").encode("utf-8")
    if args.output is not None:
        Path(args.output).expanduser().write_bytes(data)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
