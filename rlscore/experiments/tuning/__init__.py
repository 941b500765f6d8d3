"""The tuning report for a candidate σ and λ: what the Tune page shows, from Python."""
