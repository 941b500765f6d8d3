"""``python -m rlscore negatives``: reliable negatives for a project labeled with positives only.

Graph-OCL (Sheng §3.5, :mod:`rlscore.sessions.actions.cold_start`) on the project's final labels:
the proposed points are printed (rank, point, id), or as JSON with ``--json``. Nothing is
written: an annotator confirms each proposed point on the Label page, where it is shown.
"""

from __future__ import annotations

import argparse
import json
import sys

from rlscore.cli.io.database_option import add_db_argument, open_existing_store
from rlscore.cli.io.errors import run_command
from rlscore.cli.io.reader_option import add_reader_argument, check_read, reader
from rlscore.core.conventions.json_values import jsonable
from rlscore.sessions.actions.cold_start import DEFAULT_NEIGHBORS, project_proposal, proposal_table


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlscore negatives",
        description="Propose reliable negatives (Graph-OCL) for a two-class project whose "
        "labels are all of one class.",
    )
    add_db_argument(parser)
    add_reader_argument(parser)
    parser.add_argument("--project", required=True, help="project name")
    parser.add_argument(
        "--neighbors", type=int, default=DEFAULT_NEIGHBORS, help="k of the kNN graph"
    )
    parser.add_argument("--seed", type=int, default=0, help="draws the spies")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 2 any failure — an unknown project or
    database, a project not in a positives-only start, no negative proposed — with one
    ``error:`` line)."""
    return run_command(_run, sys.argv[1:] if argv is None else list(argv))


def _run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    with open_existing_store(args.db) as store:
        check_read(store, args.project, reader(args))
        project, proposal = project_proposal(
            store, args.project, n_neighbors=args.neighbors, seed=args.seed
        )
    rows = proposal_table(project, proposal)
    if args.json:
        out = {
            "positive": proposal.positive,
            "negative": proposal.negative,
            "spies": list(proposal.spies),
            "n_below_spies": proposal.n_below_spies,
            "proposed": rows,
        }
        print(json.dumps(jsonable(out), indent=2))
        return 0
    print(f"positive class {proposal.positive!r}; proposed as {proposal.negative!r}:")
    print(proposal.describe())
    print(f"{'rank':>4}  {'point':>7}  id")
    for r in rows:
        print(
            f"{r['rank']:>4}  {r['point']:>7}  {r['id']}"
            + (f"  {r['item']}" if "item" in r else "")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
