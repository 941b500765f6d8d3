"""The two label databases, SQLite (embedded) and PostgreSQL (several servers), and which
one a target names."""
