"""Strategies on kernel logistic regression: the KLR over a pool, A-optimal KLR (exact,
fast compiled pass, low-rank) and maximum-entropy queries (docs/mathematics.md §6)."""
