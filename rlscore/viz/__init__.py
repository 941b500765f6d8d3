"""Pictures of a session: plane geometry (projections, grids, surfaces) and plotly figures."""
