"""Kernel logistic regression: its link and Fisher blocks, the Newton solvers, the estimator,
its Laplace posterior over a pool and the choice of its λ (docs/mathematics.md §6)."""
