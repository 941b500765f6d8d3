"""Command line: ``python -m rlscore COMMAND …`` (``simulate``, ``labels``, ``label-issues``,
``settings``, ``agreement``, ``negatives``, ``members``, ``samples``, ``create-project``,
``create-cluster-project``).

Also installed as the ``rlscore`` script. Exit status 0 on success and 2 on any failure,
which is reported as one ``error: …`` line on standard error (:mod:`rlscore.cli.io.errors`).
"""

from __future__ import annotations

import sys
from importlib import import_module

from rlscore.cli.io.errors import EXIT_FAILURE, run_command

#: command -> (module with ``main(argv)``, one-line description)
COMMANDS = {
    "simulate": ("rlscore.cli.commands.simulate", "run a query strategy against ground truth"),
    "labels": ("rlscore.cli.commands.labels", "print a project's labels from the label database"),
    "label-issues": (
        "rlscore.cli.commands.label_issues",
        "a project's labels ranked by the chance that they are wrong",
    ),
    "settings": ("rlscore.cli.commands.settings", "show or change a project's labeling settings"),
    "samples": ("rlscore.cli.commands.samples", "(re)write the bundled sample datasets"),
    "agreement": (
        "rlscore.cli.commands.agreement",
        "inter-annotator agreement of a project's labels",
    ),
    "negatives": (
        "rlscore.cli.commands.negatives",
        "reliable negatives for a positives-only start",
    ),
    "members": (
        "rlscore.cli.commands.members",
        "list, add or remove a project's members and roles",
    ),
    "create-project": (
        "rlscore.cli.commands.create_project",
        "create a project from a CSV or Parquet table (--multi-label: label sets)",
    ),
    "create-cluster-project": (
        "rlscore.cli.commands.cluster_project",
        "create a project whose pool of Parquet files lives on a Dask cluster",
    ),
}


def main(argv: list[str] | None = None) -> int:
    """Dispatch to a command's ``main``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        lines = [f"  {name:<22} {text}" for name, (_, text) in COMMANDS.items()]
        print("usage: python -m rlscore COMMAND [options]\n\ncommands:\n" + "\n".join(lines))
        if argv and argv[0] not in ("-h", "--help"):
            print(f"error: unknown command {argv[0]!r}", file=sys.stderr)
            return EXIT_FAILURE
        return 0
    # imported on demand: `labels` need not pay for scikit-learn and the strategies
    module = import_module(COMMANDS[argv[0]][0])
    # every failure, whichever command, is one `error:` line and exit status 2
    return run_command(module.main, argv[1:])
