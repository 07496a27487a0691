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
