"""``export`` writes the format its file name says (or refuses a mismatch), and ``query``
stays readable when the result is wider than the terminal (issue 17, items 4 and 5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.ingest.column_docs import COLUMN_DOCS
from skatlog.ingest.export import export_format, format_of_name

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"


def run(*args: str, columns: int = 100) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": str(columns)})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("export") / "arc"
    code, _, err = run("ingest", str(SAMPLES / "skatfreunde-nord.sgf"), "--archive", str(root),
                       "-q")
    assert code == 0, err
    return root


def test_export_refuses_a_format_its_file_name_contradicts(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.jsonl"
    code, _, err = run("export", "--format", "iss", "--out", str(out), "--archive", str(archive))
    assert code == 2 and "the name says jsonl, but --format is iss" in err
    assert err.count("\n") == 1 and not out.exists()
    code, _, err = run("export", "--format", "jsonl", "--out", str(tmp_path / "x.sgf.gz"),
                       "--archive", str(archive))
    assert code == 2 and not (tmp_path / "x.sgf.gz").exists()


@pytest.mark.parametrize(("name", "first"), [("games.sgf", "(;"), ("games.jsonl", "{")])
def test_export_takes_the_format_from_the_name(archive: Path, tmp_path: Path, name: str,
                                               first: str) -> None:
    out = tmp_path / name
    code, _, err = run("export", "--out", str(out), "--archive", str(archive))
    assert code == 0, err
    assert out.read_text().startswith(first) and "exported 48 games" in err


def test_export_needs_a_format_when_the_name_does_not_say(archive: Path, tmp_path: Path) -> None:
    code, _, err = run("export", "--out", str(tmp_path / "games.out"), "--archive", str(archive))
    assert code == 2 and "pass --format iss or jsonl" in err
    code, _, _ = run("export", "--format", "iss", "--out", str(tmp_path / "games.out"),
                     "--archive", str(archive))
    assert code == 0


def test_format_names() -> None:
    assert format_of_name("a.SGF.zst") == "iss" and format_of_name("a.ndjson") == "jsonl"
    assert format_of_name("a.txt") is None
    assert export_format("a.txt", "jsonl") == "jsonl"


def test_a_wide_result_is_shown_one_record_per_block(archive: Path) -> None:
    code, out, err = run("query", "SELECT * FROM games ORDER BY source_line", "--archive",
                         str(archive), columns=100)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("-[ record 1 ]")
    assert any(line.startswith("game_id ") and " | " in line for line in lines)
    assert any(line.startswith("game_value ") for line in lines)
    assert lines.count(next(line for line in lines if line.startswith("-[ record 1 ]"))) == 1
    assert (f"48 rows, {len(COLUMN_DOCS['games'])} columns: too wide for 100 characters, "
            "shown one record per block") in lines[-1]
    assert "┃" not in out  # no table of empty boxes


def test_a_narrow_result_stays_a_table(archive: Path) -> None:
    code, out, _ = run("query", "SELECT contract, count(*) AS n FROM games GROUP BY 1",
                       "--archive", str(archive), columns=100)
    assert code == 0 and "contract" in out and "┃" in out and "record 1" not in out


def test_many_wide_rows_are_cut_with_a_note(archive: Path) -> None:
    code, out, _ = run("query", "SELECT * FROM games, range(2)", "--archive", str(archive),
                       columns=80)
    assert code == 0
    assert out.count("-[ record ") == 50 and "add LIMIT, or use --format csv or json" in out
