"""Baseline strategies: random, margin and entropy queries over the RLS state, uncertainty
sampling on LGC's label distribution, and the pure scores behind them."""
