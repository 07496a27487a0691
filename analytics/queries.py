"""Declarer success, bidding, auction and trick statistics as DuckDB SQL over the archive.

Every function takes a connection from :func:`~.connect.connect` and an optional SQL
``where`` condition on the ``games`` columns (e.g. ``origin = 'log'``), aggregates in DuckDB
and returns a small polars frame. Every proportion comes with its ``n``, its ``k`` and the
Wilson 95 % interval ``lo``..``hi`` (:mod:`.stats`). A "played" game is one with a declarer
and a declared contract (``outcome = 'played'``); skipped and penalty hands are counted only
where the question is about them (auction statistics).
"""

from __future__ import annotations

import duckdb
import polars as pl

from .connect import columns, query, where_clause
from .hands import JACKS, count, register_hands

SEAT_NAMES = ("Forehand", "Middlehand", "Rearhand")
CONTRACT_ORDER = ("diamonds", "hearts", "spades", "clubs", "grand", "null")

#: Played games only, after the user's filter.
PLAYED = "outcome = 'played' AND declarer IS NOT NULL AND contract IS NOT NULL"

#: Final-bid buckets (lower bound inclusive, label); the ladder is R3 (from 18), Foster's
#: bids start at 10 (F3).
BID_BUCKETS: tuple[tuple[int, str], ...] = (
    (10, "10-17"), (18, "18-24"), (27, "27-36"), (40, "40-48"), (50, "50-72"),
    (77, "77-120"), (121, "121+"),
)

#: A game's family: ``suit``, ``grand`` or ``null``; Foster's games by their names (F5):
#: ``tournee_hearts``, ``solo_clubs`` are suit games, ``gucki_grand``, ``turned_grand`` and
#: ``passt_mir_nicht_grand`` grands, ``solo_nullo`` and the other nullos null.
FAMILY = ("CASE WHEN contract LIKE '%grand' THEN 'grand' "
          "WHEN contract = 'null' OR contract LIKE '%nullo' THEN 'null' ELSE 'suit' END")

#: The announcement level of a game: ouvert implies schwarz implies schneider (R6).
ANNOUNCEMENT = """CASE WHEN ouvert AND contract <> 'null' THEN 'ouvert'
    WHEN schwarz_announced THEN 'schwarz' WHEN schneider_announced THEN 'schneider'
    ELSE 'none' END"""

#: A readable game type: ``clubs``, ``grand hand schneider``, ``null ouvert hand``...
GAME_LABEL = """contract
    || CASE WHEN contract = 'null' AND ouvert THEN ' ouvert' ELSE '' END
    || CASE WHEN hand AND NOT (ouvert AND contract <> 'null') THEN ' hand' ELSE '' END
    || CASE WHEN contract <> 'null' AND (schneider_announced OR schwarz_announced OR ouvert)
            THEN ' ' || """ + ANNOUNCEMENT.replace("\n", " ") + """ ELSE '' END"""

#: The unsigned game value of a non-overbid game: +value won, -2 x value lost (R14).
GAME_VALUE = "CASE WHEN won THEN value ELSE -value // 2 END"

CONTRACT_RANK = "list_position(" + str(list(CONTRACT_ORDER)) + ", contract)"


def _bucket_sql(column: str) -> str:
    cases = " ".join(f"WHEN {column} >= {low} THEN '{label}'"
                     for low, label in reversed(BID_BUCKETS))
    return f"CASE {cases} END"


def _rate_sql(success: str) -> str:
    """Aggregate columns n, k, rate, lo, hi for the condition ``success``."""
    return (f"count(*) AS n, coalesce(count_if({success}), 0)::BIGINT AS k, k / n AS rate,"
            " wilson_lo(k, n) AS lo, wilson_hi(k, n) AS hi")


def declarer_rates(
    con: duckdb.DuckDBPyConnection, groups: dict[str, str], where: str | None = None,
    *, success: str = "won", source: str = "games", extra: str = "TRUE",
    order: str | None = None,
) -> pl.DataFrame:
    """Declarer success (``success`` over played games) grouped by named SQL expressions.

    The building block of the ``success_by_*`` functions; ``groups`` maps output column
    names to expressions over ``source`` (``games`` or ``declarer_hands``).
    """
    select = ", ".join(f"{expr} AS {name}" for name, expr in groups.items())
    keys = ", ".join(groups)
    sql = f"""
        SELECT {select}, {_rate_sql(success)}, avg(value) AS mean_value
        FROM {source} WHERE {PLAYED} AND {where_clause(where)} AND ({extra})
        GROUP BY {", ".join(str(i + 1) for i in range(len(groups)))} ORDER BY {order or keys}
    """
    return query(con, sql)


def success_by_contract(con: duckdb.DuckDBPyConnection, where: str | None = None
                        ) -> pl.DataFrame:
    """Declarer win rate by game type: contract x hand x announcement (R5, R6)."""
    return declarer_rates(
        con,
        {"game": GAME_LABEL, "contract": "contract", "hand": "hand",
         "announcement": ANNOUNCEMENT, "ouvert": "ouvert", "contract_rank": CONTRACT_RANK},
        where, order="contract_rank, hand, ouvert, announcement",
    )


def success_by_bid_bucket(con: duckdb.DuckDBPyConnection, where: str | None = None
                          ) -> pl.DataFrame:
    """Declarer win rate by final bid bucket (:data:`BID_BUCKETS`)."""
    return query(con, f"""
        SELECT {_bucket_sql('bid')} AS bid_bucket, min(bid) AS bucket_low, {_rate_sql('won')},
            count_if(overbid)::BIGINT AS overbids, avg(value) AS mean_value
        FROM games WHERE {PLAYED} AND {where_clause(where)}
        GROUP BY bid_bucket ORDER BY bucket_low
    """)


def success_by_seat(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Declarer win rate by the declarer's seat (Forehand, Middlehand, Rearhand, R1)."""
    names = str(list(SEAT_NAMES))
    return declarer_rates(con, {"seat": "declarer", "seat_name": f"{names}[declarer + 1]"},
                          where)


def success_by_matadors(con: duckdb.DuckDBPyConnection, where: str | None = None
                        ) -> pl.DataFrame:
    """Declarer win rate by signed matadors (R12), suit games and grands apart."""
    return declarer_rates(con, {"family": FAMILY, "matadors": "matadors"}, where,
                          extra=f"{FAMILY} <> 'null'")


def success_by_jacks(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Declarer win rate by the number of jacks in the declarer's ten dealt cards."""
    register_hands(con)
    return declarer_rates(con, {"family": FAMILY, "jacks": count("hand_mask", JACKS)}, where,
                          source="declarer_hands")


def success_by_player(con: duckdb.DuckDBPyConnection, where: str | None = None,
                      min_games: int = 1) -> pl.DataFrame:
    """Declarer win rate and list points per declaring player (names as recorded)."""
    return query(con, f"""
        SELECT declarer_name AS player, {_rate_sql('won')}, sum(value)::BIGINT AS list_points,
            avg(value) AS mean_value
        FROM games WHERE {PLAYED} AND {where_clause(where)}
        GROUP BY player HAVING count(*) >= {int(min_games)} ORDER BY n DESC, player
    """)


def bid_distribution(con: duckdb.DuckDBPyConnection, where: str | None = None
                     ) -> pl.DataFrame:
    """How often each final bid occurs among played games, with its share of all of them."""
    return query(con, f"""
        SELECT bid, count(*) AS n, n / sum(n) OVER () AS share
        FROM games WHERE {PLAYED} AND {where_clause(where)}
        GROUP BY bid ORDER BY bid
    """)


def bid_vs_value(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Counts of (final bid, game value) pairs for games that were not overbid (R15)."""
    return query(con, f"""
        SELECT bid, {GAME_VALUE} AS game_value, count(*) AS n
        FROM games WHERE {PLAYED} AND NOT overbid AND {where_clause(where)}
        GROUP BY ALL ORDER BY bid, game_value
    """)


def slack_distribution(con: duckdb.DuckDBPyConnection, where: str | None = None
                       ) -> pl.DataFrame:
    """Slack = game value - final bid for games not overbid, by contract family.

    Overbid games have no slack (their real value is below the bid, R15); see
    :func:`overbid_rates`.
    """
    return query(con, f"""
        SELECT {FAMILY} AS family, {GAME_VALUE} - bid AS slack, count(*) AS n
        FROM games WHERE {PLAYED} AND NOT overbid AND {where_clause(where)}
        GROUP BY ALL ORDER BY family, slack
    """)


def overbid_rates(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Overbid rate (value below the bid, R15) by contract, and the median slack when not."""
    return query(con, f"""
        SELECT contract, {_rate_sql('overbid')},
            median({GAME_VALUE} - bid) FILTER (WHERE NOT overbid) AS median_slack
        FROM games WHERE {PLAYED} AND {where_clause(where)}
        GROUP BY contract ORDER BY {CONTRACT_RANK}
    """)


def auction_summary(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """How often a hand is skipped (all passed, R4) and how often one ends in a penalty."""
    return query(con, f"""
        SELECT 'skipped (all passed)' AS event, {_rate_sql('passed')}
        FROM games WHERE {where_clause(where)}
        UNION ALL
        SELECT 'penalty / aborted', {_rate_sql("outcome IN ('penalty', 'aborted')")}
        FROM games WHERE {where_clause(where)}
    """)


def auction_winners(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Who wins the auction: each seat's share of the hands that found a declarer, and how
    high (mean, median, 90th percentile of the final bid)."""
    names = str(list(SEAT_NAMES))
    return query(con, f"""
        WITH d AS (SELECT declarer, bid FROM games
                   WHERE declarer IS NOT NULL AND {where_clause(where)}),
             total AS (SELECT count(*)::BIGINT AS n FROM d),
             by_seat AS (SELECT declarer AS seat, count(*)::BIGINT AS k, avg(bid) AS mean_bid,
                            median(bid) AS median_bid, quantile_cont(bid, 0.9) AS p90_bid
                         FROM d GROUP BY declarer)
        SELECT seat, {names}[seat + 1] AS seat_name, n, k, k / n AS rate,
            wilson_lo(k, n) AS lo, wilson_hi(k, n) AS hi, mean_bid, median_bid, p90_bid
        FROM by_seat CROSS JOIN total ORDER BY seat
    """)


def _tricks_of(where: str | None) -> str:
    return (f"tricks t JOIN (SELECT game_id, declarer FROM games WHERE {PLAYED} AND "
            f"{where_clause(where)}) g USING (game_id)")


def trick_table(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Per trick number, in one pass over the tricks: card points (``n``, ``mean_points``,
    ``sd_points``, ``max_points``) and who wins it (``k`` tricks won by the declarer, its
    ``rate`` with the Wilson ``lo``..``hi``, and ``leader_share``)."""
    return query(con, f"""
        SELECT trick_no, count(*) AS n, avg(points) AS mean_points,
            stddev_samp(points) AS sd_points, max(points) AS max_points,
            coalesce(count_if(winner = declarer), 0)::BIGINT AS k, k / n AS rate,
            wilson_lo(k, n) AS lo, wilson_hi(k, n) AS hi,
            count_if(winner = leader) / count(*) AS leader_share
        FROM {_tricks_of(where)} GROUP BY trick_no ORDER BY trick_no
    """)


def trick_points(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Card points per trick by trick number: mean, standard deviation and count."""
    return trick_table(con, where).select("trick_no", "n", "mean_points", "sd_points",
                                          "max_points")


def trick_winners(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Who wins which trick: the declarer's share and the leader's share per trick number."""
    return trick_table(con, where).select("trick_no", "n", "k", "rate", "lo", "hi",
                                          "leader_share")


def lineups(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """Hands and played games per origin and bot line-up (``bots``) and, when the archive
    records it, rule set (``rules``): the groups whose statistics must not be pooled.
    Logged games first, then the biggest groups."""
    rules = ", rules::VARCHAR AS rules" if "rules" in columns(con, "games") else ""
    return query(con, f"""
        SELECT * FROM (
            SELECT origin::VARCHAR AS origin, bots::VARCHAR AS bots{rules}, count(*) AS hands,
                count_if({PLAYED})::BIGINT AS played
            FROM games WHERE {where_clause(where)} GROUP BY ALL)
        ORDER BY origin IS DISTINCT FROM 'log', hands DESC, origin, bots{rules and ", rules"}
    """)


def overview(con: duckdb.DuckDBPyConnection, where: str | None = None) -> dict[str, int]:
    """Headline counts: hands, played, skipped, penalty, won, by origin."""
    row = con.execute(f"""
        SELECT count(*), count_if({PLAYED}), count_if(passed), count_if(outcome IN
            ('penalty', 'aborted')), count_if({PLAYED} AND won), count_if(origin = 'log'),
            count_if(origin = 'simulated'), count(DISTINCT session_id)
        FROM games WHERE {where_clause(where)}
    """).fetchall()[0]
    keys = ("hands", "played", "skipped", "penalty", "won", "log", "simulated", "sessions")
    return {k: int(v or 0) for k, v in zip(keys, row, strict=True)}
