"""The report page "House rules": Kontra and Re, Ramsch, Bock (R19-R21), for a part whose
rule set has any of those options."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skatlog.analytics.house_rules import bock_summary, doubling_rates, ramsch_summary

from . import figures as fg
from .html import RATE_COLUMNS, Column, chart, esc, number, percent, table

if TYPE_CHECKING:
    from .pages import Context

#: The options of ``isko`` this page is about.
HOUSE_OPTIONS = ("kontra_re", "ramsch", "bock")


def has_house_options(rules: str | None) -> bool:
    """Whether a rule set's spelling (``isko+kontra_re+ramsch``) names a house option."""
    return bool(rules) and any(o in (rules or "").split("+")[1:] for o in HOUSE_OPTIONS)


def house_rules_page(ctx: Context) -> str:
    """Declarer success by Kontra and Re, the Ramsch hands' outcomes, the Bock rounds."""
    parts: list[str] = []
    doubling = doubling_rates(ctx.con, ctx.where)
    if doubling.height:
        fig = fg.rate_bars(doubling, "said", "Declarer win rate by what the defenders and the "
                           "declarer said (R19, 95 % Wilson intervals)", "calls")
        kontra = doubling.filter(doubling["said"] != "no Kontra")
        said = int(kontra["n"].sum()) if kontra.height else 0
        reading = (f"Kontra was said in {said:,} of {int(doubling['n'].sum()):,} played games"
                   f" ({percent(said / max(1, int(doubling['n'].sum())))}); Kontra doubles "
                   "the list value, Re doubles it again, won or lost.")
        parts.append("<h2>Kontra and Re</h2>" + chart(fig, "chart-kontra", reading) + table(
            doubling, [Column("said", "calls", str, False), *RATE_COLUMNS,
                       Column("share", "share of games", percent),
                       Column("mean_value", "mean list value", number)],
            "t-kontra", csv=ctx.csv))
    ramsch = ramsch_summary(ctx.con, ctx.where)
    if ramsch.height and int(ramsch["hands"][0]):
        parts.append(
            "<h2>Ramsch</h2><p class=\"reading\">Hands that all passed, played each for "
            "himself (R20): the most card points lose them, doubled for a Jungfrau (a player "
            "without a trick); a Durchmarsch (every trick) scores +120.</p>" + table(
                ramsch, [Column("hands", "Ramsch hands", number),
                         Column("durchmarsch", "Durchmarsch", number),
                         Column("jungfrau", "with a Jungfrau", number),
                         Column("ties", "tied for most points", number),
                         Column("mean_loser_points", "loser's mean points", number),
                         Column("mean_loser_value", "loser's mean value", number)],
                "t-ramsch", csv=ctx.csv))
    bock = bock_summary(ctx.con, ctx.where)
    if bock.height:
        parts.append(
            "<h2>Bock rounds</h2><p class=\"reading\">A 60:60 game, a lost game with Kontra "
            "or a list value of 100 or more earns a Bock round: the next hand of each player "
            "counts double (R21).</p>" + table(
                bock, [Column("hands", "hands", str, False), Column("n", "n", number),
                       Column("share", "share", percent),
                       Column("mean_abs_value", "mean |list value|", number)],
                "t-bock", csv=ctx.csv))
    if not parts:
        return (f'<p class="reading">These games ({esc(ctx.part.label)}) were played without '
                "the house options.</p>")
    return "".join(parts)


__all__ = ["HOUSE_OPTIONS", "has_house_options", "house_rules_page"]
