"""List points and Seeger-Fabian points per player, per session and per club.

Seeger-Fabian list scoring (docs/rules.md, "Variants"; opt-in by name, not the default scoring):
the declarer scores the list value plus 50 when the game is won and the list value minus 50
when it is lost; every other player at the table scores 40 for each game the declarer lost at
a 3-player table (30 at a 4-player table, the dealer who sits out included). Skipped and
penalty hands score nothing. Plain list points are the engine's own list values (R14-R16).
"""

from __future__ import annotations

from typing import Literal

import duckdb
import polars as pl

from .connect import columns, has_table, query, where_clause

WIN_BONUS = 50
LOSS_PENALTY = 50
#: Points each non-declarer gets per game the declarer lost, by table size.
DEFENDER_BONUS = {3: 40, 4: 30}


def seeger_fabian(list_value: int, won: bool, table_size: int = 3) -> tuple[int, int]:
    """(declarer's Seeger-Fabian points, each other player's points) for one played game.

    ``list_value`` is the declarer's signed list value (+value won, -2 x value lost, R14).
    """
    if table_size not in DEFENDER_BONUS:
        raise ValueError(f"Seeger-Fabian is defined for tables of 3 or 4, not {table_size}")
    if won:
        return list_value + WIN_BONUS, 0
    return list_value - LOSS_PENALTY, DEFENDER_BONUS[table_size]


def _games_with_club(con: duckdb.DuckDBPyConnection) -> str:
    """SQL selecting the games with a ``club`` column (``(no club)`` when not recorded)."""
    if "club" in columns(con, "games"):
        return ("SELECT * REPLACE (coalesce(nullif(club::VARCHAR, ''), '(no club)') AS club)"
                " FROM games")
    if has_table(con, "sessions") and {"club", "session_id"} <= set(columns(con, "sessions")):
        return ("SELECT g.*, coalesce(nullif(s.club::VARCHAR, ''), '(no club)') AS club"
                " FROM games g LEFT JOIN (SELECT session_id, any_value(club) AS club"
                " FROM sessions GROUP BY session_id) s USING (session_id)")
    return "SELECT *, '(no club)' AS club FROM games"


def player_table(
    con: duckdb.DuckDBPyConnection, where: str | None = None,
    by: Literal["player", "session", "club"] = "player", first: int | None = None,
) -> pl.DataFrame:
    """One row per player (and session or club): hands at the table, games declared and
    won with the Wilson interval of the win rate, list points and Seeger-Fabian points.

    Archive tables are 3-player tables, so non-declarers get 40 per lost game. ``first``
    keeps only the first N sessions or clubs (by name), so big archives stay small here.
    """
    keys = {"player": ["player"], "session": ["session_id", "player"],
            "club": ["club", "player"]}[by]
    played = "outcome = 'played' AND declarer IS NOT NULL"
    limit = "TRUE"
    if first is not None and by != "player":
        group = "session_id" if by == "session" else "club"
        limit = (f"{group} IN (SELECT DISTINCT {group} FROM g ORDER BY {group} "
                 f"LIMIT {int(first)})")
    sql = f"""
        WITH g AS (SELECT * FROM ({_games_with_club(con)}) WHERE {where_clause(where)}),
        seats AS (
            SELECT session_id, club, declarer, won, value, ({played}) AS played,
                unnest([forehand, middlehand, rearhand]) AS player, unnest([0, 1, 2]) AS seat
            FROM g WHERE {limit}),
        scored AS (
            SELECT *, played AND seat = declarer AS declaring,
                CASE WHEN NOT played THEN 0
                     WHEN seat = declarer THEN value + CASE WHEN won THEN {WIN_BONUS}
                                                            ELSE -{LOSS_PENALTY} END
                     WHEN NOT won THEN {DEFENDER_BONUS[3]} ELSE 0 END AS sf
            FROM seats)
        SELECT {", ".join(keys)}, count(*)::BIGINT AS hands, count_if(declaring)::BIGINT AS n,
            count_if(declaring AND won)::BIGINT AS k, k / n AS rate,
            wilson_lo(k, n) AS lo, wilson_hi(k, n) AS hi,
            sum(CASE WHEN declaring THEN value ELSE 0 END)::BIGINT AS list_points,
            sum(sf)::BIGINT AS seeger_fabian
        FROM scored GROUP BY ALL ORDER BY {", ".join([*keys[:-1], "seeger_fabian DESC"])},
            player
    """
    return query(con, sql)
