"""Query passes over a pool held as row blocks of features by the workers of a cluster."""
