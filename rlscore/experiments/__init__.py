"""Offline experiments against ground truth: simulate one strategy, compare several."""

from rlscore.experiments.comparison.compare import compare_strategies
from rlscore.experiments.simulation.simulate import SimulationResult, simulate

__all__ = ["SimulationResult", "compare_strategies", "simulate"]
