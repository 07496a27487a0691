"""Open an archive for analysis and run user filters safely.

:func:`connect` opens the archive's own views (:func:`.views.open_archive`: the committed
Parquet partitions as ``games``, ``tricks``, ``auction``, ``sessions``, ...) and adds the
Wilson macros of :mod:`.stats`.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

from skatlog.ingest.archive import ArchiveError, read_manifest

from .scoring import DEFAULT_SCORING, Scoring
from .stats import register_wilson
from .views import open_archive


class AnalyticsError(ValueError):
    """A user mistake in an analytics request: no archive there, or a bad ``--where``."""


def connect(archive: Path | str, scoring: Scoring = DEFAULT_SCORING
            ) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection over the archive at ``archive`` with views and Wilson macros;
    the ``sessions`` view totals under ``scoring`` (:mod:`.scoring`)."""
    path = Path(archive)
    try:
        if not read_manifest(path).files("games"):
            raise AnalyticsError(f"no archive at {path}: no committed games there "
                                 "(run skatlog ingest or skatlog simulate first)")
    except ArchiveError as err:
        raise AnalyticsError(str(err)) from None
    con = open_archive(path, scoring=scoring)
    register_wilson(con)
    return con


def has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether a view or table ``name`` exists on the connection."""
    rows = con.execute("SELECT 1 FROM duckdb_views() WHERE view_name = ? UNION ALL "
                       "SELECT 1 FROM duckdb_tables() WHERE table_name = ?", [name, name])
    return bool(rows.fetchall())


def columns(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    """Column name -> DuckDB type of a view or table."""
    return {row[0]: row[1] for row in con.execute(f"DESCRIBE {table}").fetchall()}


def where_clause(where: str | None) -> str:
    """The user's filter as a parenthesised SQL condition (``TRUE`` when absent).

    One condition only: a ``;`` would start another statement, so it is refused.
    The condition sits on lines of its own, so a ``--`` comment in it ends there.
    """
    if where is None or not where.strip():
        return "TRUE"
    if ";" in where:
        raise AnalyticsError("--where takes one SQL condition, without ';'")
    # on lines of its own, so that a trailing ``--`` comment cannot swallow the ``)``
    return f"(\n{where}\n)"


def check_where(con: duckdb.DuckDBPyConnection, where: str | None) -> None:
    """Raise :class:`AnalyticsError` with DuckDB's message when ``where`` does not apply."""
    try:
        con.execute(f"SELECT count(*) FROM games WHERE {where_clause(where)}").fetchall()
    except duckdb.Error as err:
        raise AnalyticsError(f"--where {where!r} does not work on the games table: {err}") \
            from None


def query(con: duckdb.DuckDBPyConnection, sql: str) -> pl.DataFrame:
    """Run ``sql`` and return a polars frame; DuckDB errors become :class:`AnalyticsError`."""
    try:
        table = con.sql(sql).to_arrow_table()
    except duckdb.Error as err:
        raise AnalyticsError(f"query failed: {err}") from None
    return pl.DataFrame(pl.from_arrow(table))
