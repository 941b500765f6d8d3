"""Simulated labeling: a query strategy run against known labels (demo mode, experiments)."""
