"""How a package's ``__init__`` re-exports names that are imported on first access (PEP 562),
so the app's first page imports only what it draws."""
