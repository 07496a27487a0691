"""skatlog: archive, validate and analyse Skat games.

The package is one namespace: ``skatlog.engine`` (the rules), ``skatlog.ingest`` (log
formats, replay validation, the Parquet archive), ``skatlog.analytics`` (DuckDB/polars
statistics) and ``skatlog.reports`` (Plotly pages).
"""

__version__ = "0.1.0"
