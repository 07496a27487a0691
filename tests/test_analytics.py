"""Analytics queries against the same figures computed row by row from the archive."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from skatlog.analytics import queries as q
from skatlog.analytics.connect import AnalyticsError, check_where, connect
from skatlog.analytics.stats import wilson_interval
from skatlog.analytics.synthetic import write_sessions
from skatlog.analytics.views import lazy_frames
from skatlog.engine import Card, Rank
from skatlog.ingest.archive import read_table


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("analytics") / "archive"
    write_sessions(path, 25, 11)
    write_sessions(path, 5, 12, origin="log")
    return path


@pytest.fixture(scope="module")
def games(archive: Path) -> pl.DataFrame:
    frame = pl.DataFrame(pl.from_arrow(read_table(archive, "games")))
    return frame.with_columns(pl.col(pl.Categorical).cast(pl.String))


@pytest.fixture(scope="module")
def played(games: pl.DataFrame) -> pl.DataFrame:
    return games.filter(pl.col("outcome") == "played")


def _check_rates(frame: pl.DataFrame, expected: dict[object, tuple[int, int]], key: str) -> None:
    got = {r[key]: (r["n"], r["k"]) for r in frame.iter_rows(named=True)}
    assert got == expected
    for r in frame.iter_rows(named=True):
        lo, hi = wilson_interval(r["k"], r["n"])
        assert r["rate"] == pytest.approx(r["k"] / r["n"])
        assert r["lo"] == pytest.approx(lo) and r["hi"] == pytest.approx(hi)


def _counts(frame: pl.DataFrame, key: str | pl.Expr, success: str = "won"
            ) -> dict[object, tuple[int, int]]:
    agg = frame.group_by(key).agg(n=pl.len(), k=pl.col(success).sum())
    return {r[0]: (r[1], r[2]) for r in agg.rows()}


def test_success_by_seat_and_player(archive: Path, played: pl.DataFrame) -> None:
    con = connect(archive)
    _check_rates(q.success_by_seat(con), _counts(played, "declarer"), "seat")
    _check_rates(q.success_by_player(con), _counts(played, "declarer_name"), "player")


def test_success_by_contract_labels(archive: Path, played: pl.DataFrame) -> None:
    con = connect(archive)
    frame = q.success_by_contract(con)
    assert frame["n"].sum() == played.height
    grand_hand = played.filter((pl.col("contract") == "grand") & pl.col("hand")
                               & ~pl.col("schneider_announced"))
    row = frame.filter(pl.col("game") == "grand hand")
    assert (row["n"].item(), row["k"].item()) == (grand_hand.height, grand_hand["won"].sum())
    labels = set(frame["game"])
    assert labels <= {f"{c}{h}{a}" for c in ("diamonds", "hearts", "spades", "clubs", "grand")
                      for h in ("", " hand") for a in ("", " schneider", " schwarz")} | {
        f"{c} ouvert" for c in ("diamonds", "hearts", "spades", "clubs", "grand")} | {
        "null", "null hand", "null ouvert", "null ouvert hand"}
    order = frame["contract_rank"].to_list()
    assert order == sorted(order)


def test_matadors_jacks_and_buckets(archive: Path, played: pl.DataFrame) -> None:
    con = connect(archive)
    suits = played.filter(pl.col("contract") != "null")
    family = pl.when(pl.col("contract") == "grand").then(pl.lit("grand")).otherwise(
        pl.lit("suit"))
    expected = suits.group_by(family.alias("family"), "matadors").agg(
        n=pl.len(), k=pl.col("won").sum())
    got = q.success_by_matadors(con).select("family", "matadors", "n", "k")
    assert sorted(got.rows()) == sorted(expected.rows())

    jack_cards = {int(Card.of(s, Rank.JACK)) for s in range(4)}
    jacks = [sum(c in jack_cards for c in deal[10 * d: 10 * d + 10])
             for deal, d in zip(played["deal"].to_list(), played["declarer"].to_list(),
                                 strict=True)]
    fam = ["grand" if c == "grand" else "null" if c == "null" else "suit"
           for c in played["contract"]]
    expected_j: dict[tuple[str, int], list[int]] = {}
    for f, j, w in zip(fam, jacks, played["won"].to_list(), strict=True):
        acc = expected_j.setdefault((f, j), [0, 0])
        acc[0] += 1
        acc[1] += int(w)
    got_j = {(r["family"], r["jacks"]): [r["n"], r["k"]]
             for r in q.success_by_jacks(con).iter_rows(named=True)}
    assert got_j == expected_j

    buckets = q.success_by_bid_bucket(con)
    assert buckets["n"].sum() == played.height
    low = buckets.filter(pl.col("bid_bucket") == "18-24")
    in_low = played.filter(pl.col("bid") <= 24)
    assert (low["n"].item(), low["k"].item()) == (in_low.height, in_low["won"].sum())


def test_bids_values_and_overbids(archive: Path, played: pl.DataFrame) -> None:
    con = connect(archive)
    dist = q.bid_distribution(con)
    assert dict(dist.select("bid", "n").rows()) == dict(
        played.group_by("bid").len().rows())
    not_over = played.filter(~pl.col("overbid"))
    pairs = q.bid_vs_value(con)
    assert pairs["n"].sum() == not_over.height
    # The game value read off the list value equals the archive's own game_value column.
    expected = not_over.group_by("bid", "game_value").len()
    assert sorted(pairs.rows()) == sorted(expected.rows())
    slack = q.slack_distribution(con)
    assert (slack["slack"] * slack["n"]).sum() == (not_over["game_value"]
                                                   - not_over["bid"]).sum()
    over = q.overbid_rates(con)
    _check_rates(over, _counts(played, "contract", "overbid"), "contract")


def test_auction_and_tricks(archive: Path, games: pl.DataFrame, played: pl.DataFrame) -> None:
    con = connect(archive)
    summary = q.auction_summary(con)
    skipped = summary.row(0, named=True)
    assert (skipped["n"], skipped["k"]) == (games.height, games["passed"].sum())
    winners = q.auction_winners(con)
    declared = games.filter(pl.col("declarer").is_not_null())
    _check_rates(winners, {s: (declared.height, c) for s, c in
                           declared.group_by("declarer").len().rows()}, "seat")
    tricks = lazy_frames(archive)["tricks"].collect()
    tricks = tricks.join(played.select("game_id", "declarer"), on="game_id")
    points = q.trick_points(con)
    assert points["n"].sum() == tricks.height
    first = tricks.filter(pl.col("trick_no") == 1)
    assert points["mean_points"][0] == pytest.approx(first["points"].mean())
    won = q.trick_winners(con)
    row = won.row(0, named=True)
    assert (row["n"], row["k"]) == (
        first.height, first.filter(pl.col("winner") == pl.col("declarer")).height)
    overview = q.overview(con)
    assert overview["hands"] == games.height and overview["log"] == 60


def test_where_filters_and_errors(archive: Path, played: pl.DataFrame) -> None:
    con = connect(archive)
    logs = q.success_by_seat(con, "origin = 'log'")
    assert logs["n"].sum() == played.filter(pl.col("origin") == "log").height
    assert q.success_by_contract(con, "bid > 1000").height == 0
    with pytest.raises(AnalyticsError, match="without ';'"):
        q.success_by_seat(con, "TRUE; DROP VIEW games")
    with pytest.raises(AnalyticsError, match="no_such_column"):
        check_where(con, "no_such_column = 1")
    with pytest.raises(AnalyticsError, match="no archive"):
        connect(archive.parent / "missing")
