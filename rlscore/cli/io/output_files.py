"""Files a command writes (``labels --output``, ``simulate --out``): checked before the work,
so a long run does not end in a traceback because the folder is missing."""

from __future__ import annotations

import os
from pathlib import Path

from rlscore.cli.io.errors import CommandError


def output_file(path: str, option: str) -> Path:
    """The file ``option`` names, checked to be writable before anything is computed.

    Parameters
    ----------
    path
        The value given.
    option
        The option's name (``"--out"``), for the message.

    Raises
    ------
    CommandError
        The path is empty or a folder, its folder does not exist (it is not created: a typo
        should not leave a new folder behind) or is not writable, or the file exists and is
        not writable.
    """
    if not path:
        raise CommandError(f"{option} needs a file name")
    target = Path(path).expanduser()
    if target.is_dir():
        raise CommandError(f"{option} {path} is a folder: give a file name")
    folder = target.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise CommandError(f"cannot write {option} {path}: the folder {folder} {what}")
    if not os.access(folder, os.W_OK | os.X_OK) or (
        target.exists() and not os.access(target, os.W_OK)
    ):
        raise CommandError(f"cannot write {option} {path}: permission denied")
    return target


__all__ = ["output_file"]
