"""What every strategy is: the protocol (teach, undo, forget, next query), batch queries,
strategies by name, and random orders drawn on demand."""
