"""What a label store is: its interface, the events of a project's log and the errors it
raises."""
