"""The batch simulator against the engine: every produced hand replays identically."""

from __future__ import annotations

import itertools

import numba
import numpy as np
import pyarrow as pa
import pytest

from skatlog.engine import GameState
from skatlog.engine.batch import UnknownBot, simulate_batch, verify_batch
from skatlog.engine.batch.kernel import MAX_CALLS
from skatlog.engine.batch.tables import DECL_T, EFFECTIVE_T, LADDER_T
from skatlog.engine.tricks import EFFECTIVE
from skatlog.ingest.computed import query_table
from skatlog.ingest.moves_codec import encode_moves
from skatlog.ingest.rebuild import TRICK_FIELDS, moves_from_rows
from skatlog.ingest.rows import GameRowsBuilder, SimulatedMeta
from skatlog.ingest.schema import CALL_KINDS, TABLES
from skatlog.ingest.sim_rows import moves_text
from skatlog.simulation import SimulationOptions, log_games
from skatlog.simulation.batches import batch_tables

MIXES = [("random", "random", "random"), ("rules", "rules", "rules"),
         ("rules", "rules", "random"), ("random", "rules", "random")]


def test_tables_are_the_engines() -> None:
    assert EFFECTIVE_T.tolist() == [list(row) for row in EFFECTIVE]
    assert LADDER_T[0] == 18 and LADDER_T[-1] == 264 and len(LADDER_T) == 63
    # every stored declaration passes the engine's own legality check (R5, R6)
    assert len(DECL_T) == 29


@pytest.mark.parametrize("bots", MIXES)
def test_differential_replay(bots: tuple[str, str, str]) -> None:
    """~3,000 hands in all: moves replay through GameState.apply with identical tricks and
    identical result fields (won, value, multiplier, overbid, points, ...)."""
    batch = simulate_batch(2024, 10_000, 750, bots)
    assert verify_batch(batch) == []


def test_differential_catches_a_wrong_score() -> None:
    batch = simulate_batch(5, 0, 50, ("rules",) * 3)
    row = int(np.flatnonzero(batch.column("declarer") >= 0)[0])
    batch.column("value")[row] += 1
    mismatches = verify_batch(batch)
    assert [(m.index, m.field) for m in mismatches] == [(row, "value")]


def test_differential_catches_an_illegal_card() -> None:
    batch = simulate_batch(5, 0, 50, ("rules",) * 3)
    row = int(np.flatnonzero(batch.column("declarer") >= 0)[0])
    batch.cards[row, 1] = batch.cards[row, 0]  # the same card twice in trick 1
    mismatches = verify_batch(batch)
    assert mismatches and mismatches[0].field == "replay"


def test_full_rules_are_exercised() -> None:
    randoms = simulate_batch(9, 0, 3000, ("random",) * 3)
    rules = simulate_batch(9, 0, 3000, ("rules",) * 3)
    decls = []
    for batch in (randoms, rules):
        played = batch.column("declarer") >= 0
        decl = DECL_T[batch.column("decl")[played]]
        decls.append(decl)
        assert int(batch.n_calls.max()) <= MAX_CALLS
    both = np.concatenate(decls)
    assert set(both[:, 0].tolist()) == {0, 1, 2, 3, 4, 5}  # all contracts
    assert both[:, 1].any() and both[:, 2].any() and both[:, 3].any() and both[:, 4].any()
    assert randoms.column("overbid").any()
    assert (rules.column("declarer") < 0).any()  # all passed (R4)
    mixed = simulate_batch(9, 0, 3000, ("random", "rules", "rules"))
    played = mixed.column("declarer") >= 0
    null = DECL_T[mixed.column("decl")[played]][:, 0] == 5
    cut = mixed.column("n_cards")[played] < 30
    assert (null & cut).any()  # R9: null ends when the declarer takes a trick
    assert not (~null & cut).any()  # every other game is played to ten tricks


def test_deterministic_whatever_the_split_and_threads() -> None:
    bots = ("rules", "random", "rules")
    whole = simulate_batch(77, 0, 9000, bots, threads=1)
    first = simulate_batch(77, 0, 4000, bots, threads=2)
    rest = simulate_batch(77, 4000, 5000, bots, threads=3)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        default = simulate_batch(77, 0, 9000, bots)
    finally:
        numba.set_num_threads(threads)
    many = simulate_batch(77, 0, 9000, bots, threads=4)
    for name in ("deal", "calls", "call_seats", "game", "discard", "cards", "winners"):
        full = getattr(whole, name)
        assert np.array_equal(full, np.concatenate([getattr(first, name), getattr(rest, name)]))
        assert np.array_equal(full, getattr(default, name))
        assert np.array_equal(full, getattr(many, name))
    other = simulate_batch(78, 0, 900, bots)
    assert not np.array_equal(whole.deal[:900], other.deal)


def test_moves_text_is_the_archive_notation() -> None:
    batch = simulate_batch(3, 0, 600, ("random", "rules", "random"))
    offsets, text = moves_text(batch)
    for row in range(len(batch)):
        got = bytes(text[offsets[row]:offsets[row + 1]]).decode()
        assert got == encode_moves(batch.moves(row))


def _rebuilt_moves(tables: dict) -> list[str]:
    """Every game's move list: the stored text, else rebuilt from its rows."""
    tricks: dict[int, list[list[int]]] = {}
    for row in query_table("tricks", tables["tricks"]).to_pylist():
        tricks.setdefault(row["game_id"], []).append([row[f] for f in TRICK_FIELDS])
    calls: dict[int, list[list[int]]] = {}
    for row in tables["auction"].to_pylist():
        calls.setdefault(row["game_id"], []).append(
            [row["call_no"], row["seat"], CALL_KINDS.index(row["kind"]),
             -1 if row["value"] is None else row["value"]])
    return [game["moves"] if game["moves"] is not None else encode_moves(moves_from_rows(
                game, tricks.get(game["game_id"]), calls.get(game["game_id"])))
            for game in tables["games"].to_pylist()]


@pytest.mark.parametrize("bots", [("random",) * 3, ("rules",) * 3, ("rules", "random", "rules")])
def test_moves_rebuild_from_rows(bots: tuple[str, str, str]) -> None:
    """The simulator leaves ``moves`` null exactly where the rows rebuild the engine's move
    list (everything but a declaration made before the discard, which keeps its text)."""
    options = SimulationOptions(hands=4000, seed=21, bots=bots)
    batch = simulate_batch(21, 0, 4000, bots)
    tables = batch_tables(batch, options)
    engine = [encode_moves(batch.moves(row)) for row in range(len(batch))]
    assert _rebuilt_moves(tables) == engine
    stored = tables["games"].column("moves").to_pylist()
    kept = [text for text in stored if text is not None]
    for text in kept:  # only hands whose declarer declared before discarding keep text
        tokens = text.split()
        assert any(a[1] == "=" and b[1] == "d" for a, b in itertools.pairwise(tokens)), text
    if bots[0] == "random":
        assert 0 < len(kept) < len(stored) // 50


@pytest.mark.parametrize("sessions", [False, True])
def test_rows_equal_the_archive_builder(sessions: bool) -> None:
    """The vectorised rows are exactly what ingest.rows's GameRowsBuilder makes."""
    options = SimulationOptions(hands=240, seed=12, bots=("rules", "random", "rules"),
                                sessions=sessions)
    batch = simulate_batch(12, 0, 240, options.bots)
    tables = batch_tables(batch, options, "run-1")
    builder = GameRowsBuilder("run-1")
    ids = tables["games"].column("game_id").to_pylist()
    for game, gid in zip(log_games(batch, options), ids, strict=True):
        assert game.record is not None
        builder.add_simulated(game.record, SimulatedMeta(
            seed=12, bots=game.extra["tags"]["bots"], players=game.meta.players,
            session_id=game.meta.session_id, hand_no=game.meta.hand_no, dealer=2),
            game_id=gid)
    expected = builder.tables()
    for name in ("games", "tricks", "auction"):
        assert tables[name].schema == TABLES[name]
        for column in TABLES[name].names:
            if (name, column) == ("games", "moves"):
                continue  # null where the rows rebuild it: test_moves_rebuild_from_rows
            assert tables[name].column(column).to_pylist() == \
                expected[name].column(column).to_pylist(), (name, column)
    assert _rebuilt_moves(tables) == expected["games"].column("moves").to_pylist()
    assert len(set(ids)) == len(ids)
    games = tables["games"]
    assert set(games.column("origin").to_pylist()) == {"simulated"}
    assert set(games.column("seed").to_pylist()) == {12}
    assert games.column("session_id").null_count == (0 if sessions else 240)


def test_rows_replay_from_the_archive_columns() -> None:
    """Each stored (or rebuilt) move list replays on the stored deal to the stored value."""
    options = SimulationOptions(hands=300, seed=4, bots=("random", "rules", "random"))
    batch = simulate_batch(4, 0, 300, options.bots)
    tables = batch_tables(batch, options)
    from skatlog.engine import Deal
    from skatlog.ingest.moves_codec import decode_moves

    games = tables["games"].select(["deal", "value"]).to_pylist()
    for row, text in zip(games, _rebuilt_moves(tables), strict=True):
        state = GameState(Deal.from_cards(row["deal"]))
        for move in decode_moves(text):
            state.apply(move)
        assert state.result().value == row["value"]


def test_bad_bots_and_counts() -> None:
    with pytest.raises(UnknownBot, match="unknown bot 'smart'"):
        simulate_batch(1, 0, 10, ("smart", "rules", "rules"))
    with pytest.raises(ValueError):
        simulate_batch(-1, 0, 10)
    empty = simulate_batch(1, 0, 0)
    assert len(empty) == 0 and isinstance(pa.array(empty.index), pa.Array)
