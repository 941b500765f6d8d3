"""An uploaded table on its way to a project: the columns to propose, the preview, and the
fixes offered when it cannot become a project as it is."""
