"""Sessions on cluster-backed projects: the engine, the plotted sample, the projects."""
