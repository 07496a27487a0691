"""``skatlog ingest --scheduler``: files validated on a Dask cluster give the local result."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from skatlog.cli import app
from skatlog.ingest.archive import read_table

distributed = pytest.importorskip("distributed")
SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"


def _ids(archive: Path, table: str, column: str) -> list:
    return sorted(read_table(archive, table).column(column).to_pylist())


def test_ingest_on_a_local_cluster_equals_a_local_ingest(tmp_path: Path) -> None:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    runner = CliRunner()
    try:
        on_cluster = runner.invoke(app, ["ingest", str(SAMPLES), "--archive",
                                         str(tmp_path / "cluster"), "--scheduler",
                                         cluster.scheduler_address])
        again = runner.invoke(app, ["ingest", str(SAMPLES), "--archive",
                                    str(tmp_path / "cluster"), "--scheduler",
                                    cluster.scheduler_address])
    finally:
        cluster.close()
    local = runner.invoke(app, ["ingest", str(SAMPLES), "--archive", str(tmp_path / "local"),
                                "-q"])
    assert on_cluster.exit_code == 0, on_cluster.output
    assert local.exit_code == 0, local.output
    assert "stored      84" in on_cluster.output and "rejected    7" in on_cluster.output
    assert "stored      0" in again.output and "duplicates  84" in again.output
    assert _ids(tmp_path / "cluster", "games", "game_id") == _ids(tmp_path / "local", "games",
                                                                  "game_id")
    assert _ids(tmp_path / "cluster", "rejects", "code") == _ids(tmp_path / "local", "rejects",
                                                                 "code")


def test_unreachable_scheduler_exits_1_without_traceback(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["ingest", str(SAMPLES), "--archive", str(tmp_path),
                                      "--scheduler", "tcp://127.0.0.1:9"])
    assert result.exit_code == 1 and "Traceback" not in result.output


def test_cluster_ingest_refuses_what_is_not_a_log_like_the_local_one(tmp_path: Path) -> None:
    """Issue 17 item 1 on the cluster path: a named binary file is refused whole (exit 2,
    nothing stored), and a folder's files that are not logs are named and skipped, before
    any worker is asked (the scheduler address is never reached)."""
    binary = tmp_path / "ls.sgf"
    binary.write_bytes(bytes(range(256)) * 40)
    refused = CliRunner().invoke(app, ["ingest", str(binary), "--archive",
                                       str(tmp_path / "arc"), "--scheduler",
                                       "tcp://127.0.0.1:9"])
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert "ls.sgf" in refused.output and not (tmp_path / "arc").exists()
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a log\n")
    (folder / "games.sgf").write_text((SAMPLES / "skatfreunde-nord.sgf").read_text())
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    try:
        mixed = CliRunner().invoke(app, ["ingest", str(folder), "--archive",
                                         str(tmp_path / "arc2"), "--scheduler",
                                         cluster.scheduler_address])
    finally:
        cluster.close()
    assert mixed.exit_code == 0, mixed.output
    assert "skipped " in mixed.output and "notes.txt" in mixed.output
