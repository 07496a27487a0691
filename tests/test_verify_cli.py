"""``skatlog verify``: every stored game replays through the engine with the stored result."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.ingest.archive import committed_files
from skatlog.ingest.verify import verify_archive
from skatlog.simulation import SimulationOptions, simulate_to_archive

runner = CliRunner()
SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"


def _verify_json(archive: Path, *extra: str) -> tuple[int, dict]:
    result = runner.invoke(app, ["verify", "--archive", str(archive), "--json", *extra])
    return result.exit_code, json.loads(result.stdout)


def test_a_simulated_run_verifies(tmp_path: Path) -> None:
    simulate_to_archive(tmp_path, SimulationOptions(hands=600, seed=3,
                                                    bots=("rules", "random", "rules")))
    code, report = _verify_json(tmp_path, "--workers", "1")
    assert code == 0
    assert report["checked"] == 600 and report["problems"] == 0 and report["ok"] is True


def test_logged_games_verify_under_the_recorded_rules(tmp_path: Path, iss_dir: Path) -> None:
    """Real ISS records (R17 early endings, R18 bids) and the shipped samples replay with
    the flags they were stored with."""
    paths = [str(p) for p in sorted(iss_dir.glob("*.sgf"))]
    paths += [str(SAMPLES / "skatfreunde-nord.sgf"), str(SAMPLES / "club-am-markt.jsonl")]
    ingest = runner.invoke(app, ["ingest", *paths, "--archive", str(tmp_path), "-q"])
    assert ingest.exit_code == 0, ingest.output
    report = verify_archive(tmp_path)
    stored = sum(pq.ParquetFile(p).metadata.num_rows for p in committed_files(tmp_path, "games"))
    assert report.checked == stored > 80
    assert report.ok, report.problems[:5]


def test_a_tampered_value_is_reported_with_exit_1(tmp_path: Path) -> None:
    simulate_to_archive(tmp_path, SimulationOptions(hands=300, seed=8, bots=("rules",) * 3))
    path = committed_files(tmp_path, "games")[0]
    table = pq.read_table(path)
    played = pc.indices_nonzero(pc.invert(table.column("passed"))).to_pylist()
    row = played[0]
    values = table.column("value").to_pylist()
    values[row] += 24
    game_id = table.column("game_id")[row].as_py()
    table = table.set_column(table.schema.get_field_index("value"), "value",
                             pa.array(values, pa.int16()))
    pq.write_table(table, path)
    code, report = _verify_json(tmp_path, "--workers", "1")
    assert code == 1
    assert report["checked"] == 300 and report["problems"] == 1 and report["ok"] is False
    assert report["games_with_problems"] == 1
    assert report["examples"][0].startswith(f"{game_id}: value stored")
    text = runner.invoke(app, ["verify", "--archive", str(tmp_path), "-q", "--workers", "1"])
    assert text.exit_code == 1
    assert f"game {game_id}: value stored" in text.stdout
    assert "verified 300 games" in text.stdout and "1 problems in 1 games" in text.stdout


def _tamper(archive: Path, table: str, column: str, change) -> int:
    """Rewrite ``table``'s first file with ``change(values)`` applied to ``column``; returns
    the game id of the first row."""
    path = committed_files(archive, table)[0]
    data = pq.read_table(path)
    index = data.schema.get_field_index(column)
    values = data.column(column).to_pylist()
    change(values)
    data = data.set_column(index, data.schema.field(index),
                           pa.array(values, data.schema.field(index).type))
    pq.write_table(data, path)
    return data.column("game_id")[0].as_py()


def _flip_winner(values: list) -> None:
    values[0] = (values[0] + 1) % 3


def _raise_first_bid(values: list) -> None:
    k = next(i for i, v in enumerate(values) if v is not None)
    values[k] += 1


def _other_contract(values: list) -> None:
    k = next(i for i, v in enumerate(values) if v is not None)
    values[k] = "grand" if values[k] != "grand" else "clubs"


def test_every_rule_decided_row_is_compared(tmp_path: Path) -> None:
    """A changed trick winner, auction value or contract is found, each in its own table.
    (A simulated hand's move list is rebuilt from its rows, so a bid off the ladder in its
    auction rows fails the replay itself.)"""
    for table, column, change, what in (("tricks", "winner", _flip_winner, "tricks row 1"),
                                        ("auction", "value", _raise_first_bid,
                                         # the first hand's first bid is Forehand taking
                                         # the game alone at 18 (rules bots, seed 5)
                                         "IllegalBid: R4: Forehand may only take the game "
                                         "at 18, not 19 (moves rebuilt from its rows)"),
                                        ("games", "contract", _other_contract,
                                         "(moves rebuilt from its rows)")):
        archive = tmp_path / table
        simulate_to_archive(archive, SimulationOptions(hands=200, seed=5, bots=("rules",) * 3))
        _tamper(archive, table, column, change)
        report = verify_archive(archive)
        assert report.checked == 200 and not report.ok, table
        assert report.bad_games == 1 and any(what in p for p in report.problems), report.problems


def test_child_rows_stored_twice_are_named(tmp_path: Path, iss_dir: Path) -> None:
    """An archive where a logged game's tricks and calls are stored twice (what an ingest
    before 2026-12-03 did with a game repeated inside one batch) is reported as such."""
    path = sorted(iss_dir.glob("*.sgf"))[0]
    assert runner.invoke(app, ["ingest", str(path), "--archive", str(tmp_path), "-q"]
                         ).exit_code == 0
    game_id = None
    for table in ("tricks", "auction"):
        part = committed_files(tmp_path, table)[0]
        data = pq.read_table(part)
        game_id = game_id if game_id is not None else data.column("game_id")[0].as_py()
        rows = data.filter(pc.equal(data.column("game_id"), game_id))
        pq.write_table(pa.concat_tables([data, rows]), part)
    report = verify_archive(tmp_path)
    assert report.bad_games == 1 and len(report.problems) == 2, report.problems
    for what in ("tricks", "auction"):
        assert f"{game_id}: {what}: every row stored 2 times" in "\n".join(report.problems)


def test_duplicates_and_orphans_are_reported(tmp_path: Path) -> None:
    simulate_to_archive(tmp_path, SimulationOptions(hands=100, seed=6, bots=("random",) * 3))
    path = committed_files(tmp_path, "games")[0]
    games = pq.read_table(path)
    k = next(i for i, passed in enumerate(games.column("passed").to_pylist())
             if i > 0 and not passed)
    orphan = games.column("game_id")[k].as_py()
    kept = pa.concat_tables([games.slice(0, k), games.slice(k + 1)])  # game k dropped ...
    pq.write_table(pa.concat_tables([kept, games.slice(0, 1)]), path)  # ... game 0 twice
    report = verify_archive(tmp_path)
    first = games.column("game_id")[0].as_py()
    assert f"{first}: game stored 2 times" in report.problems
    for table in ("tricks", "auction"):
        assert any(p.startswith(f"{orphan}: ") and p.endswith(f"{table} rows without a game")
                   for p in report.problems), table


def test_a_bad_row_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    simulate_to_archive(tmp_path, SimulationOptions(hands=50, seed=7, bots=("rules",) * 3))
    game_id = _tamper(tmp_path, "games", "moves", lambda v: v.__setitem__(0, "0XX 1p"))
    code, report = _verify_json(tmp_path, "--workers", "1")
    assert code == 1 and report["checked"] == 50 and report["games_with_problems"] == 1
    assert report["examples"][0].startswith(f"{game_id}: MovesError")


def test_unreadable_archives_are_usage_errors(tmp_path: Path) -> None:
    result = runner.invoke(app, ["verify", "--archive", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "no archive at" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["verify", "--archive", str(empty)])
    assert result.exit_code == 2 and "manifest.json" in result.output
    simulate_to_archive(tmp_path / "a", SimulationOptions(hands=30, seed=2))
    committed_files(tmp_path / "a", "games")[0].write_bytes(b"not parquet")
    result = runner.invoke(app, ["verify", "--archive", str(tmp_path / "a")])
    assert result.exit_code == 2 and "cannot read the archive" in result.output
    committed_files(tmp_path / "a", "games")[0].unlink()
    result = runner.invoke(app, ["verify", "--archive", str(tmp_path / "a")])
    assert result.exit_code == 2 and "missing file" in result.output


def test_large_archives_are_checked_in_passes(tmp_path: Path, monkeypatch) -> None:
    """Split by game_id into passes, every game is still checked once with its rows."""
    import skatlog.ingest.verify as verify

    simulate_to_archive(tmp_path, SimulationOptions(hands=300, seed=9, bots=("rules",) * 3))
    game_id = _tamper(tmp_path, "tricks", "winner", _flip_winner)
    monkeypatch.setattr(verify, "GAMES_PER_PASS", 70)
    report = verify_archive(tmp_path, batch_size=32)
    assert report.checked == 300 and report.bad_games == 1
    assert report.problems[0].startswith(f"{game_id}: tricks row 1 stored")
