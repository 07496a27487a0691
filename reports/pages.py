"""The pages of one report part (a bot line-up and rule set): each a chart-and-table story.

Every builder gets a :class:`Context` (the connection, the part's SQL filter and its
headline counts), asks :mod:`skatlog.analytics` for small aggregated frames and returns the
page body. Long tables are collapsed and their full rows handed to the context as CSV.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import polars as pl

from skatlog.analytics import queries as q
from skatlog.analytics.experiments import ExperimentResult, PairedEffect, experiment_results
from skatlog.analytics.scoring import DEFAULT_SCORING, LABELS, Scoring
from skatlog.analytics.seeger_fabian import player_table, session_table
from skatlog.analytics.stats import proportion
from skatlog.analytics.strategy import bot_rates, evaluate

from . import figures as fg
from .could_win import could_win_page
from .house_rules import has_house_options, house_rules_page
from .html import RATE_COLUMNS, Column, chart, esc, number, percent, plural, table
from .parts import Part

#: Players in the chart's pool, and the limit of the per-club and per-session tables.
MAX_ROWS = 100


@dataclass
class Context:
    """What every page builder gets: the connection, the part's filter and its counts."""

    con: duckdb.DuckDBPyConnection
    where: str | None  # the user's filter and the part's condition
    part: Part
    overview: dict[str, int]
    files: dict[str, bytes] = field(default_factory=dict)  # CSV downloads, by file name
    scoring: Scoring = DEFAULT_SCORING  # how player and session totals are scored
    root: Path | None = None  # the archive folder (its experiment manifests)

    def csv(self, name: str, frame: pl.DataFrame) -> None:
        """Offer ``frame`` as the download ``name`` beside the page."""
        self.files[name] = frame.write_csv().encode("utf-8")


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a part."""

    file: str
    title: str
    nav: str  # the short name in the navigation bar
    description: str
    build: Callable[[Context], str]
    simulated_only: bool = False
    house_only: bool = False  # only for a rule set with Kontra/Re, Ramsch or Bock
    #: only for the modern game: the strategy advice is the modern rule text's, and the
    #: solver (the could-it-be-won page) plays the modern contracts, not Foster's (F5)
    modern_only: bool = False


def _best_worst(frame: pl.DataFrame, label: str, what: str, min_n: int = 30) -> str:
    """A reading: the highest and lowest rate among groups with enough games."""
    big = frame.filter(pl.col("n") >= min_n).sort("rate")
    if big.height == 0:
        return f"No {what} has {min_n} or more games yet, so the rates are still very uncertain."
    lo, hi = big.row(0, named=True), big.row(-1, named=True)
    if big.height == 1:
        return (f"Only {hi[label]} has {min_n}+ games: won {percent(hi['rate'])} "
                f"[{percent(hi['lo'])}, {percent(hi['hi'])}] of {hi['n']:,}.")
    return (f"Among {what}s with {min_n}+ games, {hi[label]} is won most often "
            f"({percent(hi['rate'])}, n={hi['n']:,}) and {lo[label]} least often "
            f"({percent(lo['rate'])}, n={lo['n']:,}).")


def overview_table(o: dict[str, int], table_id: str = "t-overview") -> str:
    """The headline counts of :func:`skatlog.analytics.queries.overview` as a table."""
    frame = pl.DataFrame({"what": ["hands", "played", "skipped (all passed)", "penalty/aborted",
                                   "won by the declarer", "from logs", "simulated", "sessions"],
                          "count": [o["hands"], o["played"], o["skipped"], o["penalty"],
                                    o["won"], o["log"], o["simulated"], o["sessions"]]})
    return table(frame, [Column("what", "", str, False), Column("count", "count", number)],
                 table_id)


def overview_reading(o: dict[str, int]) -> str:
    """``1,000,000 hands: 802,298 played (80.2 %), ...``."""
    share = percent(o["played"] / o["hands"]) if o["hands"] else "n/a"
    return (f"{plural(o['hands'], 'hand')}: {o['played']:,} played ({share}), "
            f"{o['skipped']:,} skipped; the declarer won {o['won']:,} of the played games.")


# ------------------------------------------------------------------ pages
def _index(ctx: Context) -> str:
    by_outcome = q.query(ctx.con, f"""
        SELECT outcome::VARCHAR AS outcome, count(*) AS n
        FROM games WHERE {q.where_clause(ctx.where)} GROUP BY ALL ORDER BY outcome""")
    fig = fg.count_bars(by_outcome, "outcome", "n", "Hands by outcome", "outcome", "hands",
                        categorical=True)
    links = "".join(f'<li><a href="{esc(p.file)}">{esc(p.title)}</a>: {esc(p.description)}</li>'
                    for p in pages_for(ctx.part)[1:])
    return (f"<h2>Contents</h2><ul>{links}</ul><h2>These games</h2>"
            + chart(fig, "chart-overview", overview_reading(ctx.overview))
            + overview_table(ctx.overview))


def _contracts(ctx: Context) -> str:
    frame = q.success_by_contract(ctx.con, ctx.where)
    fig = fg.rate_bars(frame, "game", "Declarer win rate by game type (95 % Wilson intervals)",
                       "game type (contract, hand, announcement)")
    cols = [Column("game", "game type", str, False), *RATE_COLUMNS,
            Column("mean_value", "mean list value", number)]
    return (chart(fig, "chart-contracts", _best_worst(frame, "game", "game type"))
            + table(frame, cols, "t-contracts", csv=ctx.csv))


def _overbids(ctx: Context) -> str:
    """The overbid rates: a chart with every bar labelled, or one sentence when no game
    was overbid (a chart of empty bars and a table of zeros tell nothing)."""
    over = q.overbid_rates(ctx.con, ctx.where)
    k, n = int(over["k"].sum()), int(over["n"].sum())
    if n == 0:
        return '<p class="reading">No played games, so no overbids.</p>'
    slack = Column("median_slack", "median slack (not overbid)", number)
    if k == 0:
        bound = proportion(0, n).hi
        return (f'<h2>Overbids (R15)</h2><p class="reading">None of the {n:,} played games '
                f"was overbid (95 % upper bound {percent(bound)}).</p>"
                + table(over, [Column("contract", "contract", str, False),
                               Column("n", "played", number), slack], "t-overbid"))
    fig = fg.rate_bars(over, "contract", "Overbid rate by contract (R15)", "contract",
                       "overbid rate (%)", full_scale=False)
    cols = [Column("contract", "contract", str, False), Column("n", "n", number),
            Column("k", "overbid", number), Column("rate", "overbid rate", percent),
            Column("lo", "95 % low", percent), Column("hi", "95 % high", percent), slack]
    return (chart(fig, "chart-overbid",
                  f"{k:,} of {n:,} played games were overbid ({percent(k / n)}).")
            + table(over, cols, "t-overbid", csv=ctx.csv))


def _bidding(ctx: Context) -> str:
    dist = q.bid_distribution(ctx.con, ctx.where)
    fig1 = fg.count_bars(dist, "bid", "n", "Distribution of final bids", "final bid",
                         "games", categorical=True)
    top = dist.sort("n", descending=True).head(1)
    reading1 = ("No played games." if top.height == 0 else
                f"The most common final bid is {top['bid'][0]} "
                f"({percent(top['share'][0])} of {int(dist['n'].sum()):,} played games).")
    pairs = q.bid_vs_value(ctx.con, ctx.where)
    fig2 = fg.bubble(pairs, "bid", "game_value", "n",
                     "Final bid against game value (games not overbid)", "final bid",
                     "game value")
    slack = q.slack_distribution(ctx.con, ctx.where)
    fig3 = fg.count_bars(slack, "slack", "n", "Slack between game value and bid",
                         "game value - bid", "games", group="family", stacked=True)
    median = slack.select((pl.col("slack") * pl.col("n")).sum() / pl.col("n").sum()).item() \
        if slack.height else None
    reading3 = ("No games." if median is None else
                f"On average a game not overbid was worth {median:.1f} more than its bid.")
    return (chart(fig1, "chart-bids", reading1)
            + table(dist, [Column("bid", "final bid", number), Column("n", "games", number),
                           Column("share", "share", percent)], "t-bids", csv=ctx.csv)
            + chart(fig2, "chart-bid-value", "Points above the dashed line are games worth "
                    "more than their bid; the bigger the bubble, the more games.")
            + table(pairs, [Column("bid", "final bid", number),
                            Column("game_value", "game value", number),
                            Column("n", "games", number)], "t-bid-value", csv=ctx.csv)
            + chart(fig3, "chart-slack", reading3)
            + table(slack, [Column("family", "game family", str, False),
                            Column("slack", "game value - bid", number),
                            Column("n", "games", number)], "t-slack", csv=ctx.csv)
            + _overbids(ctx))


def _bid_levels(ctx: Context) -> str:
    frame = q.success_by_bid_bucket(ctx.con, ctx.where)
    fig = fg.rate_bars(frame, "bid_bucket", "Declarer win rate by final bid",
                       "final bid (bucket)")
    cols = [Column("bid_bucket", "final bid", str, False), *RATE_COLUMNS,
            Column("overbids", "overbid", number), Column("mean_value", "mean list value",
                                                           number)]
    return (chart(fig, "chart-bid-levels", _best_worst(frame, "bid_bucket", "bid level"))
            + table(frame, cols, "t-bid-levels", csv=ctx.csv))


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
        + f" of {plural(int(auction['n'][0]), 'declared hand')}.")
    skip = skipped.row(0, named=True)
    reading_skip = (f"{skip['k']:,} of {plural(skip['n'], 'hand')} "
                    f"{'was' if skip['k'] == 1 else 'were'} skipped "
                    f"({percent(skip['rate'])} [{percent(skip['lo'])}, {percent(skip['hi'])}]).")
    auction_cols = [Column("seat_name", "seat", str, False),
                    Column("n", "declared hands", number),
                    Column("k", "won the auction", number), Column("rate", "share", percent),
                    Column("lo", "95 % low", percent), Column("hi", "95 % high", percent),
                    Column("mean_bid", "mean bid", number),
                    Column("median_bid", "median bid", number),
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
    return (chart(fig1, "chart-matadors", reading1)
            + table(mats, cols_m, "t-matadors", csv=ctx.csv)
            + chart(fig2, "chart-jacks", reading2)
            + table(jacks, cols_j, "t-jacks", csv=ctx.csv))


#: What each scoring's totals are, for the players page.
SCORING_NOTES: dict[Scoring, str] = {
    "list": "Totals are plain list points: the declarer scores the game's list value, the "
            "others nothing (R16). skatlog report --scoring seeger-fabian totals them by "
            "Seeger-Fabian instead.",
    "seeger-fabian": "Totals are Seeger-Fabian points: the declarer scores the list value "
                     "+50 when won and -50 when lost; each other player at the table gets "
                     "+40 per lost game at a 3-player table and +30 at a 4-player table (the "
                     "dealer who sits out included). Hands without a game score nothing.",
}


def _session_rows(sessions: pl.DataFrame) -> pl.DataFrame:
    """The sessions view's rows with players and totals as one readable cell."""
    rows = [{"session_id": r["session_id"], "hands": r["hands"],
             "table_size": r["table_size"],
             "totals": " · ".join(f"{name} {number(total)}" for name, total in
                                  zip(r["players"] or [], r["totals"] or [], strict=True)),
             "winners": ", ".join(r["winners"] or [])}
            for r in sessions.iter_rows(named=True)]
    return pl.DataFrame(rows, schema={"session_id": pl.String, "hands": pl.Int64,
                                      "table_size": pl.Int64, "totals": pl.String,
                                      "winners": pl.String})


def _players(ctx: Context) -> str:
    label = LABELS[ctx.scoring]
    sf = ctx.scoring == "seeger-fabian"
    players = player_table(ctx.con, ctx.where, "player", scoring=ctx.scoring).sort(
        ["hands", "player"], descending=[True, False])
    top = players.head(MAX_ROWS).sort("points", descending=True, nulls_last=True).head(20)
    fig = fg.count_bars(top, "player", "points", f"{label.capitalize()} of the most active "
                        "players", "player", label, categorical=True)
    also = f" ({number(top['list_points'][0])} list points)" if sf and top.height else ""
    reading = ("No players." if top.height == 0 else
               f"{top['player'][0]} leads with {number(top['points'][0])} {label}{also} over "
               f"{plural(top['hands'][0], 'hand')}.")
    cols = [Column("hands", "hands", number)]
    if players.height and players["sat_out"].sum():
        cols.append(Column("sat_out", "sat out (dealer)", number))
    cols += [Column("n", "declared", number),
             Column("k", "won", number), Column("rate", "win rate", percent),
             Column("lo", "95 % low", percent), Column("hi", "95 % high", percent),
             Column("list_points", "list points", number)]
    if sf:
        cols.append(Column("seeger_fabian", "Seeger-Fabian", number))
    name = Column("player", "player", str, False)
    n_clubs = ctx.con.execute(f"""SELECT count(DISTINCT coalesce(nullif(club::VARCHAR, ''),
        '(no club)')) FROM games WHERE {q.where_clause(ctx.where)}""").fetchall()[0][0]
    clubs_part = ("" if n_clubs < 2 else "<h2>Per club</h2>" + table(
        player_table(ctx.con, ctx.where, "club", first=MAX_ROWS // 2,
                     scoring=ctx.scoring).head(MAX_ROWS * 2),
        [Column("club", "club", str, False), name, *cols], "t-clubs", csv=ctx.csv))
    sessions_part = ""
    if ctx.overview["sessions"]:  # the per-session tables only where sessions were recorded
        totals = _session_rows(session_table(ctx.con, ctx.where, ctx.scoring,
                                             first=MAX_ROWS // 3))
        sessions = player_table(ctx.con, ctx.where, "session", first=MAX_ROWS // 3,
                                scoring=ctx.scoring)
        shown = plural(sessions["session_id"].n_unique(), "session")
        sessions_part = (
            f"<h2>Sessions (the first {shown}): {esc(label)}</h2>"
            + table(totals, [Column("session_id", "session", str, False),
                             Column("hands", "hands", number),
                             Column("table_size", "players at the table", number),
                             Column("totals", label, str, False),
                             Column("winners", "winners", str, False)],
                    "t-session-totals", csv=ctx.csv)
            + f"<h2>Per session and player (the first {shown})</h2>"
            + table(sessions, [Column("session_id", "session", str, False), name, *cols],
                    "t-sessions", csv=ctx.csv))
    note = (f"{plural(players.height, 'player')}, the most active first. The chart shows the "
            f"20 best of the {min(MAX_ROWS, players.height):,} most active. "
            + SCORING_NOTES[ctx.scoring])
    return (chart(fig, "chart-players", reading) + f'<p class="note">{esc(note)}</p>'
            + table(players, [name, *cols], "t-players", csv=ctx.csv)
            + clubs_part + sessions_part)


def _tricks(ctx: Context) -> str:
    points = winners = q.trick_table(ctx.con, ctx.where)
    fig1 = fg.error_bars(points["trick_no"].to_list(), points["mean_points"].to_list(),
                         points["sd_points"].to_list(), "mean points",
                         "Card points per trick (mean, whiskers one standard deviation)",
                         "trick number", "card points")
    fig2 = fg.rate_bars(winners, "trick_no", "Share of each trick won by the declarer",
                        "trick number", "won by the declarer (%)")
    richest = points.sort("mean_points").tail(1)
    reading1 = ("No tricks." if richest.height == 0 else
                f"Trick {richest['trick_no'][0]} carries the most points on average "
                f"({richest['mean_points'][0]:.1f}).")
    reading2 = _best_worst(winners.with_columns(pl.format("trick {}", "trick_no").alias("t")),
                           "t", "trick").replace(" is won most often", " goes to the declarer "
                                                 "most often")
    return (chart(fig1, "chart-trick-points", reading1)
            + table(points, [Column("trick_no", "trick", number), Column("n", "tricks", number),
                             Column("mean_points", "mean points", number),
                             Column("sd_points", "sd", number),
                             Column("max_points", "max", number)], "t-trick-points")
            + chart(fig2, "chart-trick-winners", reading2)
            + table(winners, [Column("trick_no", "trick", number), *RATE_COLUMNS[:2],
                              Column("rate", "declarer's share", percent),
                              Column("lo", "95 % low", percent),
                              Column("hi", "95 % high", percent),
                              Column("leader_share", "leader wins", percent)],
                    "t-trick-winners"))


def _verdict_class(column: str, value: object) -> str:
    return f"verdict-{str(value).replace(' ', '-')}" if column == "verdict" else ""


def _rates_beside_people(ctx: Context) -> str:
    """The bots' success rates, pass rate and contract mix beside human play."""
    rates = pl.from_arrow(bot_rates(ctx.con, ctx.where))
    assert isinstance(rates, pl.DataFrame)
    rates = rates.with_columns(
        pl.when(pl.col("human").is_null()).then(pl.lit(""))
        .otherwise(pl.format("{} points", ((pl.col("rate") - pl.col("human")) * 100)
                             .round(1))).alias("gap"))
    body = table(rates, [Column("kind", "games", str, False),
                         Column("n", "n", number),
                         Column("share", "share of played games (passed: of hands)", percent),
                         Column("rate", "declarer won (passed: share)", percent),
                         Column("lo", "95 % low", percent), Column("hi", "95 % high", percent),
                         Column("human", "human play: declarer won", percent),
                         Column("gap", "bots minus people", str, False)], "t-bot-vs-human")
    note = ("Human reference: the declarer's success in 17,967,106 online tournament games "
            "(grand 91.4 %, null 70.7 %, suit games about 77.5 %), as issue 18 gives it; it "
            "gives no pass rate or contract mix. The rules bot's bidding and declaration "
            "are tuned to lie within 5 points of these rates.")
    return ("<h2>These bots beside human play</h2>" + body
            + f'<p class="note">{esc(note)}</p>')


def _points(e: PairedEffect) -> str:
    """A success difference in percentage points with its interval and n."""
    return (f"{100 * e.effect:+.2f} [{100 * e.low:+.2f}, {100 * e.high:+.2f}] points "
            f"(n {e.n:,})")


def _paired_experiments(ctx: Context) -> str:
    """The archive's paired experiments, on the page of their opponents' line-up."""
    if ctx.root is None or ctx.part.bots is None:
        return ""
    results: list[ExperimentResult] = experiment_results(ctx.con, ctx.root)
    seats = set(ctx.part.bots.split(","))
    if len(seats) != 1:
        return ""
    results = [r for r in results if r.opponents in seats]
    if not results:
        return ""
    rows = [{"advice": r.label or f"{r.follow.bot} vs {r.contrast.bot}",
             "compared": r.sentence(),
             "n": r.deals,
             "lp": f"{r.list_points.effect:+.3f} [{r.list_points.low:+.3f}, "
                   f"{r.list_points.high:+.3f}]",
             "sf": f"{r.seeger_fabian.effect:+.3f} [{r.seeger_fabian.low:+.3f}, "
                   f"{r.seeger_fabian.high:+.3f}]",
             "ds": _points(r.declarer_success), "df": _points(r.defence_success),
             "verdict": r.verdict, "id": r.experiment_id} for r in results]
    frame = pl.DataFrame(rows)
    counts = {k: sum(r.verdict == k for r in results)
              for k in ("supported", "refuted", "not distinguishable")}
    body = table(frame, [Column("advice", "advice", str, False),
                         Column("n", "deals", number),
                         Column("lp", "list points a hand against the table [95 %]", str,
                                False),
                         Column("sf", "Seeger-Fabian a hand [95 %]", str, False),
                         Column("ds", "declarer success [95 %]", str, False),
                         Column("df", "defence success [95 %]", str, False),
                         Column("verdict", "verdict", str, False),
                         Column("compared", "what was compared", str, False),
                         Column("id", "experiment", str, False)], "t-experiments",
                 cell_class=_verdict_class)
    note = ("Paired (duplicate) experiments (skatlog experiment): the same deals played by a "
            "bot that follows the advice and by one that does not, each at every table "
            "position beside two default bots; effects are the advice-following bot's "
            "result minus the other's, deal by deal, with 95 % intervals. List points "
            "against the table: the bot's list points minus its opponents' mean, so that "
            "defence counts; success rates in percentage points, over the hands where the "
            "bot declared (or defended) in both arms. The verdict "
            "follows from the list-points interval: supported above 0, refuted below, "
            "not distinguishable when it contains 0.")
    return (f"<h2>Paired experiments: {counts['supported']} supported, {counts['refuted']} "
            f"refuted, {counts['not distinguishable']} not distinguishable</h2>"
            + f'<p class="note">{esc(note)}</p>' + body)


def _strategy(ctx: Context) -> str:
    return (_rates_beside_people(ctx) + _paired_experiments(ctx)
            + "<h2>Correlational tables (within these bots' own games)</h2>"
            + '<p class="note">Correlations, not experiments: the games matching a '
              "pattern differ from the others in more than the pattern, and the bots' own "
              "rules shape which hands are played.</p>" + _correlations(ctx))


def _correlations(ctx: Context) -> str:
    verdicts = evaluate(ctx.con, ctx.where)
    rows = []
    for v in verdicts:
        d = v.difference
        c = v.contrast
        rows.append({
            "key": v.advice.key, "label": v.advice.label, "advice": v.advice.quote,
            "claim": v.advice.claim, "n": v.matching.n, "k": v.matching.k,
            "rate": v.matching.rate, "lo": v.matching.lo, "hi": v.matching.hi,
            "contrast": c.format() if c else "",
            "c_rate": c.rate if c else None, "c_lo": c.lo if c else None,
            "c_hi": c.hi if c else None, "c_n": c.n if c else 0, "c_k": c.k if c else 0,
            "difference": "" if d is None else
            f"{100 * d[0]:+.1f} [{100 * d[1]:+.1f}, {100 * d[2]:+.1f}] points",
            "verdict": v.verdict, "reason": v.reason})
    frame = pl.DataFrame(rows, strict=False)
    x = fg.labels(frame["label"].to_list())
    contrast = frame.select(pl.col("c_n").alias("n"), pl.col("c_k").alias("k"),
                            pl.col("c_rate").alias("rate"), pl.col("c_lo").alias("lo"),
                            pl.col("c_hi").alias("hi"))
    fig = {"data": [fg.rate_trace(frame, "label", "hands matching the advice", x_values=x),
                    fg.rate_trace(contrast, "label", "contrast group", x_values=x)],
           "layout": fg.layout("Strategy advice under simulation: success rate of matching "
                               "hands", "advice", "success rate (%)", barmode="group",
                               yaxis={"range": [0, 100]}, xaxis={"type": "category"})}
    counts = {k: sum(v.verdict == k for v in verdicts)
              for k in ("supported", "not supported", "inconclusive")}
    reading = (f"{counts['supported']} supported, {counts['not supported']} not supported, "
               f"{counts['inconclusive']} inconclusive, of {len(verdicts)} pieces of advice.")
    body = table(frame, [Column("label", "advice", str, False),
                         Column("advice", "as the rule text gives it", str, False),
                         Column("claim", "what is measured", str, False),
                         Column("n", "n", number), Column("k", "successes", number),
                         Column("rate", "rate", percent), Column("lo", "95 % low", percent),
                         Column("hi", "95 % high", percent),
                         Column("contrast", "contrast group", str, False),
                         Column("difference", "difference", str, False),
                         Column("verdict", "verdict", str, False),
                         Column("reason", "reason", str, False)], "t-strategy",
                 cell_class=_verdict_class)
    note = (f"Hands are the declarer's ten dealt cards, from the {plural(ctx.part.played, 'game')}"
            f" these bots played ({ctx.part.label}); other line-ups have their own page. "
            "Verdicts: supported when the 95 % interval lies on the advice's side, not "
            "supported when it lies on the other side (or pins a difference within ±3 "
            "points), else inconclusive; fewer than 30 games in a group is inconclusive.")
    return chart(fig, "chart-strategy", reading) + f'<p class="note">{esc(note)}</p>' + body


PAGES: tuple[Page, ...] = (
    Page("index.html", "Overview", "Overview", "counts of these games", _index),
    Page("contracts.html", "Declarer success by contract", "Contracts",
         "win rate by contract, hand and announcement", _contracts),
    Page("bidding.html", "Bids and game values", "Bidding",
         "bid distribution, bid against value, slack, overbids", _bidding),
    Page("bid-levels.html", "Win rate by bid level", "Bid levels", "win rate by final bid",
         _bid_levels),
    Page("seats.html", "Seat effects", "Seats",
         "win rate by seat, who wins the auction, skipped hands", _seats),
    Page("matadors.html", "Matadors and jacks", "Matadors",
         "win rate by matadors and by jacks dealt", _matadors),
    Page("players.html", "Players", "Players", "list points (or Seeger-Fabian points) per "
         "player, club and session, and the sessions' totals", _players),
    Page("tricks.html", "Tricks", "Tricks", "points per trick and who wins which trick",
         _tricks),
    Page("could-win.html", "Could it have been won?", "Could it be won?",
         "lost games best play would have won, won games best defence would have beaten",
         could_win_page, modern_only=True),
    Page("house-rules.html", "House rules: Kontra and Re, Ramsch, Bock", "House rules",
         "declarer success with Kontra and Re, the Ramsch hands, the Bock rounds",
         house_rules_page, house_only=True),
    Page("strategy.html", "Strategy advice under simulation", "Strategy",
         "the rule text's bidding advice tested on these bots' games", _strategy,
         simulated_only=True, modern_only=True),
)


def pages_for(part: Part) -> tuple[Page, ...]:
    """The pages a part gets (the strategy page only for simulated games, the house rules
    page only under a rule set with those options, neither the strategy nor the
    could-it-be-won page for Foster's games)."""
    foster = (part.rules or "").split("+")[0] == "foster"
    return tuple(p for p in PAGES if (part.simulated or not p.simulated_only)
                 and (has_house_options(part.rules) or not p.house_only)
                 and not (foster and p.modern_only))
