"""The bundled sample datasets with ground truth, seeded and reproducible."""
