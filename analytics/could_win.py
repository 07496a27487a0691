""""Could it have been won?": the ``analysis`` table (``skatlog analyze``) by contract.

Per contract, over the analysed played games the filter selects: the share of lost games
that best play would have won (from the position after the discard), the share of won games
that best defence would have beaten, with Wilson 95 % intervals, and the trick in which the
deciding card (the first that changed the best-play result) fell most often.
"""

from __future__ import annotations

import duckdb
import polars as pl

from .connect import query, where_clause
from .stats import wilson_interval


def could_win(con: duckdb.DuckDBPyConnection, where: str | None = None) -> pl.DataFrame:
    """One row per contract: ``analysed``, ``lost``, ``lost_winnable`` (+ rate, lo, hi),
    ``won``, ``won_beatable`` (+ rate, lo, hi), ``deciding_trick`` (the most frequent
    trick of the first changing card, null when none)."""
    frame = query(con, f"""
        WITH g AS (SELECT game_id, contract, won FROM games
                   WHERE outcome = 'played' AND {where_clause(where)})
        SELECT g.contract,
               count(*) AS analysed,
               count(*) FILTER (WHERE NOT g.won) AS lost,
               count(*) FILTER (WHERE NOT g.won AND a.dd_won) AS lost_winnable,
               count(*) FILTER (WHERE g.won) AS won,
               count(*) FILTER (WHERE g.won AND NOT a.dd_won) AS won_beatable,
               mode(a.first_change_trick) AS deciding_trick
        FROM g JOIN analysis a USING (game_id)
        GROUP BY g.contract ORDER BY analysed DESC, g.contract""")
    rows = []
    for row in frame.iter_rows(named=True):
        for part, of in (("lost_winnable", "lost"), ("won_beatable", "won")):
            lo, hi = wilson_interval(row[part], row[of])
            row[f"{part}_rate"] = row[part] / row[of] if row[of] else None
            row[f"{part}_lo"], row[f"{part}_hi"] = (lo, hi) if row[of] else (None, None)
        rows.append(row)
    return pl.DataFrame(rows) if rows else frame
