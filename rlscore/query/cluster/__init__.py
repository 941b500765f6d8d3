"""Query passes over a pool held as row blocks of features by the workers of a cluster: the
passes on one block, ARLS's lookahead pass, and the client that runs them and finishes a query."""
