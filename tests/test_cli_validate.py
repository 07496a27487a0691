"""``skatlog validate``: exit codes, the compiler-style report, --json, --strict, compression."""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path

import zstandard
from typer.testing import CliRunner

from skatlog.cli import app

runner = CliRunner()


def good_and_bad(iss_dir: Path) -> tuple[str, str]:
    lines = (iss_dir / "jskat__MessageParserTest.sgf").read_text().splitlines()
    good = "\n".join(line for line in lines if "ID[18358]" not in line) + "\n"
    bad = next(line for line in lines if "ID[18358]" in line)
    return good, bad


def run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["validate", *args])


def test_all_valid_exits_0(iss_dir: Path, tmp_path: Path) -> None:
    good, _ = good_and_bad(iss_dir)
    path = tmp_path / "good.sgf"
    path.write_text(good)
    result = run(str(path))
    assert result.exit_code == 0, result.output
    assert "10 games in 1 file: 10 valid, 0 invalid" in result.output


def test_report_lines_and_exit_1(iss_dir: Path) -> None:
    result = run(str(iss_dir))
    assert result.exit_code == 1
    source = iss_dir / "jskat__MessageParserTest.sgf"
    assert f"{source}:10: move 8: the card played is the unknown card" in result.output
    assert "26 games in 7 files: 25 valid, 1 invalid (corrupt_card 1)" in result.output


def test_json_one_object_per_game(iss_dir: Path) -> None:
    result = run("--json", str(iss_dir / "jskat__MessageParserTest.sgf"))
    assert result.exit_code == 1
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 11
    keys = {"source", "line", "id", "ok", "errors", "passed", "declarer", "contract", "hand",
            "schneider_announced", "schwarz_announced", "ouvert", "bid", "matadors",
            "declarer_points", "declarer_tricks", "won", "overbid", "value", "recorded_value",
            "value_check"}
    assert all(keys <= row.keys() for row in rows)
    bad = next(row for row in rows if row["id"] == "18358")
    assert bad["ok"] is False and bad["line"] == 10
    assert bad["errors"][0]["code"] == "corrupt_card" and bad["errors"][0]["move"] == 8
    grand = next(row for row in rows if row["id"] == "684159")
    assert (grand["contract"], grand["declarer"], grand["bid"], grand["value"],
            grand["value_check"], grand["won"]) == ("grand", 2, 27, 96, "ok", True)


def test_strict_stops_at_the_first_bad_game(iss_dir: Path, tmp_path: Path) -> None:
    good, bad = good_and_bad(iss_dir)
    path = tmp_path / "mixed.sgf"
    path.write_text(bad + "\n" + good)
    result = run("--strict", "--json", str(path))
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 1
    lenient = run("--json", str(path))
    assert lenient.exit_code == 1 and len(lenient.stdout.splitlines()) == 11


def test_compressed_files_and_directories(iss_dir: Path, tmp_path: Path) -> None:
    good, _ = good_and_bad(iss_dir)
    (tmp_path / "sub").mkdir()
    with gzip.open(tmp_path / "a.sgf.gz", "wt") as f:
        f.write(good)
    with bz2.open(tmp_path / "sub" / "b.sgf.bz2", "wt") as f:
        f.write(good)
    (tmp_path / "sub" / "c.sgf.zst").write_bytes(
        zstandard.ZstdCompressor().compress(good.encode()))
    (tmp_path / "notes.md").write_text("not a log")
    result = run(str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "30 games in 3 files: 30 valid" in result.output


def test_jsonl_input(iss_dir: Path, tmp_path: Path) -> None:
    from skatlog.ingest.jsonl import write_jsonl
    from skatlog.ingest.validate import iter_log_games

    lines = [write_jsonl(g) for g in iter_log_games([iss_dir]) if g.ok]
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(lines) + "\n")
    for fmt in ("auto", "jsonl"):
        result = run("--format", fmt, str(path))
        assert result.exit_code == 0, result.output
        assert "25 games in 1 file: 25 valid" in result.output
    wrong = run("--format", "iss", str(path))  # refused whole, not line by line
    assert wrong.exit_code == 2 and "holds skatlog JSON lines, not iss" in wrong.output


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    missing = run(str(tmp_path / "nope.sgf"))
    assert missing.exit_code == 2
    assert "no such file or directory" in missing.output
    assert "Traceback" not in missing.output
    fmt = run("--format", "xml", str(tmp_path))
    assert fmt.exit_code == 2 and "unknown format 'xml'" in fmt.output
    assert run().exit_code == 2


def test_damaged_gzip_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.sgf.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00garbage")
    result = run(str(path))
    assert result.exit_code == 2
    assert "cannot read" in result.output and "Traceback" not in result.output
