"""Regularized least squares: the classifier with exact leave-one-out, the whole λ path,
reduced RLS on landmarks, class weights and confidence estimates (docs/mathematics.md §1–§4)."""
