"""The report page "Could it have been won?" (from ``skatlog analyze``'s table)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from skatlog.analytics.could_win import could_win

from . import figures as fg
from .html import Column, chart, number, percent, table

if TYPE_CHECKING:
    from .pages import Context


def could_win_page(ctx: Context) -> str:
    """By contract: lost games best play would have won, won games best defence would
    have beaten, and the trick of the deciding card; a note when nothing is analysed."""
    frame = could_win(ctx.con, ctx.where)
    title = "Lost games that best play would have won, by contract (95 % Wilson intervals)"
    if frame.height == 0:
        empty = pl.DataFrame(schema={"contract": pl.String, "n": pl.Int64, "k": pl.Int64,
                                     "rate": pl.Float64, "lo": pl.Float64, "hi": pl.Float64})
        fig = fg.rate_bars(empty, "contract", title, "contract", "share of lost games (%)")
        return chart(fig, "chart-could-win",
                     "None of these games has been analysed yet: run skatlog analyze (with "
                     "the same --where) and build the report again.")
    bars = frame.select(
        "contract", pl.col("lost").alias("n"), pl.col("lost_winnable").alias("k"),
        pl.col("lost_winnable_rate").alias("rate"), pl.col("lost_winnable_lo").alias("lo"),
        pl.col("lost_winnable_hi").alias("hi")).filter(pl.col("n") > 0)
    fig = fg.rate_bars(bars, "contract", title, "contract", "share of lost games (%)")
    lost, winnable = int(frame["lost"].sum()), int(frame["lost_winnable"].sum())
    won, beatable = int(frame["won"].sum()), int(frame["won_beatable"].sum())
    reading = (f"Lost games winnable with best play: {winnable:,} of {lost:,}"
               f"{f' ({percent(winnable / lost)})' if lost else ''}; won games best defence "
               f"would have beaten: {beatable:,} of {won:,}"
               f"{f' ({percent(beatable / won)})' if won else ''}. Every card known, from "
               "the position after the discard.")
    cols = [Column("contract", "contract", str, False), Column("analysed", "analysed", number),
            Column("lost", "lost", number), Column("lost_winnable", "lost, winnable", number),
            Column("lost_winnable_rate", "share", percent),
            Column("lost_winnable_lo", "95 % low", percent),
            Column("lost_winnable_hi", "95 % high", percent),
            Column("won", "won", number), Column("won_beatable", "won, beatable", number),
            Column("won_beatable_rate", "share", percent),
            Column("won_beatable_lo", "95 % low", percent),
            Column("won_beatable_hi", "95 % high", percent),
            Column("deciding_trick", "deciding trick (most often)", number)]
    return (chart(fig, "chart-could-win", reading)
            + table(frame, cols, "t-could-win", csv=ctx.csv))
