"""``skatlog validate --fast`` (the compiled ISS path) reports exactly what the reference
path reports: the same JSON objects, the same compiler-style lines, the same exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skatlog.cli import app

pytest.importorskip("numba")
SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"


def _run(*args: str):
    return CliRunner().invoke(app, ["validate", *args])


@pytest.mark.parametrize("where", ["samples", "shared"])
def test_fast_and_reference_paths_agree(where: str, iss_dir: Path) -> None:
    path = str(SAMPLES if where == "samples" else iss_dir)
    fast, slow = _run("--fast", "--json", path), _run("--no-fast", "--json", path)
    assert fast.exit_code == slow.exit_code == 1
    objects = [json.loads(line) for line in fast.stdout.splitlines() if line.startswith("{")]
    expected = [json.loads(line) for line in slow.stdout.splitlines() if line.startswith("{")]
    assert objects == expected and len(objects) >= 26
    fast_text, slow_text = _run("--fast", path), _run("--no-fast", path)
    assert fast_text.stdout == slow_text.stdout
    assert fast_text.exit_code == slow_text.exit_code == 1


def test_paths_agree_on_a_file_of_damaged_records_only(tmp_path: Path) -> None:
    """No game accepted by the kernel: the summary has no ``ok 0`` the reference lacks."""
    damaged = tmp_path / "damaged.sgf"
    damaged.write_text((SAMPLES / "damaged.sgf").read_text())
    fast, slow = _run("--fast", str(damaged)), _run("--no-fast", str(damaged))
    assert fast.stdout == slow.stdout and fast.exit_code == slow.exit_code == 1


def test_a_lone_carriage_return_gives_every_result_as_json(tmp_path: Path) -> None:
    """Issue 17: a file with a lone CR made ``validate --fast --json`` fail with
    'json_objects needs the batch's tables' and print nothing. Both paths now give every
    result, the same ones (a lone CR is a character of its line, not a line break)."""
    lines = (SAMPLES / "skatfreunde-nord.sgf").read_text().splitlines()
    log = tmp_path / "cr.sgf"
    log.write_bytes(("\r".join(lines[:2]) + "\n" + "\n".join(lines[2:]) + "\n").encode())
    fast, slow = _run("--fast", "--json", str(log)), _run("--no-fast", "--json", str(log))
    assert fast.exception is None or isinstance(fast.exception, SystemExit), fast.exception
    objects = [json.loads(line) for line in fast.stdout.splitlines()]
    assert objects == [json.loads(line) for line in slow.stdout.splitlines()]
    assert len(objects) == len(lines) - 1 and fast.exit_code == slow.exit_code
    assert [o["line"] for o in objects] == list(range(1, len(lines)))
