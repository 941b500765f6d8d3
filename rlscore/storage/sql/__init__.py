"""The one SQL implementation of the label store: connection, schema, projects table,
members and audit, and the store itself."""
