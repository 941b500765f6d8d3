"""What every command shares at its edges: the ``--db`` and ``--as`` options, the files it
writes and how it fails (one ``error: …`` line, exit status 2)."""
