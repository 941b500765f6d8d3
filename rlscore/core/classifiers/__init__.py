"""The seed documents' other classifiers: block-diagonal LDA (BDLDA, T-BDLDA, with its treelet
basis) and the classifier with specified error rates (Saketha Nath) with the error bounds,
RLS certificates and ellipsoid separation it is built from; both scikit-learn estimators."""
