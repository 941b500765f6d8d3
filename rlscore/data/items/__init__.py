"""Items, what a person sees of a point (texts, images, context values): their columns,
the view of one point, the map of the pool and search over the texts."""
