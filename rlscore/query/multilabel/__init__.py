"""Multi-label strategies ("select all that apply"): a point's label is a set of classes
(:mod:`rlscore.core.conventions.label_sets`), learned as one binary RLS per class on one shared
posterior covariance, and queried by ARLS's risk summed over the labels, its focused variant,
the smallest per-label margin or at random; or by one binary A-optimal KLR per class
(docs/multilabel.md)."""
