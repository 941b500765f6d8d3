"""Learning on a pool's kNN graph: its components, the regularized graph kernels for any
scale, LGC label spreading and Graph-OCL (positive-unlabeled learning)."""
