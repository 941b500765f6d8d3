"""How the pages show figures: what is drawn only while a reader looks at it."""
