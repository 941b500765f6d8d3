"""Projects: the pool an annotator labels, with its features, ids, classes and ground truth."""
