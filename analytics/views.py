"""The archive as DuckDB views and polars LazyFrames, one call each.

Both read the committed Parquet partitions in place (the manifest's list, never orphans of a
killed ingest) without copying them. An empty archive still gives every view, with the
right columns and no rows.

``sessions`` is derived from ``games`` (grouped by ``session_id``) rather than stored, so it
is always consistent with the games however many ingests a session's hands came in: per
session its origin, hands, first/last time, players (sorted), their totals in the same
order and the winners (every player on the top total, R2), the table size and the scoring
the totals follow: plain list points by default (only declarers score, R16), Seeger-Fabian
when asked for (``open_archive(..., scoring="seeger-fabian")``, :mod:`.scoring`).
"""

from __future__ import annotations

import os

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from skatlog.engine import Card
from skatlog.ingest.archive import archive_path, committed_files
from skatlog.ingest.column_docs import comment_views
from skatlog.ingest.computed import query_schema, table_sql, with_computed
from skatlog.ingest.schema import TABLES

from .scoring import DEFAULT_SCORING, Scoring, total_expr, total_sql

#: The views ``open_archive`` creates.
VIEWS = (*TABLES, "sessions")

#: A hand that counts for Seeger-Fabian: a game was declared and played (R14).
_PLAYED_SQL = "outcome = 'played' AND declarer_name IS NOT NULL"


def sessions_sql(scoring: Scoring = DEFAULT_SCORING) -> str:
    """The ``sessions`` view's query, its ``totals`` and ``winners`` under ``scoring``.

    The table of a session is every player named in its hands: 3, or 4 when the dealer sits
    out each hand (Seeger-Fabian's +30 then goes to him too). A player's total comes from
    per-declarer sums and the games the table lost (:func:`~.scoring.total_sql`), so the
    view reads each hand once whatever the scoring.
    """
    total = total_sql(scoring, value_sum="(coalesce(sc.value_sum, 0) + coalesce(r.ramsch_sum, 0))",
                      won_games="sc.won_games",
                      lost_games="sc.lost_games", lost_at_table="z.lost_at_table",
                      table_size="z.table_size")
    return f"""
WITH g AS (
    SELECT * FROM games WHERE session_id IS NOT NULL
), seats AS (
    SELECT DISTINCT session_id, player FROM (
        SELECT session_id, forehand AS player FROM g
        UNION ALL SELECT session_id, middlehand FROM g
        UNION ALL SELECT session_id, rearhand FROM g
    ) WHERE player IS NOT NULL
), scores AS (
    SELECT session_id, declarer_name AS player, sum(value)::BIGINT AS value_sum,
           count_if({_PLAYED_SQL} AND won) AS won_games,
           count_if({_PLAYED_SQL} AND NOT won) AS lost_games
    FROM g WHERE declarer_name IS NOT NULL GROUP BY ALL
), ramsch AS (  -- R20: every player's Ramsch result, plain list points under any scoring
    SELECT session_id, player, sum(v)::BIGINT AS ramsch_sum FROM (
        SELECT session_id, forehand AS player, ramsch_values[1] AS v FROM g
        UNION ALL SELECT session_id, middlehand, ramsch_values[2] FROM g
        UNION ALL SELECT session_id, rearhand, ramsch_values[3] FROM g
    ) WHERE v IS NOT NULL GROUP BY ALL
), sizes AS (
    SELECT s.session_id, count(*)::INTEGER AS table_size,
           any_value(l.lost_at_table) AS lost_at_table
    FROM seats s LEFT JOIN (SELECT session_id, count_if({_PLAYED_SQL} AND NOT won)
                            AS lost_at_table FROM g GROUP BY session_id) l USING (session_id)
    GROUP BY s.session_id
), totals AS (
    SELECT s.session_id, s.player, {total}::BIGINT AS total,
           max({total}) OVER (PARTITION BY s.session_id) AS best
    FROM seats s JOIN sizes z USING (session_id) LEFT JOIN scores sc USING (session_id, player)
         LEFT JOIN ramsch r USING (session_id, player)
), per_session AS (
    SELECT session_id,
           list(player ORDER BY player) AS players,
           list(total ORDER BY player) AS totals,
           list(player ORDER BY player) FILTER (WHERE total = best) AS winners
    FROM totals GROUP BY session_id
), hands AS (
    SELECT session_id, any_value(origin)::VARCHAR AS origin, count(*) AS hands,
           count(*) FILTER (WHERE outcome = 'passed') AS passed_hands,
           min(played_at) AS first_played_at, max(played_at) AS last_played_at
    FROM g GROUP BY session_id
)
SELECT h.session_id, h.origin, h.hands, h.passed_hands, h.first_played_at,
       h.last_played_at, p.players, p.totals, p.winners, z.table_size,
       '{scoring}' AS scoring
FROM hands h LEFT JOIN per_session p USING (session_id) LEFT JOIN sizes z USING (session_id)
"""


#: The default (list-point) ``sessions`` query.
SESSIONS_SQL = sessions_sql()

_CARD_NAMES_SQL = "[" + ", ".join(f"'{c.name}'" for c in Card) + "]"


def open_archive(path: str | os.PathLike[str] | None = None,
                 connection: duckdb.DuckDBPyConnection | None = None,
                 scoring: Scoring = DEFAULT_SCORING) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with views ``games``, ``tricks``, ``auction``, ``sessions``,
    ``rejects`` and ``ingests`` over the archive (default ``data/archive`` or
    ``$SKATLOG_ARCHIVE``), plus the macro ``card_name(c)`` (card index -> ISS name ``CJ``);
    every view and column carries its description (``duckdb_columns().comment``).
    ``sessions`` totals its players under ``scoring`` (``list`` or ``seeger-fabian``).

    The views see the archive as committed when this is called.
    """
    root = archive_path(path)
    con = connection if connection is not None else duckdb.connect()
    for table, schema in TABLES.items():
        files = committed_files(root, table)
        if files:
            con.execute(f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM "
                        f"{table_sql(table, files)}")
        else:
            con.register(f"_empty_{table}", _plain_empty(query_schema(table, schema)))
            con.execute(f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM _empty_{table}")
    con.execute(f"CREATE OR REPLACE VIEW sessions AS {sessions_sql(scoring)}")
    con.execute(f"CREATE OR REPLACE MACRO card_name(c) AS {_CARD_NAMES_SQL}[c + 1]")
    comment_views(con)  # every column's description, for duckdb_columns() (skatlog schema)
    return con


def _plain_empty(schema: pa.Schema) -> pa.Table:
    """An empty table whose dictionary columns are plain strings (as DuckDB reads Parquet)."""
    fields = [pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type)
              for f in schema]
    return pa.schema(fields).empty_table()


def lazy_frames(path: str | os.PathLike[str] | None = None,
                scoring: Scoring = DEFAULT_SCORING) -> dict[str, pl.LazyFrame]:
    """The archive as polars LazyFrames: ``games``, ``tricks``, ``auction``, ``rejects`` and
    ``ingests`` scanning the committed Parquet files (empty frames with the right schema when
    a table has no rows yet), and ``sessions`` derived from ``games`` as in the DuckDB view
    (totals under ``scoring``)."""
    root = archive_path(path)
    frames: dict[str, pl.LazyFrame] = {}
    for table, schema in TABLES.items():
        files = [str(p) for p in committed_files(root, table)]
        if files:
            # one scan per file, narrowed to the stored columns: partitions of schema
            # version 1 also hold the computed ones, which polars would refuse to mix
            stored = pl.concat([_scan_stored(f, schema) for f in files])
        else:
            empty = pl.from_arrow(schema.empty_table())
            assert isinstance(empty, pl.DataFrame)
            stored = empty.lazy()
        frames[table] = with_computed(table, stored, schema)
    frames["sessions"] = sessions_frame(frames["games"], scoring)
    return frames


def _scan_stored(path: str, schema: pa.Schema) -> pl.LazyFrame:
    """One partition's stored columns in ``schema``'s order. Columns a partition of an older
    schema version lacks (``games.rules`` before version 3) come as nulls of their type, as
    DuckDB's ``union_by_name`` gives them; the views fill them in (``ingest.computed``)."""
    present = set(pq.read_schema(path).names)
    scan = pl.scan_parquet(path)
    if present >= set(schema.names):
        return scan.select(schema.names)
    empty = pl.from_arrow(schema.empty_table())
    assert isinstance(empty, pl.DataFrame)
    dtypes = empty.schema
    return scan.select([pl.col(name) if name in present else
                        pl.lit(None, dtype=dtypes[name]).alias(name) for name in schema.names])


def sessions_frame(games: pl.LazyFrame, scoring: Scoring = DEFAULT_SCORING) -> pl.LazyFrame:
    """Sessions from games (same columns and meaning as the ``sessions`` view, R2, R16)."""
    g = games.filter(pl.col("session_id").is_not_null())
    seats = pl.concat([
        g.select("session_id", pl.col(seat).cast(pl.String).alias("player"))
        for seat in ("forehand", "middlehand", "rearhand")
    ]).drop_nulls("player").unique()
    played = (pl.col("outcome").cast(pl.String) == "played") & pl.col("declarer_name").is_not_null()
    lost = played & ~pl.col("won").fill_null(True)
    scores = (g.filter(pl.col("declarer_name").is_not_null())
              .group_by("session_id", pl.col("declarer_name").cast(pl.String).alias("player"))
              .agg(pl.col("value").cast(pl.Int64).sum().alias("value_sum"),
                   (played & pl.col("won").fill_null(False)).sum().alias("won_games"),
                   lost.sum().alias("lost_games")))
    sizes = (seats.group_by("session_id").agg(pl.len().cast(pl.Int32).alias("table_size"))
             .join(g.group_by("session_id").agg(lost.sum().alias("lost_at_table")),
                   on="session_id", how="left"))
    ramsch = pl.concat([  # R20: every player's Ramsch result
        g.select("session_id", pl.col(seat).cast(pl.String).alias("player"),
                 pl.col("ramsch_values").list.get(i).cast(pl.Int64).alias("v"))
        for i, seat in enumerate(("forehand", "middlehand", "rearhand"))
    ]).drop_nulls("v").group_by("session_id", "player").agg(pl.col("v").sum().alias("r_sum"))
    scores = scores.join(ramsch, on=["session_id", "player"], how="full", coalesce=True)
    value_sum = pl.col("value_sum").fill_null(0) + pl.col("r_sum").fill_null(0)
    total = total_expr(scoring, value_sum=value_sum, won_games=pl.col("won_games"),
                       lost_games=pl.col("lost_games"), lost_at_table=pl.col("lost_at_table"),
                       table_size=pl.col("table_size"))
    totals = (seats.join(sizes, on="session_id")
              .join(scores, on=["session_id", "player"], how="left")
              .with_columns(total.alias("total"))
              .sort("session_id", "player"))
    per_session = totals.group_by("session_id", maintain_order=True).agg(
        pl.col("player").alias("players"),
        pl.col("total").alias("totals"),
        pl.col("player").filter(pl.col("total") == pl.col("total").max()).alias("winners"),
    )
    hands = g.group_by("session_id").agg(
        pl.col("origin").cast(pl.String).first().alias("origin"),
        pl.len().cast(pl.Int64).alias("hands"),
        (pl.col("outcome").cast(pl.String) == "passed").sum().cast(pl.Int64)
        .alias("passed_hands"),
        pl.col("played_at").min().alias("first_played_at"),
        pl.col("played_at").max().alias("last_played_at"),
    )
    return (hands.join(per_session, on="session_id", how="left")
            .join(sizes.select("session_id", "table_size"), on="session_id", how="left")
            .with_columns(pl.lit(scoring).alias("scoring")))
