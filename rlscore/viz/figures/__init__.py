"""The plotly figures: the pool with its decision surface, the curves and histograms, and the
accuracy estimate with its band.

Every figure is a pure function of arrays (no Streamlit), so it can be built and tested from
plain Python; the pages only lay them out. The geometry they draw (projections, grids, decision
surfaces) is computed in :mod:`rlscore.viz.plane.geometry`. Shared by all: the class colours
(:mod:`~rlscore.viz.figures.palette`), user strings escaped for plotly
(:mod:`~rlscore.viz.figures.user_text`) and plotted numbers at the precision the eye can see
(:mod:`~rlscore.viz.figures.precision`)."""
