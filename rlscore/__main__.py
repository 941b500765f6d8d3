"""``python -m rlscore``: the command line (:mod:`rlscore.cli`)."""

import sys

from rlscore.cli import main

if __name__ == "__main__":
    sys.exit(main())
