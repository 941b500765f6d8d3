"""A pool of Parquet files held by the workers of a Dask cluster, never loaded by the app."""
