"""What a session shows, read-only: its state and histories, the Label page's panel, the
project overview, search results and exports."""
