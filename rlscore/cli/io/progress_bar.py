"""A one-line progress bar for long commands (``simulate``) on stderr."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    """A one-line progress bar on stderr: redrawn in place at most every 0.2 s on a terminal,
    one line per 10 % otherwise (logs)."""

    def __init__(self, label: str, stream=None, width: int = 30):
        self.label, self.width = label, width
        self.stream = sys.stderr if stream is None else stream
        self.t0 = time.perf_counter()
        self._last = -1.0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._decile = -1

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        decile = 10 * done // max(total, 1)
        if done < total and (now - self._last < 0.2 if self._tty else decile == self._decile):
            return
        self._last, self._decile = now, decile
        filled = int(self.width * done / max(total, 1))
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = now - self.t0
        eta = elapsed / done * (total - done) if done else float("nan")
        line = f"{self.label} [{bar}] {done}/{total} queries  {elapsed:.1f} s  eta {eta:.0f} s "
        self.stream.write(f"\r{line}" if self._tty else f"{line}\n")
        if self._tty and done >= total:
            self.stream.write("\n")
        self.stream.flush()


__all__ = ["ProgressBar"]
