"""``--rules NAME[+OPTION]`` on validate, ingest and simulate: one spelling, one meaning.

The records are the hand-written ones of ``test_r17_play_on`` (another program's style): a
clubs hand game with schneider announced that stops at its decisive trick, which ISS's
conventions (``isko+iss``, the default for ISS records) accept and skatlog's own rules
(``isko``, every game to ten tricks) call truncated.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skatlog.cli import app

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("r17_records", HERE / "test_r17_play_on.py")
assert _spec is not None and _spec.loader is not None
r17 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(r17)


def _stopping_record() -> str:
    contract, _, tricks, decided, _, mats, value = r17.CASES["schneider_announced"]
    return r17.iss_line(contract, tricks, decided, value, mats, 5)


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize("fast", ["--fast", "--no-fast"])
def test_validate_reads_iss_under_isko_iss_unless_told(tmp_path: Path, fast: str) -> None:
    path = tmp_path / "stops.sgf"
    path.write_text(_stopping_record() + "\n")
    assert run("validate", fast, str(path)).exit_code == 0
    assert run("validate", fast, "--rules", "isko+iss", str(path)).exit_code == 0
    strict = run("validate", fast, "--rules", "isko", str(path))
    assert strict.exit_code == 1 and "[truncated]" in strict.output


def test_ingest_stores_the_rule_set_it_replayed_under(tmp_path: Path) -> None:
    import duckdb

    from skatlog.analytics.views import open_archive

    path = tmp_path / "stops.sgf"
    path.write_text(_stopping_record() + "\n")
    archive = tmp_path / "arc"
    refused = run("ingest", "--rules", "isko", "--archive", str(archive), "-q", str(path))
    assert refused.exit_code == 0 and "[truncated]" in refused.output
    stored = run("ingest", "--archive", str(archive), "-q", str(path))
    assert stored.exit_code == 0, stored.output
    con: duckdb.DuckDBPyConnection = open_archive(archive)
    assert con.sql("SELECT rules, value FROM games").fetchall() == [("isko+iss", -288)]


@pytest.mark.parametrize("command", [["validate"], ["ingest", "-q"]])
@pytest.mark.parametrize("spelling", ["turbo", "isko+turbo", "foster+iss", "isko+kontra_re+turbo",
                                      "isko++iss"])
def test_an_unknown_rule_set_is_a_one_line_usage_error(tmp_path: Path, command: list[str],
                                                         spelling: str) -> None:
    path = tmp_path / "g.sgf"
    path.write_text(_stopping_record() + "\n")
    result = run(*command, "--rules", spelling, str(path))
    assert result.exit_code == 2
    assert "Traceback" not in result.output and "--rules" in result.output


def test_simulate_plays_isko_and_refuses_other_rule_sets(tmp_path: Path) -> None:
    ok = run("simulate", "--hands", "30", "--rules", "isko", "--archive", str(tmp_path / "a"),
             "--no-progress")
    assert ok.exit_code == 0, ok.output
    refused = run("simulate", "--hands", "30", "--rules", "isko+iss",
                  "--archive", str(tmp_path / "b"), "--no-progress")
    assert refused.exit_code == 2 and "the simulator plays foster, isko and its options" in \
        " ".join(refused.output.split())  # foster and the house options (iss: not)
    assert not (tmp_path / "b").exists()
