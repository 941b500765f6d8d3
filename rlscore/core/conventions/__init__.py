"""One module per convention the whole package shares: missing labels, one-vs-all encoding,
input validation, constructor parameters, memory budgets and plain JSON values."""
