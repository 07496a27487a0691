"""``skatlog verify``: every stored game replays through the engine with the stored result."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.engine.simulate import SimulationOptions, simulate_to_archive
from skatlog.ingest.archive import committed_files
from skatlog.ingest.verify import verify_archive

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
    assert report["examples"][0].startswith(f"{game_id}: value stored")
    text = runner.invoke(app, ["verify", "--archive", str(tmp_path), "-q", "--workers", "1"])
    assert text.exit_code == 1
    assert f"game {game_id}: value stored" in text.stdout
    assert "verified 300 games" in text.stdout and "1 problems" in text.stdout


def test_a_missing_archive_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["verify", "--archive", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "no archive at" in result.output
