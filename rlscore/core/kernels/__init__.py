"""Kernels and how a pool's kernel is held: kernel functions (vector and graph), the RBF
width rules, blocks of a pool kernel, low-rank (Nyström) features and their landmarks."""
