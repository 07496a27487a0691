"""``skatlog simulate``: into the archive or a log file, reproducibly, with clear errors."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.ingest.archive import read_manifest, read_table
from skatlog.ingest.validate import iter_log_games
from skatlog.simulation import (
    SimulationError,
    SimulationOptions,
    parse_bots,
    simulate_to_archive,
)

runner = CliRunner()


def _games(archive: Path):
    return read_table(archive, "games").drop_columns(["ingest_id"]).sort_by("game_id")


def test_simulate_into_the_archive_twice_is_identical(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    args = ["simulate", "--hands", "5000", "--seed", "5", "--bots", "rules,rules,random",
            "--no-progress"]
    result = runner.invoke(app, [*args, "--archive", str(first)])
    assert result.exit_code == 0, result.output
    assert "5,000 hands stored" in result.output and "hands/s" in result.output
    # a different number of threads gives the same hands
    assert runner.invoke(app, [*args, "--workers", "1", "--archive", str(second)]).exit_code == 0
    assert _games(first).equals(_games(second))
    for table in ("tricks", "auction"):
        assert read_table(first, table).equals(read_table(second, table))
    # the same run again into the same archive: every hand is already there
    again = runner.invoke(app, [*args, "--archive", str(first)])
    assert again.exit_code == 0 and "5,000 already there" in again.output
    assert "5,000 stored hands were not simulated again" in again.output
    played = [line for line in result.output.splitlines() if line.startswith("played")]
    assert played and played[0] in again.output  # the same counts, read from the archive
    assert read_table(first, "games").num_rows == 5000
    games = read_table(first, "games")
    assert set(games.column("origin").to_pylist()) == {"simulated"}
    assert set(games.column("bots").to_pylist()) == {
        "rules,rules,random", "rules,random,rules", "random,rules,rules"}
    assert pc.min(games.column("seed")).as_py() == 5
    assert read_manifest(first).rows("ingests") == 2


def test_sessions_rotate_the_dealer(tmp_path: Path) -> None:
    options = SimulationOptions(hands=36, seed=2, sessions=True)
    simulate_to_archive(tmp_path, options)
    games = read_table(tmp_path, "games").to_pylist()
    assert {g["session_id"] for g in games} == {"sim-2-0", "sim-2-1", "sim-2-2"}
    first = [g for g in games if g["session_id"] == "sim-2-0"]
    assert sorted(g["hand_no"] for g in first) == list(range(1, 13))
    by_hand = {g["hand_no"]: g for g in first}
    # R2: the deal moves one seat to the left each hand (P1 deals hand 1, P2 hand 2, ...)
    assert [by_hand[n]["rearhand"] for n in (1, 2, 3, 4)] == ["P1:rules", "P2:rules",
                                                              "P3:rules", "P1:rules"]


@pytest.mark.parametrize("suffix", ["sgf", "jsonl"])
def test_simulate_to_a_log_file_validates_and_repeats(tmp_path: Path, suffix: str) -> None:
    out1, out2 = tmp_path / f"one.{suffix}", tmp_path / f"two.{suffix}"
    for out in (out1, out2):
        result = runner.invoke(app, ["simulate", "--hands", "60", "--seed", "9", "--bots",
                                     "random,rules,rules", "--sessions", "--out", str(out),
                                     "--no-progress"])
        assert result.exit_code == 0, result.output
    assert out1.read_text() == out2.read_text()
    games = list(iter_log_games([out1]))
    assert len(games) == 60 and all(g.ok for g in games)
    assert all(g.value_check == "ok" for g in games)


def test_user_errors_are_clear(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", "--hands", "5", "--bots", "rules,smart,rules"])
    assert result.exit_code == 2 and "unknown bot 'smart'" in result.output
    result = runner.invoke(app, ["simulate", "--hands", "5", "--out", str(tmp_path / "x.txt"),
                                 "--no-progress"])
    assert result.exit_code == 2 and ".sgf or .jsonl" in result.output
    result = runner.invoke(app, ["simulate", "--hands", "5", "--out", str(tmp_path / "x.sgf"),
                                 "--archive", str(tmp_path)])
    assert result.exit_code == 2 and "not both" in result.output
    result = runner.invoke(app, ["simulate", "--hands", "-3"])
    assert result.exit_code == 2 and "must be in 0 .." in result.output
    result = runner.invoke(app, ["simulate", "--hands", str(10**20)])
    assert result.exit_code == 2 and "must be in 0 .." in result.output
    existing = tmp_path / "kept.sgf"
    existing.write_text("a log of the club\n")
    result = runner.invoke(app, ["simulate", "--hands", "5", "--out", str(existing)])
    assert result.exit_code == 2 and "pass --force" in result.output
    assert existing.read_text() == "a log of the club\n"
    result = runner.invoke(app, ["simulate", "--hands", "5", "--out", str(existing), "--force"])
    assert result.exit_code == 0 and existing.read_text().count("(;GM[Skat]") == 5
    assert not list(tmp_path.glob(".kept.sgf.tmp*"))
    result = runner.invoke(app, ["simulate", "--hands", "5", "--staging", str(tmp_path)])
    assert result.exit_code == 2 and "give --scheduler too" in result.output
    result = runner.invoke(app, ["simulate", "--hands", "5", "--scheduler", "notaurl",
                                 "--archive", str(tmp_path / "never")])
    assert result.exit_code == 1 and "cannot reach the Dask scheduler" in result.output
    with pytest.raises(SimulationError):
        parse_bots("rules,random")
    assert parse_bots("random") == ("random",) * 3


def test_verify_archive_replays_every_stored_game(tmp_path: Path) -> None:
    from skatlog.ingest.verify import verify_archive, verify_rows

    simulate_to_archive(tmp_path, SimulationOptions(hands=400, seed=21,
                                                    bots=("rules", "random", "rules")))
    report = verify_archive(tmp_path)
    assert (report.checked, report.problems) == (400, [])
    columns = read_table(tmp_path, "games").slice(0, 50).to_pydict()
    stored = sum(text is not None for text in columns["moves"])
    count, found = verify_rows(columns)  # without its trick and call lists ...
    assert count == 50 and len(found) == 50 - stored  # ... a row without moves is a finding
    assert all("no move list stored and no tricks" in p for p in found)
    from skatlog.ingest.export import iter_archive_games
    from skatlog.ingest.moves_codec import encode_moves

    columns["moves"] = [encode_moves(game.record.moves)  # type: ignore[union-attr]
                        for game in list(iter_archive_games(tmp_path))[:50]]
    assert verify_rows(columns) == (50, [])
    row = next(i for i, d in enumerate(columns["declarer"]) if d is not None)
    columns["value"][row] += 1
    columns["moves"][row + 1] = columns["moves"][row + 1].replace("p", "y", 1)
    count, found = verify_rows(columns)
    assert count == 50 and len(found) >= 2
    assert any("value stored" in p for p in found)


def test_parallel_tasks_store_the_same_rows_in_one_commit(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Tasks on parallel threads write their own partitions; the parent commits them all at
    once. Rows and their order equal the single-process run; a re-run stores nothing."""
    from skatlog.simulation import to_archive

    monkeypatch.setattr(to_archive, "TASK", 1500)
    monkeypatch.setattr(to_archive, "PARALLEL_THRESHOLD", 0)
    options = SimulationOptions(hands=4000, seed=8, bots=("random", "rules", "random"))
    one, two = tmp_path / "one", tmp_path / "two"
    single = simulate_to_archive(one, options, workers=1)
    seen: list[int] = []
    double = simulate_to_archive(two, options, workers=2, on_progress=seen.append)
    assert single.stored == double.stored == 4000 and sum(seen) == 4000
    assert (single.played, single.declarer_won) == (double.played, double.declarer_won)
    for table in ("games", "tricks", "auction"):
        left, right = read_table(one, table), read_table(two, table)
        if table == "games":
            left, right = left.drop_columns(["ingest_id"]), right.drop_columns(["ingest_id"])
        assert left.equals(right), table
    manifest = read_manifest(two)
    assert manifest.generation == 1  # one per task; the last 1,500 hands in 150-hand tasks
    assert len(manifest.files("games")) == len(to_archive.task_ranges(4000, 2)) == 2 + 10
    assert len(read_manifest(one).files("games")) == len(to_archive.task_ranges(4000)) == 3
    again = simulate_to_archive(two, SimulationOptions(hands=5000, seed=8,
                                                       bots=options.bots), workers=2)
    assert (again.stored, again.duplicates) == (1000, 4000)
    games = read_table(two, "games")
    assert games.num_rows == 5000 and len(set(games.column("game_id").to_pylist())) == 5000
    leftovers = [p for p in two.rglob("*") if p.is_file() and p.suffix == ".parquet"
                 and f"{p.parent.name}/{p.name}" not in
                 {f for t in ("games", "tricks", "auction", "ingests")
                  for f in read_manifest(two).files(t)}]
    assert leftovers == []


def test_simulated_ids_are_consecutive_from_the_run_base() -> None:
    import numpy as np

    from skatlog.engine.batch import simulate_batch
    from skatlog.simulation.batches import batch_tables

    options = SimulationOptions(hands=50, seed=3, bots=("random",) * 3).resolved()
    assert options.id_base is not None and options.resolved() is options
    batch = simulate_batch(3, 10, 20, options.bots)
    ids = batch_tables(batch, options)["games"].column("game_id").to_numpy().view(np.uint64)
    expected = np.uint64(options.id_base) + np.arange(10, 30, dtype=np.uint64)
    assert (ids == expected).all()
    others = {SimulationOptions(hands=50, seed=4, bots=("random",) * 3).resolved().id_base,
              SimulationOptions(hands=50, seed=3, bots=("rules",) * 3).resolved().id_base,
              SimulationOptions(hands=50, seed=3, bots=("random",) * 3, sessions=True)
              .resolved().id_base}
    assert options.id_base not in others and len(others) == 3
    with pytest.raises(SimulationError, match="not simulated with these options"):
        batch_tables(simulate_batch(4, 0, 5, options.bots), options)


@pytest.mark.parametrize("workers", [1, 2])
def test_export_rebuilds_simulated_move_lists(tmp_path: Path, workers: int,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A simulated archive stores most hands without ``moves``; export rebuilds every move
    list from the rows (declarations made before the discard included), so the exported
    log is exactly what the engine played and ingests to the same tricks and auctions."""
    import duckdb

    import skatlog.ingest.export as export
    from skatlog.engine.batch import simulate_batch
    from skatlog.ingest.export import export_archive
    from skatlog.ingest.pipeline import ingest_paths

    monkeypatch.setattr(export, "PARALLEL_MIN_GAMES", 0)
    monkeypatch.setattr(export, "BATCH_ROWS", 97)
    bots = ("random", "rules", "random")
    simulate_to_archive(tmp_path / "sim", SimulationOptions(hands=1500, seed=8, bots=bots))
    moves = read_table(tmp_path / "sim", "games").column("moves")
    assert 0 < moves.null_count < 1500  # most rebuilt; declare-first hands keep their text
    out = tmp_path / "sim.jsonl"
    assert export_archive(tmp_path / "sim", out, "jsonl", workers=workers) == 1500
    batch = simulate_batch(8, 0, 1500, bots)
    games = list(iter_log_games([out]))
    assert [g.record.moves for g in games  # type: ignore[union-attr]
            ] == [tuple(batch.moves(k)) for k in range(1500)]
    ingest_paths([out], tmp_path / "back", progress=False)
    con = duckdb.connect()
    for table, key in (("tricks", "trick_no"), ("auction", "call_no")):
        rows = []
        for name in ("sim", "back"):
            files = f"'{tmp_path / name}/{table}/*.parquet'"
            rows.append(con.execute(
                f"SELECT * EXCLUDE (game_id) FROM read_parquet({files}) t JOIN (SELECT game_id, "
                f"deal FROM read_parquet('{tmp_path / name}/games/*.parquet')) g USING (game_id) "
                f"ORDER BY deal, {key}").fetchall())
        assert rows[0] == rows[1], table


def test_export_of_a_run_without_tricks(tmp_path: Path) -> None:
    """A run whose hands were all passed has no ``tricks`` files; its move lists (calls
    only) still rebuild and export."""
    from skatlog.engine.batch import simulate_batch
    from skatlog.ingest.export import export_archive

    seed = next(s for s in range(1, 500)
                if simulate_batch(s, 0, 1, ("rules",) * 3).column("declarer")[0] < 0)
    simulate_to_archive(tmp_path / "sim", SimulationOptions(hands=1, seed=seed))
    assert not (tmp_path / "sim" / "tricks").exists() or not any(
        (tmp_path / "sim" / "tricks").glob("*.parquet"))
    out = tmp_path / "passed.jsonl"
    assert export_archive(tmp_path / "sim", out, "jsonl") == 1
    (game,) = iter_log_games([out])
    assert game.record is not None and game.record.result.outcome == "passed"
    assert tuple(game.record.moves) == tuple(simulate_batch(seed, 0, 1, ("rules",) * 3).moves(0))


def test_export_names_a_game_whose_rows_do_not_replay(tmp_path: Path) -> None:
    """A damaged trick row (a card its seat never held) stops the export with the game's
    id and the rule, exit 1, and no output file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from skatlog.ingest.archive import committed_files

    simulate_to_archive(tmp_path / "sim", SimulationOptions(hands=50, seed=7))
    path = committed_files(tmp_path / "sim", "tricks")[0]
    tricks = pq.read_table(path)
    cards = tricks.column("card1").to_pylist()
    cards[3] = cards[0]  # trick 4 of game 1 opens with trick 1's first card
    index = tricks.schema.get_field_index("card1")
    pq.write_table(tricks.set_column(index, "card1", pa.array(cards, pa.uint8())), path)
    game_id = tricks.column("game_id")[3].as_py()
    out = tmp_path / "out.sgf"
    result = CliRunner().invoke(app, ["export", "--archive", str(tmp_path / "sim"),
                                      "--format", "iss", "--out", str(out)])
    assert result.exit_code == 1 and not out.exists()
    assert f"game {game_id}: R8: seat" in result.output


@settings(max_examples=300, deadline=None)
@given(chunks=st.lists(st.lists(st.integers(-6, 40), max_size=12), max_size=6),
       known=st.sets(st.integers(-6, 40), max_size=10), start=st.integers(-50, 50))
def test_fresh_ids_keep_the_first_of_each_id_not_in_the_archive(
        chunks: list[list[int]], known: set[int], start: int) -> None:
    """A task's id filter equals the plain rule (first occurrence, not in the archive),
    on arbitrary chunks and on consecutive ones (the fast path every simulated run takes)."""
    import numpy as np

    from skatlog.simulation.stored import StoredIds, fresh_ids

    consecutive = [list(range(start + 5 * k, start + 5 * k + 5)) for k in range(3)]
    sorted_known = np.array(sorted(known), dtype=np.int64)
    for run in (chunks, consecutive, consecutive + chunks):
        stored, seen, kept = StoredIds(), set(known), []
        for chunk in run:
            keep = fresh_ids(np.array(chunk, dtype=np.int64), stored, sorted_known)
            expected = []
            for value in chunk:
                expected.append(value not in seen)
                seen.add(value)
            assert keep.tolist() == expected
            kept += [v for v, k in zip(chunk, keep.tolist(), strict=True) if k]
        assert sorted(kept) == sorted(set(v for c in run for v in c) - known)


def test_a_rerun_skips_the_chunks_already_stored_and_reports_the_same_counts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hands whose ids the archive holds are not simulated again (their ids are known in
    advance); the summary still counts their games and wins, read from the archive."""
    from skatlog.simulation import batches

    options = SimulationOptions(hands=3000, seed=21, bots=("rules", "random", "rules"))
    first = simulate_to_archive(tmp_path, options, chunk=500, workers=1)
    assert first.stored == 3000 and 0 < first.declarer_won < first.played < 3000
    simulated: list[tuple[int, int]] = []
    real = batches.simulate_batch

    def counting(seed: int, start: int, count: int, *args: object, **kwargs: object) -> object:
        simulated.append((start, count))
        return real(seed, start, count, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(batches, "simulate_batch", counting)
    again = simulate_to_archive(tmp_path, options, chunk=500, workers=1)
    assert simulated == []
    assert (again.stored, again.duplicates) == (0, 3000)
    assert (again.played, again.declarer_won) == (first.played, first.declarer_won)
    longer = simulate_to_archive(tmp_path, SimulationOptions(
        hands=3700, seed=21, bots=options.bots), chunk=500, workers=1)
    assert simulated == [(3000, 500), (3500, 200)]
    assert (longer.stored, longer.duplicates) == (700, 3000)
    games = read_table(tmp_path, "games")
    assert games.num_rows == 3700
    played = sum(1 for d in games.column("declarer").to_pylist() if d is not None)
    assert longer.played == played


def test_id_bounds_split_a_range_that_wraps_past_the_largest_id() -> None:
    import numpy as np

    from skatlog.ingest.sim_ids import run_ids
    from skatlog.simulation.stored import id_bounds

    top = 2**63 - 1
    assert id_bounds(10, [(0, 5), (7, 7)]) == [(10, 14)]
    base = (top - 2) % 2**64  # hands 0..2 end at the largest int64, hand 3 wraps
    assert id_bounds(base, [(0, 6)]) == [(top - 2, top), (-2**63, -2**63 + 2)]
    for lo, hi in id_bounds(base, [(0, 6)]):
        assert lo <= hi
    ids = run_ids(base, 0, 6)
    assert sum(int(((ids >= lo) & (ids <= hi)).sum())
               for lo, hi in id_bounds(base, [(0, 6)])) == 6 == len(np.unique(ids))
