"""Learning on a pool's kNN graph: its components, the regularized graph kernels for any
scale, LGC label spreading (its mathematics and its estimator) and Graph-OCL
(positive-unlabeled learning)."""
