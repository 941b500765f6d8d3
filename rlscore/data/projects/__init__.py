"""Projects: the pool an annotator labels, with its features, ids, classes and ground truth,
and how one is built from the chosen columns of a table."""
