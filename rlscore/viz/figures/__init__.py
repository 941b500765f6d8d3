"""The plotly figures: the pool with its decision surface, the curves and histograms, and the
accuracy estimate with its band."""
