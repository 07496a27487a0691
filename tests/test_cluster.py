"""Dask scale-out: a LocalCluster of two workers gives the single-process result."""

from __future__ import annotations

from pathlib import Path

import pytest

from skatlog.ingest.archive import read_manifest, read_table
from skatlog.simulation import SimulationOptions, simulate_to_archive

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def _rows(archive: Path, table: str):
    data = read_table(archive, table)
    if "ingest_id" in data.column_names:
        data = data.drop_columns(["ingest_id"])
    return data


def test_cluster_simulation_equals_single_process(client, tmp_path: Path) -> None:
    from skatlog.simulation.cluster import simulate_on_cluster

    options = SimulationOptions(hands=2500, seed=17, bots=("rules", "random", "rules"),
                                sessions=True)
    progress: list[int] = []
    summary = simulate_on_cluster(client, tmp_path / "cluster", options, shard=1000,
                                  chunk=400, on_progress=progress.append)
    simulate_to_archive(tmp_path / "single", options)
    assert summary.stored == 2500 and sum(progress) == 2500
    for table in ("games", "tricks", "auction"):
        assert _rows(tmp_path / "cluster", table).equals(_rows(tmp_path / "single", table))
    assert read_manifest(tmp_path / "cluster").rows("ingests") == 1
    assert not (tmp_path / "cluster" / ".staging" / summary.ingest_id).exists()
    # a re-run simulates nothing (every chunk is stored) and reports the same counts;
    # a longer one simulates only the chunks not stored yet
    again = simulate_on_cluster(client, tmp_path / "cluster", options, shard=1000, chunk=400)
    assert (again.stored, again.duplicates, again.skipped_hands) == (0, 2500, 2500)
    assert (again.played, again.declarer_won) == (summary.played, summary.declarer_won)
    longer = SimulationOptions(hands=3100, seed=17, bots=options.bots, sessions=True)
    more = simulate_on_cluster(client, tmp_path / "cluster", longer, shard=1000, chunk=400)
    simulate_to_archive(tmp_path / "single", longer)
    assert more.stored == 600 and more.skipped_hands == 2400  # chunk 2400-2800 held 100 new
    for table in ("games", "tricks", "auction"):
        assert _rows(tmp_path / "cluster", table).sort_by("game_id").equals(
            _rows(tmp_path / "single", table).sort_by("game_id")), table


def test_cluster_simulation_of_foster_equals_single_process(client, tmp_path: Path) -> None:
    from skatlog.engine import FOSTER
    from skatlog.simulation.cluster import simulate_on_cluster

    options = SimulationOptions(hands=1800, seed=5, bots=("rules", "random", "rules"),
                                sessions=True, rules=FOSTER)
    summary = simulate_on_cluster(client, tmp_path / "cluster", options, shard=700, chunk=300)
    simulate_to_archive(tmp_path / "single", options)
    assert summary.stored == 1800
    for table in ("games", "tricks", "auction"):
        assert _rows(tmp_path / "cluster", table).sort_by("game_id").equals(
            _rows(tmp_path / "single", table).sort_by("game_id")), table
    assert set(_rows(tmp_path / "single", "games").column("rules").to_pylist()) == {"foster"}


def test_workers_stage_to_an_fsspec_url(client, tmp_path: Path) -> None:
    """The shared staging path may be any fsspec URL (here the in-process memory fs)."""
    from skatlog.simulation.cluster import simulate_on_cluster

    options = SimulationOptions(hands=600, seed=4, bots=("random", "rules", "rules"))
    summary = simulate_on_cluster(client, tmp_path / "cluster", options, shard=250, chunk=250,
                                  staging="memory://skatlog-test/run")
    simulate_to_archive(tmp_path / "single", options)
    assert summary.stored == 600
    assert _rows(tmp_path / "cluster", "games").equals(_rows(tmp_path / "single", "games"))
    import fsspec

    assert not fsspec.filesystem("memory").exists("/skatlog-test/run")


def test_cluster_ingest_of_many_files(client, tmp_path: Path, iss_dir: Path) -> None:
    from skatlog.ingest.pipeline import ingest_paths
    from skatlog.simulation.cluster import ingest_files_on_cluster

    files = sorted(iss_dir.glob("*.sgf"))
    result = ingest_files_on_cluster(client, files, tmp_path / "cluster")
    summary = ingest_paths(files, tmp_path / "single", progress=False)
    assert result["seen"] == summary.seen and result["stored"] == summary.stored
    assert result["rejected"] == summary.rejected
    ids = sorted(read_table(tmp_path / "cluster", "games").column("game_id").to_pylist())
    assert ids == sorted(read_table(tmp_path / "single", "games").column("game_id").to_pylist())
    again = ingest_files_on_cluster(client, files, tmp_path / "cluster")
    assert again["stored"] == 0 and again["duplicates"] == summary.stored


def test_cluster_ingest_of_simulated_and_logged_hands(client, tmp_path: Path) -> None:
    """Exported simulated hands (one edited) ingested on the cluster: the simulator's rows
    for the genuine ones, a logged game with a warning for the edited one, as locally."""
    from skatlog.ingest.export import export_archive
    from skatlog.ingest.pipeline import ingest_paths
    from skatlog.simulation.cluster import ingest_files_on_cluster

    simulate_to_archive(tmp_path / "sim", SimulationOptions(hands=60, seed=4), workers=1)
    out = tmp_path / "e.jsonl"
    export_archive(tmp_path / "sim", out, "jsonl")
    lines = out.read_text().splitlines()
    lines[5] = lines[5].replace('"seed":"4"', '"seed":"40"')
    out.write_text("\n".join(lines) + "\n")
    result = ingest_files_on_cluster(client, [out], tmp_path / "cluster")
    ingest_paths([out], tmp_path / "single", progress=False)
    assert (result["stored"], result["duplicates"]) == (60, 0)
    for table in ("games", "tricks", "auction"):  # the same rows (in any order)
        assert sorted(map(repr, _rows(tmp_path / "cluster", table).to_pylist())) == \
            sorted(map(repr, _rows(tmp_path / "single", table).to_pylist())), table
    origins = read_table(tmp_path / "cluster", "games").column("origin").to_pylist()
    assert origins.count("log") == 1 and origins.count("simulated") == 59
    genuine = tmp_path / "genuine.jsonl"  # only re-simulated hands: no logged rows at all
    genuine.write_text("\n".join(lines[:5]) + "\n")
    only = ingest_files_on_cluster(client, [genuine], tmp_path / "only-simulated")
    assert (only["stored"], only["rejected"]) == (5, 0)
    assert read_table(tmp_path / "only-simulated", "games").column("origin").to_pylist() == [
        "simulated"] * 5


def test_unreachable_scheduler_is_a_clear_error(tmp_path: Path) -> None:
    from skatlog.simulation.cluster import ClusterError, simulate_on_cluster

    with pytest.raises(ClusterError, match="cannot reach"):
        simulate_on_cluster("tcp://127.0.0.1:1", tmp_path, SimulationOptions(hands=10),
                            connect_timeout=1.0)
