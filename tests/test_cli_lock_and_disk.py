"""``ingest`` and ``simulate`` against another run's lock and a full disk (issue 17, item 8):
they say that they wait, ``--wait SECONDS`` gives up with exit 1 and one line, and a write
that fails mid-run is one line (exit 2) with the archive left exactly as it was."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from filelock import FileLock
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.ingest.archive import LOCK, MANIFEST, ArchiveWriter, lock_wait

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"
SKATLOG = [sys.executable, "-m", "skatlog"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def held(tmp_path: Path):
    """An archive whose lock another process holds (a subprocess, like a second run)."""
    archive = tmp_path / "arc"
    archive.mkdir()
    ready = tmp_path / "locked"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time, pathlib; from filelock import FileLock\n"
        f"lock = FileLock({str(archive / LOCK)!r}); lock.acquire()\n"
        f"pathlib.Path({str(ready)!r}).touch()\n"
        "sys.stdin.read()\n")], stdin=subprocess.PIPE)
    for _ in range(200):
        if ready.exists():
            break
        time.sleep(0.05)
    yield archive, holder
    holder.communicate(b"")


@pytest.mark.parametrize("command", ["ingest", "simulate"])
def test_wait_gives_up_with_one_line_and_exit_1(held, command: str) -> None:
    archive, _ = held
    args = (["ingest", str(SAMPLES / "skatfreunde-nord.sgf"), "-q"] if command == "ingest"
            else ["simulate", "--hands", "100", "--no-progress"])
    started = time.monotonic()
    code, out, err = run(*args, "--archive", str(archive), "--wait", "0.5")
    assert code == 1, out + err
    assert time.monotonic() - started < 30
    assert "waiting for another ingest or simulation" in err and "at most 0.5 s" in err
    assert err.strip().splitlines()[-1].endswith(
        "holds the lock (waited 0.5 s); try again when it has finished")
    assert not (archive / MANIFEST).exists()


def test_without_wait_it_says_so_and_goes_on_when_the_lock_is_free(held) -> None:
    archive, holder = held
    proc = subprocess.Popen([*SKATLOG, "ingest", str(SAMPLES / "skatfreunde-nord.sgf"),
                             "--archive", str(archive), "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "200"})
    assert proc.stderr is not None
    first = proc.stderr.readline()  # blocks until the run says it waits (start-up may be slow)
    assert "waiting for another ingest or simulation to release" in first, first
    assert proc.poll() is None  # still waiting
    holder.communicate(b"")  # the other run ends
    out, err = proc.communicate(timeout=120)
    err = first + err
    assert proc.returncode == 0, err
    assert "until it has finished" in err and "stored      48" in out


def test_the_lock_policy_applies_to_writers_opened_inside(tmp_path: Path) -> None:
    archive = tmp_path / "arc"
    archive.mkdir()
    told: list[float | None] = []
    with FileLock(str(archive / LOCK)), lock_wait(0.5, lambda _root, t: told.append(t)), \
            pytest.raises(RuntimeError, match=r"waited 0\.5 s"):
        ArchiveWriter(archive).open()
    assert told == [0.5]


def _full_disk(monkeypatch: pytest.MonkeyPatch, after: int = 0) -> None:
    """Every Parquet write after the first ``after`` fails as on a full disk."""
    original = pq.ParquetWriter.write_table
    calls = {"n": 0}

    def write_table(self: pq.ParquetWriter, *args: object, **kwargs: object) -> None:
        calls["n"] += 1
        if calls["n"] > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        original(self, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", write_table)


def test_a_full_disk_during_ingest_is_one_line_and_keeps_the_archive(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "arc"
    code, _, _ = run("ingest", str(SAMPLES / "club-am-markt.jsonl"), "--archive", str(archive),
                     "-q")
    assert code == 0
    before = (archive / MANIFEST).read_text()
    files = sorted(p.relative_to(archive) for p in archive.rglob("*.parquet"))
    _full_disk(monkeypatch, after=1)
    code, out, err = run("ingest", str(SAMPLES / "skatfreunde-nord.sgf"), "--archive",
                         str(archive), "-q", "--batch-size", "10")
    assert code == 2, out + err
    assert "No space left on device" in err and "nothing after its last commit" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert (archive / MANIFEST).read_text() == before
    assert sorted(p.relative_to(archive) for p in archive.rglob("*.parquet")) == files
    assert not list(archive.glob(MANIFEST + ".tmp*"))


def test_a_full_disk_at_the_commit_leaves_no_temporary_manifest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "arc"
    real_fsync = os.fsync

    def fsync(fd: int) -> None:  # the temporary manifest's fsync fails, as on a full disk
        if f"{MANIFEST}.tmp-" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc to tell the manifest's descriptor")
    monkeypatch.setattr(os, "fsync", fsync)
    code, _, err = run("ingest", str(SAMPLES / "skatfreunde-nord.sgf"), "--archive",
                       str(archive), "-q")
    assert code == 2 and "No space left on device" in err
    assert not (archive / MANIFEST).exists()
    assert not list(archive.glob(MANIFEST + ".tmp*"))
    assert not list(archive.rglob("*.parquet"))
