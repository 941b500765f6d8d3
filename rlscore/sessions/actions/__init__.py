"""What a person does in a session: the session that writes label, skip and review events,
undo, the minimum dwell and the positives-only start."""
