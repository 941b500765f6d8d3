"""A team on one project: claims and hand-out of points, overlap, agreement, roles and
permissions, and the audit trail."""
