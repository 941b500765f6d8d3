"""The commands of ``python -m rlscore``: one module per command, each with ``main(argv)``."""
