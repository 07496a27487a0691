"""``skatlog ingest``, ``skatlog query`` and ``skatlog export`` from the command line."""

from __future__ import annotations

import csv
import io
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.engine import RandomPlayer, deal_cards, play_hand
from skatlog.ingest.archive import read_table
from skatlog.ingest.iss import format_iss
from skatlog.ingest.model import GameMeta

QUERY = ("SELECT contract, count(*), avg(won::int) FROM games WHERE outcome = 'played' "
         "GROUP BY contract")

runner = CliRunner()


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    rng = random.Random(12)
    players = (RandomPlayer(step_bids=True),) * 3
    start = datetime(2024, 2, 1, tzinfo=UTC)
    lines = [format_iss(play_hand(deal_cards(rng), players, rng, checked=False),
                        GameMeta(("anna", "ben", "clara"), start + timedelta(minutes=i),
                                 str(i), "s1"))
             for i in range(80)]
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "part1.sgf").write_text("\n".join(lines[:50]) + "\n")
    import gzip

    with gzip.open(folder / "part2.sgf.gz", "wt") as out:
        out.write("\n".join(lines[50:]) + "\n")
    return folder


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def summary_value(text: str, key: str) -> int:
    for line in text.splitlines():
        if line.startswith(key + " "):
            return int(line.split()[1].replace(",", ""))
    raise AssertionError(f"no {key!r} in {text!r}")


def test_ingest_query_export(tmp_path: Path, logs: Path, iss_dir: Path) -> None:
    archive = str(tmp_path / "arc")
    code, out, err = run("ingest", str(logs), str(iss_dir), "--archive", archive)
    assert code == 0, err
    assert summary_value(out, "stored") == summary_value(out, "seen") - 1 == 80 + 25
    assert "corrupt_card" in out and "games/s" in out

    code, out, _ = run("ingest", str(logs), "--archive", archive, "--quiet")
    assert code == 0
    assert summary_value(out, "stored") == 0 and summary_value(out, "duplicates") == 80

    code, out, err = run("query", QUERY, "--archive", archive)
    assert code == 0, err
    assert "contract" in out and "grand" in out

    code, out, _ = run("query", QUERY + " ORDER BY contract", "--archive", archive,
                       "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0][0] == "contract" and len(rows) > 2
    assert sum(int(r[1]) for r in rows[1:]) == len(
        [g for g in read_table(archive, "games").to_pylist() if g["outcome"] == "played"])

    code, out, _ = run("query", "SELECT game_id, played_at, deal FROM games LIMIT 3",
                       "--archive", archive, "--format", "json")
    data = json.loads(out)
    assert code == 0 and len(data) == 3 and len(data[0]["deal"]) == 32
    assert isinstance(data[0]["played_at"], str)

    out_file = tmp_path / "export.jsonl"
    code, _, err = run("export", "--archive", archive, "--format", "jsonl", "--out",
                       str(out_file))
    assert code == 0, err
    assert len(out_file.read_text().splitlines()) == 105

    fresh = str(tmp_path / "fresh")
    code, out, _ = run("ingest", str(out_file), "--archive", fresh, "--quiet")
    assert code == 0 and summary_value(out, "stored") == 105
    ids = sorted(read_table(archive, "games").column("game_id").to_pylist())
    assert sorted(read_table(fresh, "games").column("game_id").to_pylist()) == ids


def test_archive_from_environment(tmp_path: Path, logs: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKATLOG_ARCHIVE", str(tmp_path / "env-arc"))
    code, _, err = run("ingest", str(logs / "part1.sgf"), "--quiet")
    assert code == 0, err
    code, out, _ = run("query", "SELECT count(*) AS n FROM games", "--format", "csv")
    assert code == 0 and out.splitlines() == ["n", "50"]


@pytest.mark.parametrize("sql", ["SELEC 1", "SELECT nope FROM games", "SELECT * FROM players"])
def test_bad_sql_is_a_clear_error(tmp_path: Path, logs: Path, sql: str) -> None:
    archive = str(tmp_path / "arc")
    assert run("ingest", str(logs), "--archive", archive, "--quiet")[0] == 0
    code, out, err = run("query", sql, "--archive", archive)
    assert code == 2
    assert "bad query" in err and "Traceback" not in err + out


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    code, _, err = run("ingest", str(tmp_path / "missing.sgf"), "--archive",
                       str(tmp_path / "arc"))
    assert code == 2 and "no such file" in err
    code, _, err = run("query", "SELECT 1", "--archive", str(tmp_path / "nowhere"))
    assert code == 2 and "no archive" in err
    code, _, err = run("export", "--archive", str(tmp_path / "nowhere"), "--format", "iss",
                       "--out", str(tmp_path / "x.sgf"))
    assert code == 2 and "no archive" in err
    code, _, _ = run("export", "--format", "pdf", "--out", str(tmp_path / "x"))
    assert code == 2


@pytest.mark.parametrize("sql", ["", "  ", ";"])
def test_empty_sql_is_a_clear_error(tmp_path: Path, logs: Path, sql: str) -> None:
    archive = str(tmp_path / "arc")
    assert run("ingest", str(logs / "part1.sgf"), "--archive", archive, "--quiet")[0] == 0
    code, out, err = run("query", sql, "--archive", archive)
    assert code == 2 and "the SQL is empty" in err and "Traceback" not in err + out


def test_json_output_is_valid_json_for_nan_and_infinity(tmp_path: Path, logs: Path) -> None:
    archive = str(tmp_path / "arc")
    assert run("ingest", str(logs / "part1.sgf"), "--archive", archive, "--quiet")[0] == 0
    code, out, _ = run("query", "SELECT 'nan'::DOUBLE AS a, 'inf'::DOUBLE AS b, 1.5 AS c",
                       "--archive", archive, "--format", "json")
    assert code == 0 and json.loads(out) == [{"a": None, "b": None, "c": 1.5}]


def test_export_never_destroys_a_file(tmp_path: Path, logs: Path) -> None:
    """An existing file is kept unless --force; a file inside the archive, or an export from
    a folder that is no archive (a log folder given as --archive by mistake), is refused;
    a partition lost since its commit is named before anything is written."""
    archive = tmp_path / "arc"
    assert run("ingest", str(logs), "--archive", str(archive), "--quiet")[0] == 0
    log = tmp_path / "club.sgf"
    log.write_text((logs / "part1.sgf").read_text())
    before = log.read_text()
    code, _, err = run("export", "--archive", str(archive), "--format", "iss", "--out", str(log))
    assert code == 2 and "exists; pass --force" in err and log.read_text() == before
    code, _, err = run("export", "--archive", str(logs), "--format", "iss", "--out",
                       str(tmp_path / "new.sgf"), "--force")
    assert code == 2 and "no archive at" in err and not (tmp_path / "new.sgf").exists()
    manifest = (archive / "manifest.json").read_text()
    code, _, err = run("export", "--archive", str(archive), "--format", "jsonl", "--out",
                       str(archive / "manifest.json"), "--force")
    assert code == 2 and "inside the archive" in err
    assert (archive / "manifest.json").read_text() == manifest
    code, _, err = run("export", "--archive", str(archive), "--format", "iss", "--out",
                       str(log), "--force")
    assert code == 0 and log.read_text().count("(;GM[Skat]") == 80
    sorted((archive / "tricks").glob("*.parquet"))[0].unlink()
    code, _, err = run("export", "--archive", str(archive), "--format", "iss", "--out",
                       str(tmp_path / "after.sgf"))
    assert code == 2 and "committed partition unreadable" in err and "tricks" in err
    assert not (tmp_path / "after.sgf").exists()
    code, _, err = run("ingest", str(logs), "--staging", str(tmp_path), "--archive",
                       str(archive))
    assert code == 2 and "give --scheduler too" in err


def test_unreadable_inputs_and_archive_paths_are_named(tmp_path: Path, logs: Path) -> None:
    code, _, err = run("validate", "/dev/null")
    assert code == 2 and "/dev/null: not a regular file or a directory" in err
    plain = tmp_path / "plain"
    plain.write_text("x")
    code, _, err = run("ingest", str(logs / "part1.sgf"), "--archive", str(plain), "--quiet")
    assert code == 2 and f"{plain}: not a directory" in err
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "manifest.json").write_text("{bad")
    code, _, err = run("ingest", str(logs / "part1.sgf"), "--archive", str(damaged), "--quiet")
    assert code == 2 and "unreadable manifest" in err
    code, _, err = run("simulate", "--hands", "10", "--archive", str(damaged), "--no-progress")
    assert code == 2 and "unreadable manifest" in err
    if Path("/proc/self/mem").exists():
        code, _, err = run("ingest", "/proc/self/mem", "--archive", str(tmp_path / "a"),
                           "--quiet")
        assert code == 2 and "/proc/self/mem: cannot read" in err
