"""Pictures of a session: :mod:`~rlscore.viz.geometry` (projections, grids, decision surfaces;
numpy only) and :mod:`~rlscore.viz.figures` (the plotly builders that draw them)."""
