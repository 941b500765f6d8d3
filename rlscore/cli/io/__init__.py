"""What every command shares at its edges: the ``--db`` option, the files it writes and how it
fails (one ``error: …`` line, exit status 2)."""
