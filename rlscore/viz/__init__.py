"""Pictures of a session: :mod:`~rlscore.viz.plane` (projections, grids, decision surfaces;
numpy, with scipy for interpolation) and :mod:`~rlscore.viz.figures` (the plotly builders that
draw them, one module per figure or layer, with user strings escaped and large pools sampled)."""
