"""Strategies compared on data with ground truth: the runs, the tidy table, and learning
curves of other classifiers trained on each strategy's labels."""
