"""``python -m rlscore samples``: (re)write the bundled sample datasets into ``sample_data/``."""

from __future__ import annotations

from rlscore.data.samples import SAMPLE_DIR, list_samples, write_samples


def main(argv: list[str] | None = None) -> int:
    """Write every sample's CSV files and metadata; returns the exit status."""
    if argv:
        print(f"error: 'samples' takes no arguments, got {argv}")
        return 2
    write_samples()
    print(f"wrote {len(list_samples())} datasets to {SAMPLE_DIR}")
    return 0
