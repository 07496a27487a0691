"""Simulated hands through log text and back: ``export`` / ``simulate --out`` -> ``ingest``
re-simulates each hand and stores exactly the row ``simulate --archive`` stores; a record
that only claims to be a simulated hand is stored as a logged game with a warning."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from skatlog.engine import GameState, Play
from skatlog.engine.record import GameRecord
from skatlog.ingest.archive import read_table
from skatlog.ingest.export import export_archive
from skatlog.ingest.fast import ingest_iss_fast
from skatlog.ingest.iss import write_iss
from skatlog.ingest.jsonl import write_jsonl
from skatlog.ingest.model import LogGame
from skatlog.ingest.pipeline import ingest_paths
from skatlog.ingest.simulated import (
    NOT_REPRODUCED,
    Claim,
    hand_index,
    position_bots,
    reproduce,
    seat_bots,
)
from skatlog.ingest.validate import iter_log_games
from skatlog.simulation import SimulationOptions, simulate_to_archive, simulate_to_file

HANDS = 400
BOTS = ("rules", "random", "rules")
EXT = {"jsonl": "jsonl", "iss": "sgf"}


def _differences(left: Path, right: Path, table: str) -> tuple[int, int]:
    """Rows of ``table`` in ``left`` and not in ``right`` and the other way round (EXCEPT
    ALL over every column but ingest_id): (0, 0) when the tables hold the same rows."""
    con = duckdb.connect()
    for name, root in (("l", left), ("r", right)):
        data = read_table(root, table)
        if "ingest_id" in data.schema.names:
            data = data.drop_columns(["ingest_id"])
        con.register(name, data)
    out = tuple(con.execute(f"SELECT count(*) FROM (SELECT * FROM {a} EXCEPT ALL "
                            f"SELECT * FROM {b})").fetchone()[0]  # type: ignore[index]
                for a, b in (("l", "r"), ("r", "l")))
    return out  # type: ignore[return-value]


def _assert_same_rows(left: Path, right: Path) -> None:
    for table in ("games", "tricks", "auction"):
        assert _differences(left, right, table) == (0, 0), table
    assert read_table(left, "games").num_rows == read_table(right, "games").num_rows


@pytest.fixture(scope="module", params=[False, True], ids=["plain", "sessions"])
def simulated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
              ) -> tuple[Path, SimulationOptions]:
    options = SimulationOptions(hands=HANDS, seed=5, bots=BOTS, sessions=request.param)
    root = tmp_path_factory.mktemp("sim") / "archive"
    simulate_to_archive(root, options, workers=1)
    return root, options


@pytest.mark.parametrize("fmt", ["jsonl", "iss"])
def test_export_then_ingest_is_lossless(simulated, fmt: str, tmp_path: Path) -> None:
    root, _ = simulated
    moves = read_table(root, "games").column("moves")
    assert 0 < moves.null_count < HANDS  # rows rebuilt from tricks, and declare-first text
    out = tmp_path / f"e.{EXT[fmt]}"
    assert export_archive(root, out, fmt) == HANDS
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    again = ingest_paths([out], copy, progress=False, fast=False)
    assert (again.seen, again.stored, again.duplicates, again.rejected) == (HANDS, 0, HANDS, 0)
    fresh = tmp_path / "fresh"
    first = ingest_paths([out], fresh, progress=False, fast=False)
    assert (first.stored, first.duplicates) == (HANDS, 0)
    _assert_same_rows(root, fresh)
    # and the export of the re-ingested archive is the same text
    assert export_archive(fresh, tmp_path / f"f.{EXT[fmt]}", fmt) == HANDS
    assert (tmp_path / f"f.{EXT[fmt]}").read_text() == out.read_text()


def test_compiled_path_hands_simulated_records_to_the_reference_path(simulated,
                                                                       tmp_path: Path
                                                                       ) -> None:
    root, _ = simulated
    out = tmp_path / "e.sgf"
    export_archive(root, out, "iss")
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    again = ingest_iss_fast([out], copy, workers=1)
    assert (again.seen, again.stored, again.duplicates, again.rejected) == (HANDS, 0, HANDS, 0)
    fresh = tmp_path / "fresh"
    assert ingest_iss_fast([out], fresh, workers=2, chunk_bytes=1 << 14).stored == HANDS
    _assert_same_rows(root, fresh)
    # through ingest_paths' own switch too
    forced = ingest_paths([out], tmp_path / "forced", progress=False, fast=True)
    assert forced.stored == HANDS
    _assert_same_rows(root, tmp_path / "forced")


@pytest.mark.parametrize("fmt", ["jsonl", "sgf"])
def test_simulate_out_then_ingest_stores_the_archive_rows(simulated, fmt: str,
                                                           tmp_path: Path) -> None:
    root, options = simulated
    out = tmp_path / f"x.{fmt}"
    simulate_to_file(out, options)
    summary = ingest_paths([out], tmp_path / "back", progress=False)
    assert (summary.stored, summary.duplicates) == (HANDS, 0)
    _assert_same_rows(root, tmp_path / "back")


def _other_play(game: LogGame) -> LogGame:
    """``game`` played differently from its first trick card with a choice on: a valid
    game that the simulator did not play."""
    record = game.record
    assert record is not None
    state = GameState(record.deal)
    moves = list(record.moves)
    for k, move in enumerate(moves):
        if type(move) is Play and len(state.legal_cards()) > 1:
            card = next(c for c in state.legal_cards() if c != move.card)
            state.apply(Play(move.seat, card))
            while not state.finished:
                state.apply(Play(state.to_move, state.legal_cards()[0]))  # type: ignore[arg-type]
            break
        state.apply(moves[k])
    else:
        raise AssertionError("no card play with a choice")
    return replace(game, record=GameRecord.from_state(state), recorded=None)


@pytest.mark.parametrize("fmt", ["jsonl", "iss"])
def test_a_tampered_record_is_stored_as_a_logged_game_with_a_warning(simulated, fmt: str,
                                                                     tmp_path: Path) -> None:
    root, _ = simulated
    out = tmp_path / f"e.{EXT[fmt]}"
    export_archive(root, out, fmt)
    games = list(iter_log_games([out]))
    played = next(i for i, g in enumerate(games)
                  if g.record is not None and g.record.result.declarer is not None)
    write = write_jsonl if fmt == "jsonl" else write_iss
    lines = out.read_text().splitlines()
    lines[played] = write(_other_play(games[played]), result="none")
    seed_changed = write(games[0], result="none").replace('"seed":"5"', '"seed":"6"') \
        .replace("seed[5]", "seed[6]")
    assert seed_changed != lines[0]
    lines.append(seed_changed)
    bad_tag = write(games[1], result="none").replace('"hand":"1"', '"hand":"x1"') \
        .replace("hand[1]", "hand[x1]")
    lines.append(bad_tag)
    tampered = tmp_path / f"t.{EXT[fmt]}"
    tampered.write_text("\n".join(lines) + "\n")
    paths = [("ref", lambda a: ingest_paths([tampered], a, progress=False, fast=False))]
    if fmt == "iss":
        paths.append(("fast", lambda a: ingest_iss_fast([tampered], a, workers=1)))
    for name, ingest in paths:
        archive = tmp_path / name
        summary = ingest(archive)
        assert (summary.stored, summary.rejected) == (HANDS + 2, 0), name
        rows = read_table(archive, "games").to_pylist()
        logged = [r for r in rows if r["origin"] == "log"]
        assert len(logged) == 3, name
        assert all(r["warnings"] == [NOT_REPRODUCED] and r["seed"] is None for r in logged)
        sources = {json.loads(r["extra"])["tags"]["seed"] for r in logged}
        assert sources == {"5", "6"}
        # the other hands are the simulator's own rows; the tampered one is not among them
        assert _differences(archive, root, "games") == (3, 1), name
        # a logged game keeps its tags: export -> ingest again stores nothing
        back = tmp_path / f"{name}.again.{EXT[fmt]}"
        export_archive(archive, back, fmt)
        assert ingest_paths([back], archive, progress=False, fast=False).stored == 0


def test_hand_index_inverts_the_run_ids() -> None:
    options = SimulationOptions(hands=10, seed=11, bots=BOTS, sessions=True).resolved()
    assert options.id_base is not None
    for index in (0, 1, 2, 7, 1_000_003):
        by_seat = seat_bots(BOTS, index)
        assert position_bots(by_seat, index) == BOTS
        game_id = (options.id_base + index) % (1 << 64)
        game_id -= (1 << 64) if game_id >= 1 << 63 else 0
        assert hand_index(game_id, 11, by_seat, True) == index
        assert hand_index(game_id, 11, by_seat, False) is None
        assert hand_index(game_id, 12, by_seat, True) is None
    assert Claim(11, BOTS, 3, False) != Claim(11, BOTS, 3, True)


@pytest.mark.parametrize(("tag", "value", "says"), [
    ("hand", "1000000000002", "beyond"),          # a run has at most 10**12 hands
    ("seed", "1" * 5000, "5000 characters long"),  # more digits than Python's int() takes
    ("bots", "rules,cheater,rules", "not three of"),
])
def test_an_impossible_claim_is_a_logged_game_not_a_crash(tmp_path: Path, tag: str,
                                                         value: str, says: str) -> None:
    out = tmp_path / "one.jsonl"
    simulate_to_file(out, SimulationOptions(hands=1, seed=3))
    line = json.loads(out.read_text())
    line["tags"][tag] = value
    out.write_text(json.dumps(line) + "\n")
    summary = ingest_paths([out], tmp_path / "arc", progress=False)
    assert (summary.stored, summary.rejected) == (1, 0)
    row = read_table(tmp_path / "arc", "games").to_pylist()[0]
    assert row["origin"] == "log" and row["warnings"] == [NOT_REPRODUCED]
    game = next(iter(iter_log_games([out])))
    assert says in reproduce([game]).logged[0].warnings[-1].message


@pytest.mark.parametrize("fmt", ["jsonl", "sgf"])
def test_the_simulators_own_lines_are_stored_without_a_replay(simulated, fmt: str,
                                                              tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """``simulate --out`` lines are matched by their text against the re-simulated hands
    (:mod:`skatlog.ingest.sim_claims`), on the reference and the compiled path: none is
    parsed or replayed. A tampered line, and in skatlog/1 the same object spaced otherwise,
    are not the simulator's bytes: they are replayed and checked as before."""
    import skatlog.ingest.validate as validate

    root, options = simulated
    out = tmp_path / f"x.{fmt}"
    simulate_to_file(out, options)
    lines = out.read_text().splitlines()
    games = list(iter_log_games([out]))
    played = next(i for i, g in enumerate(games)
                  if g.record is not None and g.record.result.declarer is not None)
    write = write_jsonl if fmt == "jsonl" else write_iss
    lines[played] = write(_other_play(games[played]), result="none")
    extra = 0
    if fmt == "jsonl":  # the same hand, other bytes: replayed, and still the simulator's
        lines.append(json.dumps(json.loads(lines[played + 1])))
        extra = 1
    tampered = tmp_path / f"t.{fmt}"
    tampered.write_text("\n".join(lines) + "\n")
    replays = []
    original = validate.replay_parsed
    monkeypatch.setattr(validate, "replay_parsed",
                        lambda parsed, **kw: replays.append(1) or original(parsed, **kw))
    paths = [("ref", lambda a: ingest_paths([tampered], a, progress=False, fast=False))]
    if fmt == "sgf":
        paths.append(("fast", lambda a: ingest_iss_fast([tampered], a, workers=1)))
    for name, ingest in paths:
        replays.clear()
        archive = tmp_path / name
        summary = ingest(archive)
        assert len(replays) == 1 + extra, name
        assert (summary.seen, summary.stored, summary.duplicates) == (HANDS + extra, HANDS,
                                                                      extra), name
        rows = read_table(archive, "games").to_pylist()
        logged = [r for r in rows if r["origin"] == "log"]
        assert [r["warnings"] for r in logged] == [[NOT_REPRODUCED]], name
        assert _differences(archive, root, "games") == (1, 1), name


@pytest.mark.parametrize("fmt", ["jsonl", "sgf"])
def test_a_configured_rules_bot_is_re_simulated_too(fmt: str, tmp_path: Path) -> None:
    """A line-up with a configured rules bot (``rules:SETTING+...``, issue 18) is claimed,
    matched and stored as the simulator's rows, on both paths, like the bare bot names."""
    bots = ("rules:no-trumps_first+bid_slack=0", "random", "rules")
    options = SimulationOptions(hands=300, seed=9, bots=bots)
    root = tmp_path / "archive"
    simulate_to_archive(root, options, workers=1)
    out = tmp_path / f"c.{fmt}"
    simulate_to_file(out, options)
    ingests = [("ref", lambda a: ingest_paths([out], a, progress=False, fast=False))]
    if fmt == "sgf":
        ingests.append(("fast", lambda a: ingest_iss_fast([out], a, workers=2,
                                                          chunk_bytes=1 << 15)))
    for name, ingest in ingests:
        summary = ingest(tmp_path / name)
        assert (summary.seen, summary.stored, summary.rejected) == (300, 300, 0), name
        origins = {r["origin"] for r in read_table(tmp_path / name, "games").to_pylist()}
        assert origins == {"simulated"}, name
        _assert_same_rows(root, tmp_path / name)
