"""``python -m rlscore samples``: (re)write the generated sample datasets into ``sample_data/``,
and the item samples' features into ``sample_data/features/``.

The item samples (texts, images) are not generated here: each is built by its own script in
``sample_data/`` from its source, so the message names them apart from the datasets written.
Their features are built from those files and kept (:mod:`rlscore.data.samples.feature_cache`)
so that a fresh database gets its sample projects without building them.
"""

from __future__ import annotations

import sys

from rlscore.cli.io.errors import CommandError, run_command
from rlscore.data.samples.bundled import (
    ITEM_SAMPLES,
    SAMPLE_DIR,
    list_samples,
    write_item_features,
    write_samples,
)

#: the scripts that build the item samples (named in the message)
ITEM_SAMPLE_SCRIPTS = ("build_text_samples.py", "build_image_samples.py")


def main(argv: list[str] | None = None) -> int:
    """Write every generated sample's CSV files and metadata; returns the exit status (0 ok,
    2 any failure, reported as one ``error:`` line)."""
    return run_command(_run, sys.argv[1:] if argv is None else list(argv))


def _run(argv: list[str]) -> int:
    if argv:
        raise CommandError(f"'samples' takes no arguments, got {' '.join(argv)}")
    # only the generated datasets are written: the item samples come from their scripts
    generated = [name for name in list_samples() if name not in ITEM_SAMPLES]
    write_samples(SAMPLE_DIR)
    features = write_item_features(SAMPLE_DIR)
    scripts = " and ".join(f"{SAMPLE_DIR.name}/{s}" for s in ITEM_SAMPLE_SCRIPTS)
    print(
        f"wrote {len(generated)} generated datasets ({', '.join(generated)}) to {SAMPLE_DIR}; "
        f"the item samples ({', '.join(ITEM_SAMPLES)}) are built by {scripts}; their "
        f"features written to {', '.join(str(p) for p in features)}"
    )
    return 0
