"""How the house options went (R19-R21): Kontra and Re, Ramsch hands, Bock rounds.

Every figure counts games of the ``games`` view under ``where``; a column of an option the
games were not played under is null there, so those games drop out of its figures.
"""

from __future__ import annotations

import duckdb
import polars as pl

from .connect import columns, query, where_clause
from .queries import PLAYED, _rate_sql


def doubling_rates(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Declarer success (Wilson intervals) of played games by what was said (R19): no
    Kontra, Kontra, Kontra and Re; with each group's share of the games and mean value."""
    if "kontra" not in columns(con, "games"):
        return pl.DataFrame()
    return query(con, f"""
        SELECT CASE WHEN re THEN 'Kontra and Re' WHEN kontra THEN 'Kontra'
                    ELSE 'no Kontra' END AS said,
               {_rate_sql('won')}, n / sum(n) OVER () AS share, avg(value) AS mean_value
        FROM games WHERE {PLAYED} AND kontra IS NOT NULL AND {where_clause(where)}
        GROUP BY said ORDER BY min(CASE WHEN re THEN 2 WHEN kontra THEN 1 ELSE 0 END)
    """)


def ramsch_summary(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Ramsch hands (R20): how many, with a Jungfrau (a player without a trick, the loss
    doubled), a Durchmarsch (one player took every trick), ties for the most points, and
    the loser's mean points and value."""
    if "ramsch_points" not in columns(con, "games"):
        return pl.DataFrame()
    return query(con, f"""
        WITH r AS (
            SELECT ramsch_points AS p, ramsch_values AS v, list_max(ramsch_points) AS most
            FROM games WHERE outcome = 'ramsch' AND ramsch_points IS NOT NULL
              AND {where_clause(where)})
        SELECT count(*) AS hands,
               count(*) FILTER (WHERE list_max(v) = 120) AS durchmarsch,
               count(*) FILTER (WHERE list_max(v) < 120 AND list_min(v) < -most) AS jungfrau,
               count(*) FILTER (WHERE len(list_filter(p, lambda x: x = most)) > 1) AS ties,
               avg(CASE WHEN list_max(v) < 120 THEN most END) AS mean_loser_points,
               avg(CASE WHEN list_max(v) < 120 THEN list_min(v) END) AS mean_loser_value
        FROM r
    """)


def bock_summary(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Bock rounds (R21): hands in and out of a Bock round, and their mean absolute list
    value (a Bock hand's counts double)."""
    if "bock" not in columns(con, "games"):
        return pl.DataFrame()
    return query(con, f"""
        SELECT CASE WHEN bock THEN 'Bock round' ELSE 'other hands' END AS hands,
               count(*) AS n, n / sum(n) OVER () AS share,
               avg(abs(value)) FILTER (WHERE outcome = 'played') AS mean_abs_value
        FROM games WHERE bock IS NOT NULL AND {where_clause(where)}
        GROUP BY ALL ORDER BY hands
    """)


__all__ = ["bock_summary", "doubling_rates", "ramsch_summary"]
