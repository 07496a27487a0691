"""Build the HTML report: an index page and one page per question, all aggregated in DuckDB.

:func:`build_report` opens the archive, checks the user's ``where`` filter, computes every
table with :mod:`skatlog.analytics` (small aggregated frames only) and writes the pages plus
one copy of Plotly's JavaScript into the output directory, which then works offline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import plotly.graph_objects as go
import polars as pl
from plotly.offline import get_plotlyjs

from skatlog.analytics import queries as q
from skatlog.analytics.connect import check_where, connect
from skatlog.analytics.seeger_fabian import player_table
from skatlog.analytics.strategy import evaluate

from . import figures as fg
from .html import PLOTLY_FILE, RATE_COLUMNS, Column, chart, esc, number, page, percent, table

DEFAULT_OUT = Path("reports") / "out"
#: Rows shown in the long player tables (the rest are summarised in a note).
MAX_ROWS = 100


@dataclass
class Context:
    """What every page builder gets: the connection, the filter and headline counts."""

    con: duckdb.DuckDBPyConnection
    where: str | None
    overview: dict[str, int]
    strategy_where: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Page:
    """One report page."""

    file: str
    title: str
    description: str
    build: Callable[[Context], str]


@dataclass(frozen=True, slots=True)
class ReportResult:
    """Where the report went and how long it took."""

    index: Path
    pages: tuple[Path, ...]
    seconds: float
    overview: dict[str, int]


def _and(where: str | None, condition: str) -> str:
    return condition if not where or not where.strip() else f"({where}) AND ({condition})"


def _best_worst(frame: pl.DataFrame, label: str, what: str, min_n: int = 30) -> str:
    """A reading: the highest and lowest rate among groups with enough games."""
    big = frame.filter(pl.col("n") >= min_n).sort("rate")
    if big.height == 0:
        return f"No {what} has {min_n} or more games yet, so the rates are still very uncertain."
    lo, hi = big.row(0, named=True), big.row(-1, named=True)
    if big.height == 1:
        return (f"Only {hi[label]} has {min_n}+ games: won {percent(hi['rate'])} "
                f"[{percent(hi['lo'])}, {percent(hi['hi'])}] of {hi['n']}.")
    return (f"Among {what}s with {min_n}+ games, {hi[label]} is won most often "
            f"({percent(hi['rate'])}, n={hi['n']}) and {lo[label]} least often "
            f"({percent(lo['rate'])}, n={lo['n']}).")


# ------------------------------------------------------------------ pages
def _index(ctx: Context) -> str:
    o = ctx.overview
    frame = pl.DataFrame({"what": ["hands", "played", "skipped (all passed)", "penalty/aborted",
                                   "won by the declarer", "from logs", "simulated", "sessions"],
                          "count": [o["hands"], o["played"], o["skipped"], o["penalty"],
                                    o["won"], o["log"], o["simulated"], o["sessions"]]})
    by_origin = q.query(ctx.con, f"""
        SELECT origin::VARCHAR AS origin, outcome::VARCHAR AS outcome, count(*) AS n
        FROM games WHERE {q.where_clause(ctx.where)} GROUP BY ALL ORDER BY origin, outcome""")
    fig = fg.count_bars(by_origin, "outcome", "n", "Hands in the archive by outcome and origin",
                        "outcome", "hands", group="origin", categorical=True)
    played = o["played"]
    reading = (f"{o['hands']} hands: {played} played "
               f"({percent(played / o['hands']) if o['hands'] else 'n/a'}), "
               f"{o['skipped']} skipped; the declarer won {o['won']} of the played games.")
    links = "".join(f'<li><a href="{esc(p.file)}">{esc(p.title)}</a>: {esc(p.description)}</li>'
                    for p in PAGES[1:] if p.file != "strategy.html" or ctx.strategy_where)
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in ctx.notes)
    return (f"<h2>Contents</h2><ul>{links}</ul>{notes}<h2>The archive</h2>"
            + chart(fig, "chart-overview", reading)
            + table(frame, [Column("what", "", str, False), Column("count", "count", number)],
                    "t-overview"))


def _contracts(ctx: Context) -> str:
    frame = q.success_by_contract(ctx.con, ctx.where)
    fig = fg.rate_bars(frame, "game", "Declarer win rate by game type (95 % Wilson intervals)",
                       "game type (contract, hand, announcement)")
    cols = [Column("game", "game type", str, False), *RATE_COLUMNS,
            Column("mean_value", "mean list value", number)]
    return (chart(fig, "chart-contracts", _best_worst(frame, "game", "game type"))
            + table(frame, cols, "t-contracts"))


def _bidding(ctx: Context) -> str:
    dist = q.bid_distribution(ctx.con, ctx.where)
    fig1 = fg.count_bars(dist, "bid", "n", "Distribution of final bids", "final bid",
                         "games", categorical=True)
    top = dist.sort("n", descending=True).head(1)
    reading1 = ("No played games." if top.height == 0 else
                f"The most common final bid is {top['bid'][0]} "
                f"({percent(top['share'][0])} of {dist['n'].sum()} played games).")
    pairs = q.bid_vs_value(ctx.con, ctx.where)
    fig2 = fg.bubble(pairs, "bid", "game_value", "n",
                     "Final bid against game value (games not overbid)", "final bid",
                     "game value")
    slack = q.slack_distribution(ctx.con, ctx.where)
    fig3 = fg.count_bars(slack, "slack", "n", "Slack between game value and bid",
                         "game value - bid", "games", group="family")
    fig3.update_layout(barmode="stack", bargap=0)
    over = q.overbid_rates(ctx.con, ctx.where)
    fig4 = fg.rate_bars(over, "contract", "Overbid rate by contract (R15)", "contract",
                        "overbid rate (%)", full_scale=False)
    median = slack.select((pl.col("slack") * pl.col("n")).sum() / pl.col("n").sum()).item() \
        if slack.height else None
    reading3 = ("No games." if median is None else
                f"On average a game not overbid was worth {median:.1f} more than its bid.")
    k, n = int(over["k"].sum()), int(over["n"].sum())
    reading4 = (f"{k} of {n} played games were overbid ({percent(k / n) if n else 'n/a'})."
                if n else "No played games.")
    over_cols = [Column("contract", "contract", str, False), Column("n", "n", number),
                 Column("k", "overbid", number), Column("rate", "overbid rate", percent),
                 Column("lo", "95 % low", percent), Column("hi", "95 % high", percent),
                 Column("median_slack", "median slack (not overbid)", number)]
    return (chart(fig1, "chart-bids", reading1)
            + table(dist, [Column("bid", "final bid", number), Column("n", "games", number),
                           Column("share", "share", percent)], "t-bids")
            + chart(fig2, "chart-bid-value", "Points above the dashed line are games worth "
                    "more than their bid; the bigger the bubble, the more games.")
            + table(pairs, [Column("bid", "final bid", number),
                            Column("game_value", "game value", number),
                            Column("n", "games", number)], "t-bid-value")
            + chart(fig3, "chart-slack", reading3)
            + table(slack, [Column("family", "game family", str, False),
                            Column("slack", "game value - bid", number),
                            Column("n", "games", number)], "t-slack")
            + chart(fig4, "chart-overbid", reading4) + table(over, over_cols, "t-overbid"))


def _bid_levels(ctx: Context) -> str:
    frame = q.success_by_bid_bucket(ctx.con, ctx.where)
    fig = fg.rate_bars(frame, "bid_bucket", "Declarer win rate by final bid",
                       "final bid (bucket)")
    cols = [Column("bid_bucket", "final bid", str, False), *RATE_COLUMNS,
            Column("overbids", "overbid", number), Column("mean_value", "mean list value",
                                                           number)]
    return (chart(fig, "chart-bid-levels", _best_worst(frame, "bid_bucket", "bid level"))
            + table(frame, cols, "t-bid-levels"))


def _seats(ctx: Context) -> str:
    wins = q.success_by_seat(ctx.con, ctx.where)
    auction = q.auction_winners(ctx.con, ctx.where)
    skipped = q.auction_summary(ctx.con, ctx.where)
    fig1 = fg.rate_bars(wins, "seat_name", "Declarer win rate by seat", "declarer's seat")
    fig2 = fg.rate_bars(auction, "seat_name", "Who wins the auction",
                        "seat", "share of the auctions won (%)")
    reading2 = "No auction found a declarer." if auction.height == 0 else (
        "The auction goes to " + ", ".join(
            f"{r['seat_name']} {percent(r['rate'])}" for r in auction.iter_rows(named=True))
        + f" of {auction['n'][0]} declared hands.")
    skip = skipped.row(0, named=True)
    reading_skip = (f"{skip['k']} of {skip['n']} hands were skipped "
                    f"({percent(skip['rate'])} [{percent(skip['lo'])}, {percent(skip['hi'])}]).")
    auction_cols = [Column("seat_name", "seat", str, False), Column("n", "declared hands",
                                                                    number),
                    Column("k", "won the auction", number), Column("rate", "share", percent),
                    Column("lo", "95 % low", percent), Column("hi", "95 % high", percent),
                    Column("mean_bid", "mean bid", number), Column("median_bid", "median bid",
                                                                   number),
                    Column("p90_bid", "90th percentile bid", number)]
    skip_cols = [Column("event", "event", str, False), Column("n", "hands", number),
                 Column("k", "count", number), Column("rate", "rate", percent),
                 Column("lo", "95 % low", percent), Column("hi", "95 % high", percent)]
    return (chart(fig1, "chart-seat-wins", _best_worst(wins, "seat_name", "seat"))
            + table(wins, [Column("seat_name", "seat", str, False), *RATE_COLUMNS], "t-seats")
            + chart(fig2, "chart-auction", reading2) + table(auction, auction_cols, "t-auction")
            + f'<p class="reading">{esc(reading_skip)}</p>'
            + table(skipped, skip_cols, "t-skipped"))


def _matadors(ctx: Context) -> str:
    mats = q.success_by_matadors(ctx.con, ctx.where)
    jacks = q.success_by_jacks(ctx.con, ctx.where)
    fig1 = fg.rate_lines(mats, "matadors", "family", "Declarer win rate by matadors (R12)",
                         "matadors (+ with, - without)")
    fig2 = fg.rate_lines(jacks, "jacks", "family", "Declarer win rate by jacks dealt",
                         "jacks among the declarer's ten dealt cards")
    suit = mats.filter((pl.col("family") == "suit") & (pl.col("n") >= 30)).sort("matadors")
    reading1 = "Too few suit games per matador count for a reading."
    if suit.height >= 2:
        low, high = suit.row(0, named=True), suit.row(-1, named=True)
        reading1 = (f"Suit games with {high['matadors']:+d} matadors are won "
                    f"{percent(high['rate'])}, with {low['matadors']:+d} "
                    f"{percent(low['rate'])} (+ with, - without).")
    cols_m = [Column("family", "contract family", str, False),
              Column("matadors", "matadors", number), *RATE_COLUMNS]
    cols_j = [Column("family", "contract family", str, False), Column("jacks", "jacks", number),
              *RATE_COLUMNS]
    by_jacks = jacks.filter(pl.col("n") >= 30)
    reading2 = ("Too few games per jack count for a reading." if by_jacks.height < 2 else
                "Win rates by jacks dealt: " + "; ".join(
                    f"{r['family']} {r['jacks']}: {percent(r['rate'])}"
                    for r in by_jacks.iter_rows(named=True)) + ".")
    return (chart(fig1, "chart-matadors", reading1) + table(mats, cols_m, "t-matadors")
            + chart(fig2, "chart-jacks", reading2) + table(jacks, cols_j, "t-jacks"))


def _players(ctx: Context) -> str:
    players = player_table(ctx.con, ctx.where, "player")
    shown = players.sort(["hands", "player"], descending=[True, False]).head(MAX_ROWS)
    top = shown.sort("seeger_fabian", descending=True).head(20)
    fig = fg.count_bars(top, "player", "seeger_fabian",
                        "Seeger-Fabian points of the most active players",
                        "player", "Seeger-Fabian points", categorical=True)
    reading = ("No players." if top.height == 0 else
               f"{top['player'][0]} leads with {top['seeger_fabian'][0]} Seeger-Fabian points "
               f"({top['list_points'][0]} list points) over {top['hands'][0]} hands.")
    cols = [Column("hands", "hands", number), Column("n", "declared", number),
            Column("k", "won", number), Column("rate", "win rate", percent),
            Column("lo", "95 % low", percent), Column("hi", "95 % high", percent),
            Column("list_points", "list points", number),
            Column("seeger_fabian", "Seeger-Fabian", number)]
    name = Column("player", "player", str, False)
    clubs = player_table(ctx.con, ctx.where, "club", first=MAX_ROWS // 2).head(MAX_ROWS * 2)
    sessions = player_table(ctx.con, ctx.where, "session", first=MAX_ROWS // 3)
    session_ids = sessions["session_id"].unique()
    note = (f"{players.height} players in all; the {shown.height} with the most hands are "
            "shown. Seeger-Fabian: declarer +value+50 won, value-50 lost, +40 to each other "
            "player per lost game (RULES.md, Variants).")
    return (chart(fig, "chart-players", reading) + f'<p class="note">{esc(note)}</p>'
            + table(shown, [name, *cols], "t-players") + "<h2>Per club</h2>"
            + table(clubs, [Column("club", "club", str, False), name, *cols], "t-clubs")
            + f"<h2>Per session (first {session_ids.len()})</h2>"
            + table(sessions, [Column("session_id", "session", str, False), name, *cols],
                    "t-sessions"))


def _tricks(ctx: Context) -> str:
    points = q.trick_points(ctx.con, ctx.where)
    winners = q.trick_winners(ctx.con, ctx.where)
    fig1 = go.Figure(go.Bar(x=points["trick_no"].to_list(), y=points["mean_points"].to_list(),
                            error_y={"type": "data", "array": points["sd_points"].to_list()},
                            name="mean points"))
    fig1.update_layout(title="Card points per trick (mean, whiskers one standard deviation)",
                       xaxis_title="trick number", yaxis_title="card points", **fg.LAYOUT)
    fig2 = fg.rate_bars(winners, "trick_no", "Share of each trick won by the declarer",
                        "trick number", "won by the declarer (%)")
    richest = points.sort("mean_points").tail(1)
    reading1 = ("No tricks." if richest.height == 0 else
                f"Trick {richest['trick_no'][0]} carries the most points on average "
                f"({richest['mean_points'][0]:.1f}).")
    reading2 = _best_worst(winners.with_columns(pl.format("trick {}", "trick_no").alias("t")),
                           "t", "trick").replace(" is won most often", " goes to the declarer "
                                                 "most often").replace(" least often",
                                                                       " least often")
    return (chart(fig1, "chart-trick-points", reading1)
            + table(points, [Column("trick_no", "trick", number), Column("n", "tricks", number),
                             Column("mean_points", "mean points", number),
                             Column("sd_points", "sd", number),
                             Column("max_points", "max", number)], "t-trick-points")
            + chart(fig2, "chart-trick-winners", reading2)
            + table(winners, [Column("trick_no", "trick", number), *RATE_COLUMNS[:2],
                              Column("rate", "declarer's share", percent),
                              Column("lo", "95 % low", percent), Column("hi", "95 % high",
                                                                       percent),
                              Column("leader_share", "leader wins", percent)],
                    "t-trick-winners"))


def _strategy(ctx: Context) -> str:
    verdicts = evaluate(ctx.con, ctx.strategy_where)
    rows = []
    for v in verdicts:
        d = v.difference
        rows.append({
            "advice": v.advice.quote, "claim": v.advice.claim, "n": v.matching.n,
            "k": v.matching.k, "rate": v.matching.rate, "lo": v.matching.lo,
            "hi": v.matching.hi, "contrast": v.contrast.format() if v.contrast else "",
            "difference": "" if d is None else
            f"{100 * d[0]:+.1f} [{100 * d[1]:+.1f}, {100 * d[2]:+.1f}] points",
            "verdict": v.verdict, "reason": v.reason, "key": v.advice.key})
    frame = pl.DataFrame(rows)
    fig = go.Figure()
    fig.add_trace(go.Bar(x=[r["key"] for r in rows], y=fg._pct(frame, "rate"),
                         error_y=fg._whiskers(frame), name="hands matching the advice"))
    contrast = [v.contrast for v in verdicts]
    cframe = pl.DataFrame({
        "rate": [c.rate if c else None for c in contrast],
        "lo": [c.lo if c else None for c in contrast],
        "hi": [c.hi if c else None for c in contrast]})
    fig.add_trace(go.Bar(x=[r["key"] for r in rows], y=fg._pct(cframe, "rate"),
                         error_y=fg._whiskers(cframe), name="contrast group"))
    fig.update_layout(title="Strategy advice under simulation: success rate of matching hands",
                      xaxis_title="advice", yaxis_title="success rate (%)", barmode="group",
                      **fg.LAYOUT)
    fig.update_yaxes(range=[0, 100])
    counts = {k: sum(v.verdict == k for v in verdicts)
              for k in ("supported", "not supported", "inconclusive")}
    reading = (f"{counts['supported']} pieces of advice supported, {counts['not supported']} "
               f"not supported, {counts['inconclusive']} inconclusive.")
    bots = q.query(ctx.con, f"""SELECT coalesce(bots::VARCHAR, '(unknown)') AS bots,
        count(*) AS n FROM games WHERE {q.where_clause(ctx.strategy_where)} GROUP BY ALL
        ORDER BY n DESC""")
    verdict = Column("verdict", "verdict", str, False)
    body = table(frame, [Column("key", "key", str, False), Column("advice", "advice", str, False),
                         Column("claim", "what is measured", str, False),
                         Column("n", "n", number), Column("k", "successes", number),
                         Column("rate", "rate", percent), Column("lo", "95 % low", percent),
                         Column("hi", "95 % high", percent),
                         Column("contrast", "contrast group", str, False),
                         Column("difference", "difference", str, False), verdict,
                         Column("reason", "reason", str, False)], "t-strategy")
    for word in ("supported", "not supported", "inconclusive"):
        body = body.replace(f'data-col="verdict">{word}<', f'data-col="verdict" '
                            f'class="verdict-{word.replace(" ", "-")}">{word}<')
    note = ("Hands are the declarer's ten dealt cards; games from the bots "
            + ", ".join(f"{r['bots']} ({r['n']} hands)" for r in bots.iter_rows(named=True))
            + ". Verdicts: supported when the 95 % interval lies on the advice's side, not "
              "supported when it lies on the other side (or pins a difference within ±3 "
              "points), else inconclusive; fewer than 30 games in a group is inconclusive.")
    return chart(fig, "chart-strategy", reading) + f'<p class="note">{esc(note)}</p>' + body


PAGES: tuple[Page, ...] = (
    Page("index.html", "skatlog report", "overview", _index),
    Page("contracts.html", "Declarer success by contract",
         "win rate by contract, hand and announcement", _contracts),
    Page("bidding.html", "Bids and game values",
         "bid distribution, bid against value, slack, overbids", _bidding),
    Page("bid-levels.html", "Win rate by bid level", "win rate by final bid", _bid_levels),
    Page("seats.html", "Seat effects", "win rate by seat, who wins the auction, skipped hands",
         _seats),
    Page("matadors.html", "Matadors and jacks", "win rate by matadors and by jacks dealt",
         _matadors),
    Page("players.html", "Players", "list points and Seeger-Fabian points per player, club "
         "and session", _players),
    Page("tricks.html", "Tricks", "points per trick and who wins which trick", _tricks),
    Page("strategy.html", "Strategy advice under simulation",
         "the rule text's bidding advice tested on simulated games", _strategy),
)


def _strategy_filter(con: duckdb.DuckDBPyConnection, where: str | None) -> str | None:
    """The games the strategy page uses: simulated ones, by the ``rules`` bot if present."""
    simulated = _and(where, "origin = 'simulated'")
    rows = con.execute(f"SELECT count(*), count_if(bots::VARCHAR ILIKE '%rules%') FROM games "
                       f"WHERE {q.where_clause(simulated)}").fetchall()[0]
    if not rows[0]:
        return None
    return _and(simulated, "bots::VARCHAR ILIKE '%rules%'") if rows[1] else simulated


def build_report(archive: Path | str, out: Path | str = DEFAULT_OUT, where: str | None = None,
                 *, inline_js: bool = True) -> ReportResult:
    """Write the report for ``archive`` (games selected by ``where``) into ``out``."""
    started = time.perf_counter()
    con = connect(archive)
    check_where(con, where)
    out_dir = Path(out)
    ctx = Context(con, where, q.overview(con, where))
    ctx.strategy_where = _strategy_filter(con, where)
    if where:
        ctx.notes.append(f"Filter: {where}")
    if ctx.strategy_where is None:
        ctx.notes.append("No simulated games selected, so there is no strategy page.")
    js = get_plotlyjs()
    pages = [p for p in PAGES if p.file != "strategy.html" or ctx.strategy_where]
    nav = [(p.file, "Overview" if p.file == "index.html" else p.title) for p in pages]
    subtitle = f"{ctx.overview['hands']} hands" + (f" where {where}" if where else "")
    # every page is built before the first is written: a query that fails (a damaged
    # archive) leaves the output folder as it was
    texts = {p.file: page(p.title, p.build(ctx), nav, p.file, subtitle,
                          plotly_js=js if inline_js else None) for p in pages}
    con.close()
    out_dir.mkdir(parents=True, exist_ok=True)
    if not inline_js:
        (out_dir / PLOTLY_FILE).write_text(js, encoding="utf-8")
    written = []
    for name, text in texts.items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return ReportResult(out_dir / "index.html", tuple(written),
                        time.perf_counter() - started, ctx.overview)
