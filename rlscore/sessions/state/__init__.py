"""A session's state as a pure function of the event log: the label log, the replay, the
engine, the automatic λ, the exact LOO refit, snapshots and the project's settings."""
