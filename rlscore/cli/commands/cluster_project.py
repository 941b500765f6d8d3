"""``python -m rlscore create-cluster-project NAME PARQUET``: a project whose pool lives on a
Dask cluster.

Stores the project (where its Parquet files are, their feature columns, the row count from
the files' footers; no row is read) and its settings (:mod:`rlscore.sessions.cluster.projects`).
An app server started with ``RLSCORE_DASK_SCHEDULER=tcp://host:port`` loads the pool into the
workers when the project is first opened (docs/large-pools.md, "Pools beyond one machine").
"""

from __future__ import annotations

import argparse
import sys

from rlscore.cli.io.database_option import add_db_argument, open_existing_store
from rlscore.cli.io.errors import CommandError, run_command
from rlscore.core.conventions.counted_words import counted
from rlscore.query.cluster.block_query import BLOCK_STRATEGIES
from rlscore.sessions.cluster.projects import CLUSTER_DEFAULTS, create_cluster_project


def _names(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give comma-separated names")
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlscore create-cluster-project",
        description=(
            "Create a project whose pool is a folder or fsspec URL of Parquet files, queried "
            "on a Dask cluster (the app server needs RLSCORE_DASK_SCHEDULER)."
        ),
    )
    add_db_argument(parser)
    parser.add_argument("name", help="project name")
    parser.add_argument("parquet", help="folder or fsspec URL of the Parquet files")
    parser.add_argument(
        "--classes", type=_names, required=True, help="the classes, comma-separated (2 or more)"
    )
    parser.add_argument(
        "--feature-columns",
        type=_names,
        default=None,
        help="feature columns, comma-separated (default: every numeric column)",
    )
    parser.add_argument("--strategy", choices=BLOCK_STRATEGIES, default="arls-lowrank")
    parser.add_argument("--sigma", type=float, default=1.0, help="RBF width of the features")
    parser.add_argument("--lam", type=float, default=0.5, help="regularisation λ")
    for option, key, what in (
        ("--landmarks", "n_landmarks", "Nyström landmarks of the features (1 … 5000)"),
        ("--candidates", "candidates", "ARLS candidates per query (0: every point)"),
        ("--risk-sample", "risk_sample", "points the risk is estimated on (0: every point)"),
    ):
        parser.add_argument(
            option, type=int, dest=key, default=CLUSTER_DEFAULTS[key],
            help=f"{what}; default {CLUSTER_DEFAULTS[key]}",
        )  # fmt: skip
    parser.add_argument("--description", default="", help="shown on the Data page")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 2 any failure: one ``error:`` line)."""
    return run_command(_run, sys.argv[1:] if argv is None else list(argv))


def _run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if len(args.classes) < 2:
        raise CommandError(f"--classes needs at least 2 classes, got {args.classes}")
    with open_existing_store(args.db) as store:
        project = create_cluster_project(
            store, args.name, args.parquet, args.classes,
            feature_columns=args.feature_columns, strategy=args.strategy, sigma=args.sigma,
            lam=args.lam, n_landmarks=args.n_landmarks, candidates=args.candidates,
            risk_sample=args.risk_sample, description=args.description,
        )  # fmt: skip
        where = store.location
    columns = project.meta["cluster"]["columns"]
    print(
        f"created project {project.name!r}: {project.n:,} points, "
        f"{counted(len(columns), 'feature column')} ({', '.join(columns)}), pool at "
        f"{args.parquet}, in {where}; open it on an app server started with "
        "RLSCORE_DASK_SCHEDULER=tcp://host:port"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
