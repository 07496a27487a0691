"""List points and Seeger-Fabian points per player, per session and per club.

The scorings themselves are :mod:`.scoring` (docs/rules.md, "Rule sets": Seeger-Fabian is
opt-in by name, not the default). A player's table is the session's players: 3, or 4 when
the dealer sits out each hand, who then scores Seeger-Fabian's +30 per lost game too without
having played the hand; a hand outside any session is a 3-player table.
"""

from __future__ import annotations

from typing import Literal

import duckdb
import polars as pl

from .connect import columns, has_table, query, where_clause
from .scoring import (
    DEFAULT_SCORING,
    DEFENDER_BONUS,
    LOSS_PENALTY,
    WIN_BONUS,
    Scoring,
    points_sql,
    seeger_fabian,
)
from .views import sessions_sql

__all__ = ["DEFENDER_BONUS", "LOSS_PENALTY", "WIN_BONUS", "player_table", "seeger_fabian",
           "session_table"]


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
    scoring: Scoring = DEFAULT_SCORING,
) -> pl.DataFrame:
    """One row per player (and session or club): hands at the table (``hands`` played in,
    ``sat_out`` as the dealer of a 4-player table), games declared and won with the Wilson
    interval of the win rate, ``list_points``, ``seeger_fabian`` and ``points`` (the one of
    the two ``scoring`` names), ordered by ``points``.

    Seeger-Fabian is null for a player with a hand at a table of other than 3 or 4 players.
    ``first`` keeps only the first N sessions or clubs (by name), so big archives stay small.
    """
    keys = {"player": ["player"], "session": ["session_id", "player"],
            "club": ["club", "player"]}[by]
    limit = "TRUE"
    if first is not None and by != "player":
        group = "session_id" if by == "session" else "club"
        limit = (f"{group} IN (SELECT DISTINCT {group} FROM g ORDER BY {group} "
                 f"LIMIT {int(first)})")
    scored = {name: points_sql(name, played="played", declaring="declaring")
              + " + coalesce(rv, 0)" for name in ("list", "seeger-fabian")}
    has_ramsch = "ramsch_values" in columns(con, "games")
    cols = "session_id, club, declarer, won, value, played, table_size" + (
        ", ramsch_values" if has_ramsch else "")
    # option ramsch (R20): every seat's Ramsch value, plain points under either scoring
    ramsch = "coalesce(ramsch_values[seat + 1], 0)" if has_ramsch else "0"
    sql = f"""
        WITH g AS (SELECT * FROM ({_games_with_club(con)}) WHERE {where_clause(where)}),
        picked AS (SELECT *, outcome = 'played' AND declarer IS NOT NULL AS played
                   FROM g WHERE {limit}),
        roster AS (
            SELECT DISTINCT session_id, player FROM (
                SELECT session_id, unnest([forehand, middlehand, rearhand]) AS player
                FROM games WHERE session_id IN (SELECT session_id FROM picked))
            WHERE player IS NOT NULL),
        sizes AS (SELECT session_id, count(*)::INTEGER AS table_size FROM roster
                  GROUP BY session_id),
        tabled AS (SELECT p.*, coalesce(z.table_size, 3) AS table_size
                   FROM picked p LEFT JOIN sizes z USING (session_id)),
        seats AS (
            SELECT {cols}, unnest([forehand, middlehand, rearhand]) AS player,
                unnest([0, 1, 2]) AS seat
            FROM tabled
            UNION ALL
            SELECT {", ".join(f"t.{c}" for c in cols.split(", "))}, r.player, NULL AS seat
            FROM tabled t JOIN roster r USING (session_id)
            WHERE t.table_size > 3
                AND r.player NOT IN (t.forehand, t.middlehand, t.rearhand)),
        scored AS (
            SELECT *, coalesce(played AND seat = declarer, FALSE) AS declaring,
                {ramsch} AS rv FROM seats),
        points AS (
            SELECT *, {scored["list"]} AS lp, {scored["seeger-fabian"]} AS sf FROM scored)
        SELECT {", ".join(keys)}, count(seat)::BIGINT AS hands,
            (count(*) - count(seat))::BIGINT AS sat_out, count_if(declaring)::BIGINT AS n,
            count_if(declaring AND won)::BIGINT AS k, k / n AS rate,
            wilson_lo(k, n) AS lo, wilson_hi(k, n) AS hi,
            sum(lp)::BIGINT AS list_points,
            CASE WHEN bool_or(sf IS NULL) THEN NULL ELSE sum(sf) END::BIGINT AS seeger_fabian,
            {"list_points" if scoring == "list" else "seeger_fabian"} AS points
        FROM points GROUP BY ALL
        ORDER BY {", ".join([*keys[:-1], "points DESC NULLS LAST"])}, player
    """
    return query(con, sql)


def session_table(con: duckdb.DuckDBPyConnection, where: str | None = None,
                  scoring: Scoring = DEFAULT_SCORING, first: int | None = None) -> pl.DataFrame:
    """The ``sessions`` view's rows under ``scoring`` for the sessions with a hand in
    ``where`` (totals over all of a session's hands), by session id; ``first`` keeps the
    first N."""
    limit = "" if first is None else f" LIMIT {int(first)}"
    return query(con, f"""
        SELECT * FROM ({sessions_sql(scoring)})
        WHERE session_id IN (SELECT session_id FROM games WHERE {where_clause(where)})
        ORDER BY session_id{limit}""")
