"""Two ingests into one archive at the same time are serialised and never corrupt it."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from skatlog.analytics.views import open_archive
from skatlog.engine import RandomPlayer, deal_cards, play_hand
from skatlog.ingest.archive import MANIFEST, PAUSE_ENV, PAUSE_FILE_ENV, read_manifest
from skatlog.ingest.iss import format_iss
from skatlog.ingest.model import GameMeta


def iss_lines(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    players = (RandomPlayer(step_bids=True),) * 3
    start = datetime(2024, 6, 1, tzinfo=UTC)
    return [format_iss(play_hand(deal_cards(rng), players, rng, checked=False),
                       GameMeta(("anna", "ben", "clara"), start + timedelta(minutes=i), str(i),
                                str(i // 12)))
            for i in range(n)]


def ingest_cmd(path: Path, archive: Path) -> list[str]:
    return [sys.executable, "-m", "skatlog", "ingest", str(path), "--archive", str(archive),
            "--batch-size", "40"]


def summary_of(stdout: bytes) -> dict[str, int]:
    out = {}
    for line in stdout.decode().splitlines():
        key, _, value = line.partition(" ")
        if key in ("seen", "stored", "duplicates"):
            out[key] = int(value.strip().replace(",", ""))
    return out


def test_two_ingests_at_once_are_serialised(tmp_path: Path) -> None:
    lines = iss_lines(300)
    a = tmp_path / "a.sgf"
    b = tmp_path / "b.sgf"
    a.write_text("\n".join(lines[:200]) + "\n")
    b.write_text("\n".join(lines[100:]) + "\n")  # 100 games in both files
    archive = tmp_path / "arc"
    marker = tmp_path / "a-is-writing"
    # A pauses after writing its first partitions, holding the lock, until the marker goes ...
    env_a = {**os.environ, PAUSE_ENV: "batch", PAUSE_FILE_ENV: str(marker),
             "SKATLOG_ARCHIVE_PAUSE_SECONDS": "120"}
    proc_a = subprocess.Popen(ingest_cmd(a, archive), env=env_a, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert proc_a.poll() is None, proc_a.communicate()[1].decode()[-2000:]
        assert time.monotonic() < deadline, "ingest A never started writing"
        time.sleep(0.05)
    # ... while B starts: it must wait for A's commit, then dedupe against it.
    proc_b = subprocess.Popen(ingest_cmd(b, archive), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    assert proc_b.stderr is not None
    first_words = proc_b.stderr.readline().decode()  # blocks until B reports the busy lock
    assert "waiting for another ingest" in first_words
    assert proc_b.poll() is None and proc_a.poll() is None
    marker.unlink()  # let A go on and commit
    out_a, err_a = proc_a.communicate(timeout=180)
    out_b, err_b = proc_b.communicate(timeout=180)
    assert proc_a.returncode == 0, err_a.decode()[-2000:]
    assert proc_b.returncode == 0, err_b.decode()[-2000:]

    sa, sb = summary_of(out_a), summary_of(out_b)
    assert sa == {"seen": 200, "stored": 200, "duplicates": 0}
    assert sb == {"seen": 200, "stored": 100, "duplicates": 100}
    con = open_archive(archive)
    assert con.execute("SELECT count(*), count(DISTINCT game_id) FROM games").fetchone() == (
        300, 300)
    assert con.execute("SELECT count(*) FROM (SELECT DISTINCT game_id, trick_no FROM tricks)"
                       ).fetchone() == con.execute("SELECT count(*) FROM tricks").fetchone()
    assert con.execute("SELECT count(*) FROM ingests").fetchone() == (2,)
    assert read_manifest(archive).generation == 2
    assert not list(archive.glob(MANIFEST + ".tmp*"))
