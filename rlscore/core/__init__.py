"""The mathematics floor: kernels and graphs, RLS with exact leave-one-out, kernel logistic
regression, confidence estimates, and the small pure helpers they share (input validation,
one-vs-all encoding, class weighting, memory budgeting, JSON conversion).

Each convention has one module: missing labels (:mod:`rlscore.core.conventions.missing_labels`), the
data-adaptive RBF width (:mod:`rlscore.core.kernels.rbf_width`), plain JSON scalars
(:mod:`rlscore.core.conventions.json_values`).

Nothing here knows about pools being labeled, storage, sessions or the app: every module is a
function of arrays. docs/mathematics.md §1–§4 and §6 (the KLR part).
"""
