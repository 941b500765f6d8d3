"""The seed documents' other classifiers: block-diagonal LDA (BDLDA, T-BDLDA) and the
classifier with specified error rates (Saketha Nath), both scikit-learn estimators."""
