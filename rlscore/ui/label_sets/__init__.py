"""The Label page of a multi-label project: a label set chosen with one toggle per class and
saved at once, the pool plot tinted by one class, sets shown as text."""
