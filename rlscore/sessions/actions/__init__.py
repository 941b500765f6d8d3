"""What a person does in a session: the session that writes label, skip and review events (with
its actions' checks and events, and its parameters), undo, the minimum dwell and the
positives-only start."""
