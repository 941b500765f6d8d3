"""Kernel logistic regression: the estimator, its Laplace posterior over a pool and the
choice of its λ (docs/mathematics.md §6)."""
