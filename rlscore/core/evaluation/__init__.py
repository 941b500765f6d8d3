"""How good a model or a labeling is, as pure functions: the validation error, accuracy
intervals, inter-annotator agreement and the stopping rules over a run's curves."""
