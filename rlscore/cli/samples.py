"""``python -m rlscore samples``: (re)write the bundled sample datasets into ``sample_data/``."""

from __future__ import annotations

import sys

from rlscore.cli.errors import CommandError, run_command
from rlscore.data.samples import SAMPLE_DIR, list_samples, write_samples


def main(argv: list[str] | None = None) -> int:
    """Write every sample's CSV files and metadata; returns the exit status (0 ok, 2 any
    failure, reported as one ``error:`` line)."""
    return run_command(_run, sys.argv[1:] if argv is None else list(argv))


def _run(argv: list[str]) -> int:
    if argv:
        raise CommandError(f"'samples' takes no arguments, got {' '.join(argv)}")
    write_samples()
    print(f"wrote {len(list_samples())} datasets to {SAMPLE_DIR}")
    return 0
