"""How a session's or a player's hands are totalled: plain list points or Seeger-Fabian.

``list`` (the default) is the engine's own list value (R14-R16): the declarer scores the
game's signed value, nobody else scores. ``seeger-fabian`` is the club and tournament list
scoring of docs/rules.md ("Rule sets", Seeger-Fabian): the declarer scores the list value
plus 50 when the game is won and minus 50 when it is lost; when the declarer loses, every
other player at the table scores 40 at a 3-player table and 30 at a 4-player table (where
the dealer sits out each hand and scores the 30 too). Hands without a played game (all
passed, penalty) score nothing either way. Seeger-Fabian is not defined for other table
sizes, so its points there are null. A Ramsch hand (option ``ramsch``, R20) has no declared
game: each player's Ramsch value counts as it is under both scorings, without Seeger-Fabian's
+50/-50 or +40/+30 (the views and :func:`~.seeger_fabian.player_table` add it).

This totals the list values the engine computed; it restates no rule of play. The scoring
is given once here, as SQL and as polars expressions over the same columns, so the views,
the helpers, the report and the web app total alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, cast

if TYPE_CHECKING:  # polars is imported where it is used: the CLI loads this module at start
    import polars as pl

Scoring = Literal["list", "seeger-fabian"]

#: The spellings of ``--scoring``, the default first.
SCORINGS: tuple[Scoring, ...] = ("list", "seeger-fabian")
DEFAULT_SCORING: Scoring = "list"

#: What a total under each scoring is called in tables and pages.
LABELS: dict[Scoring, str] = {"list": "list points", "seeger-fabian": "Seeger-Fabian points"}

WIN_BONUS = 50
LOSS_PENALTY = 50
#: Points each other player at the table gets per game the declarer lost, by table size.
DEFENDER_BONUS = {3: 40, 4: 30}


class ScoringError(ValueError):
    """A scoring name that is not one of :data:`SCORINGS`."""


def parse_scoring(text: str) -> Scoring:
    """The scoring ``text`` names (``list`` or ``seeger-fabian``, case and ``_`` forgiven)."""
    name = text.strip().lower().replace("_", "-")
    if name not in SCORINGS:
        raise ScoringError(f"unknown scoring {text!r}: use one of {', '.join(SCORINGS)}")
    return cast(Scoring, name)


def seeger_fabian(list_value: int, won: bool, table_size: int = 3) -> tuple[int, int]:
    """(declarer's Seeger-Fabian points, each other player's points) for one played game.

    ``list_value`` is the declarer's signed list value (+value won, -2 x value lost, R14).
    """
    if table_size not in DEFENDER_BONUS:
        raise ValueError(f"Seeger-Fabian is defined for tables of 3 or 4, not {table_size}")
    if won:
        return list_value + WIN_BONUS, 0
    return list_value - LOSS_PENALTY, DEFENDER_BONUS[table_size]


def points_sql(scoring: Scoring, *, played: str, declaring: str, won: str = "won",
               value: str = "value", table_size: str = "table_size") -> str:
    """SQL for one player's points in one hand, over SQL expressions: ``played`` (the hand
    was a played game), ``declaring`` (this player declared it), ``won``, ``value`` (the
    declarer's signed list value) and ``table_size`` (players at the table, 3 or 4)."""
    if scoring == "list":
        return f"(CASE WHEN {declaring} THEN {value} ELSE 0 END)"
    bonus = " ".join(f"WHEN {n} THEN {b}" for n, b in DEFENDER_BONUS.items())
    sizes = ", ".join(str(n) for n in DEFENDER_BONUS)
    return (f"(CASE WHEN {table_size} NOT IN ({sizes}) THEN NULL"
            f" WHEN NOT ({played}) THEN 0"
            f" WHEN {declaring} THEN {value} + CASE WHEN {won} THEN {WIN_BONUS}"
            f" ELSE -{LOSS_PENALTY} END"
            f" WHEN {won} THEN 0 ELSE CASE {table_size} {bonus} END END)")


def defined_sql(scoring: Scoring, table_size: str = "table_size") -> str:
    """SQL: whether ``scoring`` gives totals at a table of ``table_size`` players."""
    if scoring == "list":
        return "TRUE"
    return f"({table_size} IN ({', '.join(str(n) for n in DEFENDER_BONUS)}))"


def total_sql(scoring: Scoring, *, value_sum: str, won_games: str, lost_games: str,
              lost_at_table: str, table_size: str = "table_size") -> str:
    """SQL for one player's total over many hands at one table, from aggregates: the sum of
    the list values of the games he declared, how many of them he won and lost, and how many
    games the table lost in all (each a nullable count). The same sums as adding
    :func:`points_sql` hand by hand, without a row per hand and player."""
    value, won, lost, table_lost = (f"coalesce({x}, 0)" for x in
                                    (value_sum, won_games, lost_games, lost_at_table))
    if scoring == "list":
        return f"({value})"
    bonus = " ".join(f"WHEN {n} THEN {b}" for n, b in DEFENDER_BONUS.items())
    return (f"(CASE WHEN {defined_sql(scoring, table_size)} THEN {value} + {WIN_BONUS} * {won}"
            f" - {LOSS_PENALTY} * {lost}"
            f" + (CASE {table_size} {bonus} END) * ({table_lost} - {lost}) END)")


def defined_expr(scoring: Scoring, table_size: pl.Expr) -> pl.Expr:
    """The polars twin of :func:`defined_sql`."""
    import polars as pl

    return pl.lit(True) if scoring == "list" else table_size.is_in(list(DEFENDER_BONUS))


def total_expr(scoring: Scoring, *, value_sum: pl.Expr, won_games: pl.Expr,
               lost_games: pl.Expr, lost_at_table: pl.Expr, table_size: pl.Expr) -> pl.Expr:
    """The polars twin of :func:`total_sql` (Int64, null where the scoring is undefined)."""
    import polars as pl

    value, won, lost, table_lost = (x.fill_null(0).cast(pl.Int64) for x in
                                    (value_sum, won_games, lost_games, lost_at_table))
    if scoring == "list":
        return value
    bonus = pl.lit(None, dtype=pl.Int64)
    for n, b in DEFENDER_BONUS.items():
        bonus = pl.when(table_size == n).then(pl.lit(b, dtype=pl.Int64)).otherwise(bonus)
    return (pl.when(defined_expr(scoring, table_size))
            .then(value + WIN_BONUS * won - LOSS_PENALTY * lost + bonus * (table_lost - lost))
            .otherwise(pl.lit(None, dtype=pl.Int64)))
