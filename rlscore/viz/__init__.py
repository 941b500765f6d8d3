"""Pictures of a session: :mod:`~rlscore.viz.plane.geometry` (projections, grids, decision surfaces;
numpy, with scipy for interpolation) and :mod:`~rlscore.viz.figures` (the plotly builders that
draw them, with user strings escaped and large pools sampled)."""
