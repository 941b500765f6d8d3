"""Plane geometry for the pictures: projections, grids and decision surfaces (numpy, scipy)."""
