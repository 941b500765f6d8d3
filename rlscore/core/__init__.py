"""The mathematics floor, room by idea: ``kernels`` (kernel functions, RBF widths, blocks,
Nyström features), ``rls`` (RLS with exact leave-one-out, its λ path, reduced RLS, class weights,
confidence), ``klr`` (kernel logistic regression), ``graph`` (kNN graphs, LGC, Graph-OCL),
``classifiers`` (BDLDA, specified error rates), ``evaluation`` (validation error, accuracy
intervals, agreement, stopping rules), ``conventions`` (one module per shared convention) and
``lazy`` (lazy re-exports).

Nothing here knows about pools being labeled, storage, sessions or the app: every module is a
function of arrays. docs/mathematics.md §1–§4, §6 (the KLR part), §7 and §8.
"""
