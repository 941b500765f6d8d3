"""The mathematics floor: kernels and graphs, RLS with exact leave-one-out, kernel logistic
regression, confidence estimates, and the small pure helpers they share (input validation,
one-vs-all encoding, class weighting, memory budgeting, JSON conversion).

Nothing here knows about pools being labeled, storage, sessions or the app: every module is a
function of arrays. SPEC §1–§4 and §6 (the KLR part).
"""
