"""What every page runs inside: navigation, sign-in, roles, the store and cached sessions,
the tab's parameters, the sidebar, messages, errors and the database-outage guard."""
