"""When to stop: the accuracy estimate with its interval along the labels, and what the
Label page's stopping panel shows."""
