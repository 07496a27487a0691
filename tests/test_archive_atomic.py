"""An ingest killed with SIGKILL leaves the archive exactly as before; a rerun completes.

The kill point is made deterministic by the archive's test hook (``SKATLOG_ARCHIVE_PAUSE``):
the ingest subprocess pauses after writing partition files (``batch``) or after writing the
temporary manifest (``commit``), touches a marker file, and is killed there.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from skatlog.analytics.views import open_archive
from skatlog.engine import RandomPlayer, deal_cards, play_hand
from skatlog.ingest.archive import MANIFEST, PAUSE_ENV, PAUSE_FILE_ENV, read_table
from skatlog.ingest.iss import format_iss
from skatlog.ingest.model import GameMeta
from skatlog.ingest.pipeline import ingest_paths
from skatlog.ingest.schema import TABLES


def write_iss_file(path: Path, n: int, seed: int = 1) -> Path:
    rng = random.Random(seed)
    players = (RandomPlayer(step_bids=True),) * 3
    start = datetime(2024, 5, 1, tzinfo=UTC)
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            record = play_hand(deal_cards(rng), players, rng, checked=False)
            meta = GameMeta(("anna", "ben", "clara"), start + timedelta(minutes=i), str(i),
                            str(i // 12))
            out.write(format_iss(record, meta) + "\n")
    return path


@pytest.fixture(scope="module")
def big_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_iss_file(tmp_path_factory.mktemp("input") / "big.sgf", 600)


def snapshot(archive: Path) -> dict[str, list[dict]]:
    return {name: read_table(archive, name).to_pylist() for name in TABLES}


def on_disk(archive: Path) -> set[str]:
    return {f"{p.parent.name}/{p.name}" for p in archive.glob("*/*.parquet")}


def committed(archive: Path) -> set[str]:
    import json

    tables = json.loads((archive / MANIFEST).read_text())["tables"]
    return {part["path"] for parts in tables.values() for part in parts}


def start_paused_ingest(paths: list[Path], archive: Path, stage: str, marker: Path,
                        batch_size: int = 50) -> subprocess.Popen[bytes]:
    env = {**os.environ, PAUSE_ENV: stage, PAUSE_FILE_ENV: str(marker)}
    return subprocess.Popen(
        [sys.executable, "-m", "skatlog", "ingest", *map(str, paths), "--archive", str(archive),
         "--quiet", "--batch-size", str(batch_size)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for(marker: Path, proc: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not marker.exists():
        if proc.poll() is not None:
            _, err = proc.communicate()
            pytest.fail(f"ingest exited early ({proc.returncode}): {err.decode()[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the ingest never reached its pause point")
        time.sleep(0.05)


@pytest.mark.parametrize("stage", ["batch", "commit"])
def test_sigkill_mid_ingest_leaves_the_archive_as_before(tmp_path: Path, stage: str,
                                                         big_input: Path) -> None:
    archive = tmp_path / "arc"
    big = big_input
    early = tmp_path / "early.sgf"
    early.write_text("".join(big.read_text().splitlines(keepends=True)[:150]))
    ingest_paths([early], archive, progress=False)
    before = snapshot(archive)
    manifest = (archive / MANIFEST).read_text()
    files_before = on_disk(archive)

    marker = tmp_path / "paused"
    proc = start_paused_ingest([big], archive, stage, marker)
    try:
        wait_for(marker, proc)
        assert on_disk(archive) > files_before  # the killed run had written partitions
        if stage == "commit":
            assert list(archive.glob(MANIFEST + ".tmp*"))  # ... and its temporary manifest
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL

    assert (archive / MANIFEST).read_text() == manifest
    assert snapshot(archive) == before
    con = open_archive(archive)
    assert con.execute("SELECT count(*) FROM games").fetchone() == (150,)

    summary = ingest_paths([big], archive, progress=False)  # the rerun completes
    assert (summary.seen, summary.stored, summary.duplicates) == (600, 450, 150)
    assert on_disk(archive) == committed(archive)  # the killed run's orphans are gone
    assert not list(archive.glob(MANIFEST + ".tmp*"))
    con = open_archive(archive)
    assert con.execute("SELECT count(*), count(DISTINCT game_id) FROM games").fetchone() == (
        600, 600)
    assert con.execute("SELECT count(*) FROM ingests").fetchone() == (2,)
