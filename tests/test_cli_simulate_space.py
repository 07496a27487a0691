"""``simulate`` refuses a run that cannot fit on its disk, with the figures, before it
starts (issue 17, item 3: ``--hands 1000000000000`` was accepted and sat at 0 hands/s)."""

from __future__ import annotations

from collections import namedtuple
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.commands import simulate as command
from skatlog.ingest.archive import MANIFEST

Usage = namedtuple("Usage", "total used free")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["simulate", *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_trillion_hands_are_refused_with_the_figure(tmp_path: Path) -> None:
    archive = tmp_path / "arc"
    code, out, err = run("--hands", str(10**12), "--archive", str(archive), "--no-progress")
    assert code == 2, out + err
    assert "--hands 1,000,000,000,000 needs about 53.0 TB (53 bytes a hand)" in err
    assert f"the archive {archive} has" in err and "free" in err
    assert err.count("\n") == 1 and out == ""
    assert not (archive / MANIFEST).exists()


@pytest.mark.parametrize(("out", "per_hand"), [(None, 53), ("games.sgf", 460),
                                               ("games.jsonl", 1060)])
def test_the_estimate_against_the_free_space(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             out: str | None, per_hand: int) -> None:
    free = 100 << 20
    monkeypatch.setattr(command.shutil, "disk_usage", lambda _path: Usage(0, 0, free))
    target = ["--out", str(tmp_path / out)] if out else ["--archive", str(tmp_path / "arc")]
    fits = (free - command.SPACE_RESERVE) // per_hand
    code, _, err = run("--hands", str(fits + 1), *target, "--no-progress")
    assert code == 2 and f"({per_hand} bytes a hand)" in err
    assert f"at most about {fits:,})" in err
    fmt = Path(out).suffix.lstrip(".") if out else None
    assert command.space_problem(fits, tmp_path / out if out else None, tmp_path / "arc",
                                 fmt) == ""


def test_bytes_per_hand_still_hold(tmp_path: Path) -> None:
    """The constants are measurements: a small run must not take more than they say (nor
    far less, or the check would refuse runs that fit)."""
    archive = tmp_path / "arc"
    code, _, err = run("--hands", "20000", "--archive", str(archive), "--no-progress")
    assert code == 0, err
    stored = sum(p.stat().st_size for p in archive.rglob("*.parquet"))
    per_hand = stored / 20000
    assert command.ARCHIVE_BYTES_PER_HAND * 0.6 <= per_hand <= command.ARCHIVE_BYTES_PER_HAND
    log = tmp_path / "games.sgf"
    code, _, err = run("--hands", "300", "--out", str(log), "--no-progress")
    assert code == 0, err
    assert log.stat().st_size / 300 <= command.FILE_BYTES_PER_HAND["sgf"]
