"""When to stop: the accuracy estimate with its interval along the labels, what the Label
page's stopping panel shows, and the stopping indicator of settled pool predictions."""
