"""One module per convention the whole package shares: missing labels, one-vs-all encoding,
input validation, the inputs of estimators fitted on partially labeled pools, declarative
parameter constraints, constructor parameters, memory budgets, plain JSON values, counts
in words and the names people type."""
