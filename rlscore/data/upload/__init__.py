"""An uploaded table on its way to a project: reading it (CSV or Parquet), the columns to
propose, the preview, and the fixes offered when it cannot become a project as it is."""
