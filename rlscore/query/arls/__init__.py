"""Active regularized least squares: thesis ARLS over the whole pool, focused ARLS, low-rank
ARLS with its refined shortlist, and the compiled lookahead they share (docs/mathematics.md §5)."""
