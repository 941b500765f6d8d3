"""Command line: ``python -m rlscore {simulate,labels,samples} …``."""

from __future__ import annotations

import sys
from importlib import import_module

COMMANDS = {
    "simulate": ("rlscore.simulate", "run a query strategy against ground truth"),
    "labels": ("rlscore.labels_cli", "print a project's labels from the label database"),
    "samples": ("rlscore.datasets", "(re)write the bundled sample datasets"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        lines = [f"  {name:<10} {text}" for name, (_, text) in COMMANDS.items()]
        print("usage: python -m rlscore COMMAND [options]\n\ncommands:\n" + "\n".join(lines))
        if argv and argv[0] not in ("-h", "--help"):
            print(f"\nerror: unknown command {argv[0]!r}", file=sys.stderr)
            return 2
        return 0
    module = import_module(COMMANDS[argv[0]][0])
    if argv[0] == "samples":
        module.write_samples()
        print(f"wrote {len(module.list_samples())} datasets to {module.SAMPLE_DIR}")
        return 0
    return int(module.main(argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
