"""A session's state as a pure function of the event log: the label log, the replay, the
engine, the automatic λ, the exact LOO refit, snapshots, a large pool's kept features and the
project's settings."""
