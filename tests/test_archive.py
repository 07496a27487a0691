"""The Parquet archive: schema and row builders, dedupe, atomic writes, views and export."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skatlog.analytics.views import VIEWS, lazy_frames, open_archive
from skatlog.engine import (
    CARD_POINTS,
    Bid,
    Card,
    Contract,
    Declaration,
    Declare,
    Discard,
    Hold,
    Leave,
    Pass,
    PickUp,
    Play,
    RandomPlayer,
    Resign,
    ShowCards,
    TimeOut,
    deal_cards,
    play_hand,
    play_session,
)
from skatlog.engine.tricks import trick_winner
from skatlog.ingest.archive import (
    MANIFEST,
    ArchiveError,
    ArchiveWriter,
    IdSet,
    committed_files,
    read_manifest,
    read_table,
)
from skatlog.ingest.computed import query_schema, query_table
from skatlog.ingest.export import export_archive
from skatlog.ingest.ids import game_id_of
from skatlog.ingest.iss import format_iss
from skatlog.ingest.jsonl import write_jsonl
from skatlog.ingest.model import GameMeta, LogGame
from skatlog.ingest.moves_codec import MovesError, decode_moves, encode_moves
from skatlog.ingest.pipeline import append_batches, ingest_games, ingest_paths
from skatlog.ingest.rows import GameRowsBuilder, SimulatedMeta, trick_winners
from skatlog.ingest.schema import (
    GAMES_SCHEMA,
    TABLES,
    TRICKS_SCHEMA,
    SchemaError,
    table_from_columns,
)

#: Columns that describe where a row was read from, not the game (export renames the source).
SOURCE_COLUMNS = ["source", "source_line", "source_format", "warnings", "ingest_id"]


def random_records(n: int, seed: int = 1) -> list:
    rng = random.Random(seed)
    players = (RandomPlayer(step_bids=True),) * 3
    return [play_hand(deal_cards(rng), players, rng, checked=False) for _ in range(n)]


def log_game(record, i: int, source: str = "gen.sgf") -> LogGame:
    meta = GameMeta(players=("anna", "ben", "clara"),
                    played_at=datetime(2024, 1, 1, tzinfo=UTC) + timedelta(minutes=i),
                    record_id=str(1000 + i), session_id=str(i // 12))
    return LogGame(source, i + 1, "", "iss", meta, record)


def write_iss_file(path: Path, records, start: int = 0) -> Path:
    lines = [format_iss(log_game(r, start + i).record, log_game(r, start + i).meta)
             for i, r in enumerate(records)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def sorted_rows(table: pa.Table, drop: list[str] = ()) -> list[dict]:
    keys = [n for n in ("game_id", "trick_no", "call_no") if n in table.column_names]
    table = table.drop_columns([c for c in drop if c in table.column_names])
    return table.sort_by([(k, "ascending") for k in keys]).to_pylist()


# ------------------------------------------------------------------ notation and ids
def test_moves_notation_round_trips_every_kind() -> None:
    moves = (Bid(1, 18), Hold(0), Pass(1), Bid(2, 190), Pass(0), PickUp(2),
             Discard(2, (Card.ST, Card.H8)), Declare(2, Declaration.from_iss("D")),
             Declare(0, Declaration.from_iss("GO")), Declare(1, Declaration.from_iss("NOH")),
             Declare(1, Declaration.from_iss("CHZ")), Play(0, Card.CJ), Play(1, Card.S7),
             ShowCards(2), Resign(1), TimeOut(0), Leave(2))
    text = encode_moves(moves)
    assert text.split()[:3] == ["118", "0y", "1p"]
    assert "2dST.H8" in text and "0=GO" in text and "0CJ" in text and "2SC" in text
    assert decode_moves(text) == moves
    for record in random_records(300):
        assert decode_moves(encode_moves(record.moves)) == record.moves


@pytest.mark.parametrize("bad", ["3p", "0", "0XX", "0dST", "0=Q", "0??", "x18"])
def test_decode_refuses_bad_tokens(bad: str) -> None:
    with pytest.raises(MovesError):
        decode_moves(f"1p {bad}")


def test_game_id_is_content_not_place() -> None:
    record = random_records(1)[0]
    a = log_game(record, 0, "a.sgf")
    b = LogGame("elsewhere.jsonl", 77, "", "jsonl", a.meta, record)
    builder = GameRowsBuilder()
    assert builder.add_log_game(a) == builder.add_log_game(b)
    moved = LogGame("a.sgf", 1, "", "iss",
                    GameMeta(a.meta.players, a.meta.played_at + timedelta(seconds=1),
                             a.meta.record_id, a.meta.session_id), record)
    assert builder.add_log_game(moved) != builder.add_log_game(a)
    naive = a.meta.played_at.replace(tzinfo=None)
    cards = record.deal.cards
    text = encode_moves(record.moves)
    assert game_id_of(cards, text, played_at=naive) == game_id_of(
        cards, text, played_at=a.meta.played_at)


# ------------------------------------------------------------------ rows
def test_rows_agree_with_the_engine() -> None:
    records = random_records(400, seed=5)
    builder = GameRowsBuilder("run-1")
    ids = [builder.add_log_game(log_game(r, i)) for i, r in enumerate(records)]
    stored = builder.tables()
    for name, table in stored.items():
        assert table.schema == TABLES[name]
    tables = builder.tables(computed=True)  # with the engine's seats, points and skat
    for name in ("games", "tricks"):  # ... which the views' formulas reproduce
        assert tables[name].schema == query_schema(name, TABLES[name])
        assert query_table(name, stored[name]).equals(tables[name]), name
    games = {row["game_id"]: row for row in tables["games"].to_pylist()}
    tricks = tables["tricks"].to_pylist()
    calls = tables["auction"].to_pylist()
    for gid, record in zip(ids, records, strict=True):
        row = games[gid]
        result = record.result
        assert row["outcome"] == result.outcome and row["value"] == result.value
        assert row["deal"] == list(record.deal.cards)
        masks = [row[k] for k in ("forehand_cards", "middlehand_cards", "rearhand_cards")]
        for mask, hand in zip(masks, record.deal.hands, strict=True):
            assert mask == sum(1 << c for c in hand)
        assert row["skat_cards"] == sum(1 << c for c in record.deal.skat)
        assert row["ingest_id"] == "run-1" and row["origin"] == "log"
        if result.outcome == "played":
            assert row["contract"] == result.declaration.contract.label
            assert row["declarer"] == result.declarer
            assert row["declarer_name"] == ("anna", "ben", "clara")[result.declarer]
            assert row["matadors"] == result.matadors
            assert row["declarer_points"] == result.declarer_points
            assert row["won"] == result.won and row["overbid"] == result.score.overbid
            assert row["discard"] == (list(record.discard) if record.discard else None)
        else:
            assert row["contract"] is None and row["passed"] == (result.outcome == "passed")
        mine = [t for t in tricks if t["game_id"] == gid]
        assert [(t["leader"], (t["card1"], t["card2"], t["card3"]), t["winner"], t["points"],
                 (t["seat1"], t["seat2"], t["seat3"])) for t in mine] == [
            (t.leader, tuple(t.cards), t.winner, t.points, t.seats) for t in record.tricks]
        assert [t["trick_no"] for t in mine] == list(range(1, len(mine) + 1))
        my_calls = [(c["seat"], c["kind"], c["value"]) for c in calls if c["game_id"] == gid]
        expected = []
        current = 0
        for call in record.auction:
            if isinstance(call, Bid):
                current = call.value
                expected.append((call.seat, "bid", call.value))
            elif isinstance(call, Hold):
                expected.append((call.seat, "hold", current))
            else:
                expected.append((call.seat, "pass", None))
        assert my_calls == expected


def test_vectorised_trick_winners_equal_the_engine() -> None:
    """The row builder's array form of the core's trick winner against the engine's typed
    one (R8), over 100,000 random tricks."""
    rng = np.random.default_rng(3)
    n = 100_000
    cards = np.argsort(rng.random((n, 32)), axis=1)[:, :3].astype(np.uint8)  # distinct cards
    contracts = rng.integers(0, 6, n)
    fast = trick_winners(cards, contracts)
    slow = [trick_winner(c.tolist(), Contract(int(k))) for c, k in zip(cards, contracts,
                                                                          strict=True)]
    assert fast.tolist() == slow


def test_table_from_columns_checks_its_input() -> None:
    ok = table_from_columns("auction", {"game_id": np.array([1, 2]), "call_no": [1, 1],
                                        "seat": [1, 2], "kind": ["bid", "pass"]})
    assert ok.column("value").null_count == 2 and ok.schema == TABLES["auction"]
    with pytest.raises(SchemaError, match="required"):
        table_from_columns("auction", {"game_id": [1], "call_no": [1], "seat": [1]})
    with pytest.raises(SchemaError, match="unknown columns"):
        table_from_columns("tricks", {"game_id": [1], "nonsense": [2]})
    with pytest.raises(SchemaError, match="2 values for 1 rows"):
        table_from_columns("auction", {"game_id": [1], "call_no": [1, 2], "seat": [1],
                                       "kind": ["bid"]})
    with pytest.raises(SchemaError):
        table_from_columns("auction", {"game_id": [1], "call_no": [300], "seat": [1],
                                       "kind": ["bid"]})
    with pytest.raises(SchemaError, match="unknown table"):
        table_from_columns("players", {})


def test_id_set_merges_and_answers() -> None:
    ids = IdSet(np.array([5, 1, 9], dtype=np.int64))
    ids.MERGE_AT = 4
    assert ids.new_mask(np.array([1, 2, 2, 3], dtype=np.int64)).tolist() == [
        False, True, False, True]
    assert ids.new_mask(np.array([4, 3, 100], dtype=np.int64)).tolist() == [True, False, True]
    assert len(ids) == 7
    assert ids.contains(np.array([9, 100, 7], dtype=np.int64)).tolist() == [True, True, False]



class _SmallFilterIdSet(IdSet):
    FILTER_BITS = 10  # a 128-byte filter: more than 128 ids take the bulk marking path


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-2**63, 2**63 - 200), st.integers(0, 150)),
                max_size=6),
       st.lists(st.integers(-2**63, 2**63 - 1), max_size=40), st.randoms())
def test_id_set_from_runs_and_random_ids_is_the_plain_set(
        runs: list[tuple[int, int]], loose: list[int], rnd: random.Random) -> None:
    """Ascending runs (a simulated run's ids: the timsort path), random ids (quicksort),
    repeats, the bulk filter marking and the in-place sort give the plain set."""
    values = [start + k for start, length in runs for k in range(length)] + loose
    if rnd.random() < 0.3:
        rnd.shuffle(values)
    array = np.array(values, dtype=np.int64)
    expected = np.unique(array)
    owned = array.copy()
    bulk = _SmallFilterIdSet(owned, owned=True)
    assert bulk.sorted_ids().tolist() == expected.tolist()
    assert IdSet(array).sorted_ids().tolist() == expected.tolist()
    assert array.tolist() == values  # not owned: left as it was
    one_by_one = IdSet(filter_bits=_SmallFilterIdSet.FILTER_BITS)  # the same, by argument
    for value in expected:
        one_by_one.add(np.array([value], dtype=np.int64))
    assert bulk.filter.tolist() == one_by_one.filter.tolist()
    probe = np.concatenate([array, array + 1, np.array([0, -1], dtype=np.int64)])
    assert bulk.contains(probe).tolist() == np.isin(probe, expected).tolist()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-50, 50), max_size=30),
       st.lists(st.lists(st.integers(-60, 60), max_size=40), max_size=6),
       st.booleans())
def test_id_set_new_mask_keeps_each_new_value_once(
        start: list[int], batches: list[list[int]], small: bool) -> None:
    """``new_mask`` marks, batch after batch, exactly the first occurrence of each value the
    set does not hold yet, with or without repeats in the batch (the sorted fast path and
    the stable one), and adds them; the filter (either marking path) never loses an id."""
    ids = (_SmallFilterIdSet if small else IdSet)(np.array(start, dtype=np.int64))
    held = set(start)
    for batch in batches:
        expected = []
        for value in batch:
            expected.append(value not in held)
            held.add(value)
        got = ids.new_mask(np.array(batch, dtype=np.int64))
        assert got.tolist() == expected
        assert ids.sorted_ids().tolist() == sorted(held)
    probe = np.arange(-70, 71, dtype=np.int64)
    assert ids.contains(probe).tolist() == [int(v) in held for v in probe]


def test_id_set_filter_grows_with_its_ids() -> None:
    """A set without a fixed filter size starts small and doubles its filter as ids come
    (rebuilt from the ids, so every answer stays right); a fixed size stays fixed."""
    rng = np.random.default_rng(7)
    ids = rng.integers(-2**63, 2**63 - 1, size=60_000, dtype=np.int64)
    growing, fixed = IdSet(), IdSet(filter_bits=IdSet.MIN_FILTER_BITS)
    assert growing.filter_bits == IdSet.MIN_FILTER_BITS
    for part in np.array_split(ids, 7):
        assert growing.new_mask(part).all() and fixed.new_mask(part).all()
    assert growing.filter_bits == (60_000 * IdSet.BITS_PER_ID).bit_length() == 20
    assert fixed.filter_bits == IdSet.MIN_FILTER_BITS
    probe = np.concatenate([ids, rng.integers(-2**63, 2**63 - 1, size=5_000, dtype=np.int64)])
    expected = np.isin(probe, ids).tolist()
    assert growing.contains(probe).tolist() == expected == fixed.contains(probe).tolist()
    assert IdSet(ids).filter_bits == 20  # built from the ids: sized for them at once
    assert IdSet(np.arange(10**7, dtype=np.int64)).filter_bits == IdSet.FILTER_BITS


# ------------------------------------------------------------------ ingest and dedupe
def test_ingest_twice_stores_each_game_once(tmp_path: Path) -> None:
    records = random_records(120, seed=11)
    a = write_iss_file(tmp_path / "a.sgf", records[:80])
    b = write_iss_file(tmp_path / "b.sgf", records[60:], start=60)  # 20 games overlap a
    archive = tmp_path / "arc"
    first = ingest_paths([a, b], archive, progress=False)
    assert (first.seen, first.stored, first.duplicates, first.rejected) == (140, 120, 20, 0)
    second = ingest_paths([tmp_path], archive, progress=False)
    assert (second.seen, second.stored, second.duplicates) == (140, 0, 140)
    con = open_archive(archive)
    assert con.execute("SELECT count(*), count(DISTINCT game_id) FROM games").fetchone() == (
        120, 120)
    assert con.execute("SELECT count(DISTINCT game_id) FROM tricks").fetchone()[0] == sum(
        1 for r in records if r.tricks)
    runs = con.execute("SELECT seen, stored, duplicates, len(files) FROM ingests "
                   "ORDER BY started_at").fetchall()
    assert runs == [(140, 120, 20, 2), (140, 0, 140, 2)]
    digests = con.execute("SELECT files[1].sha256 FROM ingests").fetchall()
    assert len({d[0] for d in digests}) == 1 and len(digests[0][0]) == 64


def test_a_damaged_committed_partition_stops_the_writer_with_its_path(tmp_path: Path) -> None:
    """Opening the writer reads every committed game id; a partition that cannot be read
    is an ArchiveError naming the file, and the archive is left as it is."""
    archive = tmp_path / "arc"
    ingest_paths([write_iss_file(tmp_path / "a.sgf", random_records(30, seed=5))], archive,
                 progress=False)
    with ArchiveWriter(archive) as writer:
        assert len(writer.game_ids) == 30
    part = committed_files(archive, "games")[0]
    part.write_bytes(part.read_bytes()[:-40])
    with pytest.raises(ArchiveError, match=f"{part}: committed partition unreadable"):
        ArchiveWriter(archive).open()
    assert committed_files(archive, "games") == [part]


@pytest.mark.parametrize(("manifest", "says"), [
    ("[]", "not a skatlog archive manifest"),
    ("null", "not a skatlog archive manifest"),
    ('{"format": "FMT", "schema_version": 1, "generation": 1, "tables": "x"}',
     "'tables' is not an object"),
    ('{"format": "FMT", "schema_version": 1, "generation": 1, "tables": {"games": "x"}}',
     "'games' is not a list of partitions"),
    ('{"format": "FMT", "schema_version": 1, "generation": 1, "tables": {"games": [5]}}',
     "a partition without a path and a row count"),
    ('{"format": "FMT", "schema_version": 1, "generation": 1,'
     ' "tables": {"games": [{"path": "/etc/passwd", "rows": 1}]}}', "is outside games/"),
    ('{"format": "FMT", "schema_version": 1, "generation": 1,'
     ' "tables": {"games": [{"path": "games/../../x.parquet", "rows": 1}]}}',
     "is outside games/"),
    ('{"format": "FMT", "schema_version": 1, "generation": 1,'
     ' "tables": {"games": [{"path": "tricks/p.parquet", "rows": 1}]}}', "is outside games/"),
])
def test_a_damaged_manifest_is_an_archive_error(tmp_path: Path, manifest: str,
                                                says: str) -> None:
    """Wrong shapes and paths outside the table's folder are refused with the manifest's
    path, never a TypeError or a read of some other file."""
    from skatlog.ingest.archive import MANIFEST_FORMAT

    (tmp_path / MANIFEST).write_text(manifest.replace("FMT", MANIFEST_FORMAT))
    with pytest.raises(ArchiveError, match=f"{tmp_path / MANIFEST}: unreadable manifest: "
                                           f".*{re.escape(says)}"):
        read_manifest(tmp_path)


def test_rejects_keep_raw_text_once(tmp_path: Path) -> None:
    records = random_records(10, seed=2)
    good = write_iss_file(tmp_path / "good.sgf", records)
    lines = good.read_text().splitlines()
    broken = lines[3].replace("MV[w ", "MV[w ??.", 1)  # corrupt the deal
    bad = tmp_path / "bad.sgf"
    bad.write_text("\n".join([lines[0], broken, broken, "(;GM[Skat]MV[w nonsense"]) + "\n")
    archive = tmp_path / "arc"
    first = ingest_paths([bad], archive, progress=False)
    assert first.rejected == 3 and first.rejects_stored == 2 and first.stored == 1
    again = ingest_paths([bad], archive, progress=False)
    assert again.rejected == 3 and again.rejects_stored == 0 and again.reject_duplicates == 3
    rejects = read_table(archive, "rejects").to_pylist()
    assert len(rejects) == 2
    assert {r["raw"] for r in rejects} == {broken, "(;GM[Skat]MV[w nonsense"}
    row = next(r for r in rejects if r["raw"] == broken)
    assert row["line"] == 2 and row["source"].endswith("bad.sgf") and row["code"]
    assert row["errors"][0]["code"] == row["code"]
    assert sum(first.rejected_by_code.values()) == 3


def test_games_that_cannot_be_stored_are_quarantined(tmp_path: Path) -> None:
    """Values a reader let through but Parquet cannot hold never abort the run."""
    records = random_records(6, seed=13)
    games = [log_game(r, i) for i, r in enumerate(records)]
    meta = games[1].meta
    games[1] = LogGame("x.jsonl", 2, "raw-1", "jsonl", GameMeta(
        ("\ud800", "b", "c"), meta.played_at, meta.record_id, meta.session_id), records[1])
    games[4] = LogGame("x.jsonl", 5, "raw-4", "jsonl", GameMeta(
        games[4].meta.players, hand_no=500), records[4])  # beyond int8
    summary = ingest_games(games, tmp_path / "arc", progress=False)
    assert (summary.stored, summary.rejected) == (4, 2)
    assert summary.rejected_by_code == {"syntax": 2}
    rejects = read_table(tmp_path / "arc", "rejects").to_pylist()
    assert sorted(r["raw"] for r in rejects) == ["raw-1", "raw-4"]
    assert any("surrogate" in r["message"] for r in rejects)
    assert any("cannot be stored" in r["message"] for r in rejects)


def test_shared_iss_records(tmp_path: Path, iss_dir: Path) -> None:
    summary = ingest_paths([iss_dir], tmp_path / "arc", progress=False)
    assert summary.rejected == 1 and summary.rejected_by_code == {"corrupt_card": 1}
    assert summary.stored == summary.seen - 1
    con = open_archive(tmp_path / "arc")
    code, line, move, raw = con.execute("SELECT code, line, move, raw FROM rejects").fetchone()
    assert code == "corrupt_card" and line >= 1 and move is not None and "??" in raw
    outcomes = dict(con.execute("SELECT outcome, count(*) FROM games GROUP BY ALL").fetchall())
    assert {"played", "passed", "penalty"} <= set(outcomes)


# ------------------------------------------------------------------ views
def test_empty_archive_gives_every_view(tmp_path: Path) -> None:
    con = open_archive(tmp_path / "nothing-yet")
    for view in VIEWS:
        assert con.execute(f"SELECT count(*) FROM {view}").fetchone() == (0,)
    columns = query_schema("games", GAMES_SCHEMA).names
    assert "skat_cards" in columns and len(columns) == len(GAMES_SCHEMA.names) + 1
    assert [c[0] for c in con.execute("DESCRIBE games").fetchall()] == columns
    assert [c[0] for c in con.execute("DESCRIBE tricks").fetchall()] == [
        "game_id", "trick_no", "leader", "card1", "card2", "card3", "seat1", "seat2", "seat3",
        "winner", "points"]
    frames = lazy_frames(tmp_path / "nothing-yet")
    assert set(frames) == set(VIEWS)
    assert frames["games"].collect().columns == columns
    assert frames["tricks"].collect().schema == pl.from_arrow(
        query_schema("tricks", TRICKS_SCHEMA).empty_table()).schema
    assert frames["sessions"].collect().columns == [
        c[0] for c in con.execute("DESCRIBE sessions").fetchall()]


def test_views_and_frames_agree(tmp_path: Path) -> None:
    archive = tmp_path / "arc"
    ingest_paths([write_iss_file(tmp_path / "a.sgf", random_records(150, seed=8))], archive,
                 progress=False)
    con = open_archive(archive)
    frames = lazy_frames(archive)
    by_contract = dict(con.execute("SELECT contract, count(*) FROM games WHERE outcome = 'played' "
                               "GROUP BY contract").fetchall())
    polars_counts = (frames["games"].filter(outcome="played").group_by("contract").len()
                     .collect().rows())
    assert by_contract == {str(k): v for k, v in polars_counts}
    assert con.execute("SELECT count(*) FROM tricks").fetchone()[0] == frames["tricks"].select(
        "game_id").collect().height
    assert con.execute("SELECT card_name(28), card_name(0)").fetchone() == ("CJ", "D7")
    rows = con.execute(
        "SELECT g.declarer_points, g.deal, g.discard, (SELECT sum(points) FROM tricks t"
        " WHERE t.game_id = g.game_id AND t.winner = g.declarer) FROM games g"
        " WHERE outcome = 'played' AND ending = 'ten_tricks'").fetchall()
    assert rows
    for declarer_points, deal, discard, taken in rows:  # R10: tricks plus the skat
        skat = discard if discard is not None else deal[30:]
        assert declarer_points == (taken or 0) + sum(CARD_POINTS[c] for c in skat)


def test_sessions_view_matches_engine_sessions(tmp_path: Path) -> None:
    names = ("anna", "ben", "clara")
    batches = []
    sessions = []
    for seed in (1, 2):
        session = play_session(names, (RandomPlayer(step_bids=True),) * 3, seed)
        sessions.append(session)
        builder = GameRowsBuilder()
        for hand in session.hands:
            seated = tuple(names[p] for p in hand.seats)
            builder.add_simulated(hand.record, SimulatedMeta(
                seed=seed, bots="random,random,random", players=seated,
                session_id=f"sim-{seed}", hand_no=hand.number, dealer=2))
        batches.append(builder.tables())
    summary = append_batches(batches, tmp_path / "arc")
    assert summary.stored == 24
    con = open_archive(tmp_path / "arc")
    rows = con.execute("SELECT session_id, hands, players, totals, winners, origin FROM sessions "
                   "ORDER BY session_id").fetchall()
    for (_sid, hands, players, totals, winners, origin), session in zip(rows, sessions,
                                                                        strict=True):
        assert hands == 12 and origin == "simulated"
        expected = dict(zip(session.players, session.totals(), strict=True))
        assert dict(zip(players, totals, strict=True)) == expected
        assert sorted(winners) == sorted(session.winners())
    polars_rows = (lazy_frames(tmp_path / "arc")["sessions"].sort("session_id")
                   .select("session_id", "hands", "players", "totals", "winners", "origin")
                   .collect().rows())
    assert [tuple(r) for r in polars_rows] == [tuple(r) for r in rows]
    again = append_batches(batches, tmp_path / "arc")
    assert (again.stored, again.duplicates) == (0, 24)
    assert con.execute("SELECT count(*) FROM games").fetchone() == (24,)


def test_append_keeps_children_of_new_games_only(tmp_path: Path) -> None:
    records = random_records(30, seed=4)
    builder = GameRowsBuilder()
    for i, r in enumerate(records[:20]):
        builder.add_simulated(r, SimulatedMeta(seed=i))
    first = builder.tables()
    builder.clear()
    for i, r in enumerate(records):
        builder.add_simulated(r, SimulatedMeta(seed=i))
    second = builder.tables(computed=True)  # as read_table shows the archive
    archive = tmp_path / "arc"
    append_batches([first], archive)
    summary = append_batches([builder.tables()], archive)
    assert (summary.stored, summary.duplicates) == (10, 20)
    assert sorted_rows(read_table(archive, "tricks")) == sorted_rows(second["tricks"])
    assert sorted_rows(read_table(archive, "auction")) == sorted_rows(second["auction"])
    assert read_table(archive, "games").column("origin").unique().to_pylist() == ["simulated"]


def test_a_game_twice_in_one_batch_is_stored_once_with_its_child_rows(tmp_path: Path) -> None:
    """append_games keeps a repeated game's tricks and calls once (their game_id alone
    cannot tell the copies apart), and a game the archive holds not at all."""
    records = random_records(6, seed=5)
    first, again = GameRowsBuilder(), GameRowsBuilder()
    for i in (0, 1, 2, 1, 3, 1, 4):  # game 1 three times, with others between
        first.add_simulated(records[i], SimulatedMeta(seed=i))
    for i in (5, 5, 0):  # a new game twice, and one the archive holds
        again.add_simulated(records[i], SimulatedMeta(seed=i))
    archive = tmp_path / "arc"
    with ArchiveWriter(archive) as writer:
        counts = writer.append_games(first.tables())
        assert (counts.stored, counts.duplicates) == (5, 2)
        counts = writer.append_games(again.tables())
        assert (counts.stored, counts.duplicates) == (1, 2)
        writer.commit()
    games = read_table(archive, "games")
    tricks, calls = read_table(archive, "tricks"), read_table(archive, "auction")
    assert games.num_rows == 6
    want_tricks = sum(len(r.tricks) for r in records)
    assert tricks.num_rows == want_tricks
    assert calls.num_rows == sum(sum(1 for m in r.moves if type(m).__name__ in
                                     ("Bid", "Hold", "Pass")) for r in records)
    keys = list(zip(tricks.column("game_id").to_pylist(), tricks.column("trick_no").to_pylist(),
                    strict=True))
    assert len(set(keys)) == len(keys)


# ------------------------------------------------------------------ atomicity in process
def test_abandoned_write_leaves_archive_unchanged(tmp_path: Path) -> None:
    archive = tmp_path / "arc"
    ingest_paths([write_iss_file(tmp_path / "a.sgf", random_records(20))], archive,
                 progress=False)
    manifest = (archive / MANIFEST).read_text()
    before = read_table(archive, "games")
    builder = GameRowsBuilder()
    for i, r in enumerate(random_records(5, seed=99)):
        builder.add_simulated(r, SimulatedMeta(seed=i))
    with pytest.raises(RuntimeError, match="boom"), ArchiveWriter(archive) as writer:
        writer.append_games(builder.tables())
        raise RuntimeError("boom")
    assert (archive / MANIFEST).read_text() == manifest
    assert read_table(archive, "games").equals(before)
    orphan = archive / "games" / "part-orphan-0001.parquet"
    orphan.write_bytes(b"not parquet at all")
    assert open_archive(archive).execute("SELECT count(*) FROM games").fetchone() == (20,)
    with ArchiveWriter(archive) as writer:
        assert not orphan.exists()  # a writer cleans orphans of killed runs
        writer.commit()
    assert read_manifest(archive).generation == 2
    assert len(committed_files(archive, "games")) == 1


# ------------------------------------------------------------------ export
def _assert_same_archives(a: Path, b: Path, drop: list[str] = SOURCE_COLUMNS) -> None:
    for table in ("games", "tricks", "auction"):
        assert sorted_rows(read_table(a, table), drop) == sorted_rows(read_table(b, table), drop)


def test_export_iss_then_ingest_is_lossless(tmp_path: Path, iss_dir: Path) -> None:
    src = write_iss_file(tmp_path / "gen.sgf", random_records(60, seed=21))
    first = tmp_path / "first"
    ingest_paths([src, iss_dir], first, progress=False)
    out = tmp_path / "export.sgf.gz"
    assert export_archive(first, out, "iss") == read_manifest(first).rows("games")
    second = tmp_path / "second"
    summary = ingest_paths([out], second, progress=False)
    assert summary.rejected == 0 and summary.stored == read_manifest(first).rows("games")
    _assert_same_archives(first, second)


def test_export_jsonl_then_ingest_is_lossless(tmp_path: Path) -> None:
    records = random_records(40, seed=31)
    games = []
    for i, r in enumerate(records):
        meta = log_game(r, i).meta
        games.append(LogGame("gen.jsonl", i + 1, "", "jsonl", GameMeta(
            meta.players, meta.played_at, meta.record_id, f"club-night-{i // 12}",
            hand_no=i % 12 + 1, club="Herz Dame", table=f"T{i % 3}", dealer=2), r))
    src = tmp_path / "gen.jsonl"
    src.write_text("\n".join(write_jsonl(g) for g in games) + "\n")
    first = tmp_path / "first"
    ingest_paths([src], first, progress=False)
    out = tmp_path / "export.jsonl"
    assert export_archive(first, out, "jsonl") == 40
    second = tmp_path / "second"
    ingest_paths([out], second, progress=False)
    _assert_same_archives(first, second)
    row = read_table(second, "games").sort_by("played_at").to_pylist()[13]
    assert (row["club"], row["table"], row["hand_no"], row["dealer"], row["session_id"]) == (
        "Herz Dame", "T1", 2, 2, "club-night-1")
    assert [json.loads(line)["format"] for line in out.read_text().splitlines()] == [
        "skatlog/1"] * 40


def test_export_across_formats_is_lossless(tmp_path: Path, iss_dir: Path) -> None:
    """ISS records exported as skatlog JSON Lines (rules "iss") come back as the same rows."""
    first = tmp_path / "first"
    ingest_paths([iss_dir], first, progress=False)
    ids = set(read_table(first, "games", ["game_id"]).column("game_id").to_pylist())
    for fmt in ("jsonl", "iss"):
        out = tmp_path / f"out.{fmt}"
        export_archive(first, out, fmt)
        again = tmp_path / f"again-{fmt}"
        ingest_paths([out], again, progress=False)
        assert set(read_table(again, "games", ["game_id"]).column("game_id").to_pylist()) == ids
        _assert_same_archives(first, again)


def test_parallel_export_keeps_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import skatlog.ingest.export as export

    archive = tmp_path / "arc"
    ingest_paths([write_iss_file(tmp_path / "a.sgf", random_records(50, seed=41))], archive,
                 progress=False)
    monkeypatch.setattr(export, "PARALLEL_MIN_GAMES", 0)
    monkeypatch.setattr(export, "BATCH_ROWS", 7)
    serial = tmp_path / "serial.sgf"
    parallel = tmp_path / "parallel.sgf"
    assert export_archive(archive, serial, "iss", workers=1) == 50
    assert export_archive(archive, parallel, "iss", workers=2) == 50
    assert parallel.read_text() == serial.read_text()
    assert serial.read_text() == (tmp_path / "a.sgf").read_text()  # byte for byte



def test_fast_parquet_settings_reach_every_leaf_of_nested_columns(tmp_path: Path) -> None:
    """A per-column setting must name a Parquet leaf (``recorded_result.raw``): one named
    after the struct or list column itself reaches none of its values, and the recorded
    ``R[...]`` text was once stored uncompressed that way."""
    import pyarrow.parquet as pq

    from skatlog.ingest.archive import parquet_options
    from skatlog.ingest.schema import TABLES

    for name, schema in TABLES.items():
        options = parquet_options(schema, fast=True)
        written = tmp_path / f"{name}.parquet"
        with pq.ParquetWriter(written, schema, **options) as writer:
            writer.write_table(schema.empty_table())
        leaves = pq.ParquetFile(written).schema
        paths = {leaves.column(i).path for i in range(len(leaves))}
        assert set(options["compression"]) == paths, name  # one setting a leaf, no other
    games = parquet_options(TABLES["games"], fast=True)["compression"]
    assert games["recorded_result.raw"] == "zstd"


def _flush_in_child(path: str, marker: str) -> None:
    """In a forked child: queue a background flush whose fsync leaves ``marker``."""
    from skatlog.ingest import archive

    def mark(target: Path, directory: bool = False) -> None:
        Path(marker).write_text(str(target))

    archive._fsync_path = mark  # type: ignore[assignment]
    archive._background_flush(Path(path))
    assert archive._FLUSHER is not None
    archive._FLUSHER._pool.shutdown(wait=True)


def test_background_flush_works_in_a_forked_child(tmp_path: Path) -> None:
    """Ingest workers are forked and flush their parts in the background: a flusher the
    parent made before the fork has no thread in the child, so the child makes its own."""
    import multiprocessing as mp

    from skatlog.ingest import archive

    part = tmp_path / "part.parquet"
    part.write_bytes(b"x")
    archive._background_flush(part)  # the parent's flusher and thread exist now
    marker = tmp_path / "flushed"
    child = mp.get_context("fork").Process(target=_flush_in_child,
                                           args=(str(part), str(marker)))
    child.start()
    child.join(30)
    assert child.exitcode == 0
    assert marker.read_text() == str(part)
