"""Ctrl-C and kill -9 lose nothing and waste nothing (issue 17, item 2).

Each case runs ``skatlog simulate`` or ``skatlog ingest`` in a subprocess that commits after
every chunk or batch (``SKATLOG_COMMIT_SECONDS=0``), pauses it at a known commit (the
archive's test hook), interrupts it there with SIGINT or SIGKILL, checks what the
interruption left (one line and exit 130 for Ctrl-C; the last commit's state for a kill),
reruns the same command, and compares the final archive with an uninterrupted run's:
``games``, ``tricks``, ``auction`` (and ``rejects`` for ingest) rows, ``EXCEPT ALL`` both
ways in DuckDB, ``ingest_id`` excluded.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from skatlog.ingest.archive import MANIFEST, read_manifest, read_table

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"

#: Runs the CLI with small simulation tasks and chunks, and small compiled-ingest chunks,
#: so that a run of a few seconds has many commits and both parallel paths are taken.
RUNNER = """
import functools, sys
import skatlog.ingest.fast as fast
import skatlog.simulation as simulation
from skatlog.simulation import to_archive
to_archive.TASK, to_archive.PARALLEL_THRESHOLD = 20_000, 0
simulation.simulate_to_archive = functools.partial(to_archive.simulate_to_archive,
                                                   chunk=4_000)
fast.ingest_iss_fast = functools.partial(fast.ingest_iss_fast, workers=2,
                                         chunk_bytes=256 << 10)
from skatlog.cli import app
sys.argv[0] = "skatlog"
app()
"""

SIM_HANDS = 60_000


def _run(args: list[str], env: dict[str, str] | None = None
         ) -> subprocess.Popen[str]:
    full = {**os.environ, "SKATLOG_COMMIT_SECONDS": "0", **(env or {})}
    return subprocess.Popen([sys.executable, "-c", RUNNER, *args], env=full, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def _interrupt(args: list[str], tmp: Path, stage: str, at: int, sig: int
               ) -> tuple[int, str, str]:
    """Run ``args`` until it pauses at ``stage`` (its ``at``-th checkpoint, or the first
    commit's rename), send ``sig`` there, and return what it did."""
    marker = tmp / f"pause-{stage}-{at}-{sig}"
    proc = _run(args, {"SKATLOG_ARCHIVE_PAUSE": stage, "SKATLOG_ARCHIVE_PAUSE_AT": str(at),
                       "SKATLOG_ARCHIVE_PAUSE_FILE": str(marker)})
    deadline = time.monotonic() + 90
    while not marker.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"never paused at {stage} {at}: {_finish(proc)}")
        time.sleep(0.05)
    proc.send_signal(sig)
    return _finish(proc)


def _rows(archive: Path, table: str) -> object:
    data = read_table(archive, table)
    return data.drop_columns(["ingest_id"]) if "ingest_id" in data.column_names else data


def _same_rows(left: Path, right: Path, tables: tuple[str, ...]) -> None:
    for table in tables:
        with duckdb.connect() as con:
            con.register("a", _rows(left, table))
            con.register("b", _rows(right, table))
            for x, y in (("a", "b"), ("b", "a")):
                extra = con.execute(f"SELECT count(*) FROM (SELECT * FROM {x} EXCEPT ALL "
                                    f"SELECT * FROM {y})").fetchone()
                assert extra == (0,), (table, x, y)
            count = con.execute("SELECT count(*) FROM a").fetchone()
            assert count is not None and count[0] > 0, table


def _one_line(err: str) -> str:
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def _committed_of(archive: Path, ingest_id: str, table: str = "games") -> int:
    rows = read_table(archive, table, ["ingest_id"]).column("ingest_id").to_pylist()
    return sum(1 for value in rows if value == ingest_id)


@pytest.fixture(scope="module")
def sim_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An uninterrupted run (in this process: the rows do not depend on the chunking)."""
    from skatlog.simulation import SimulationOptions, simulate_to_archive

    archive = tmp_path_factory.mktemp("sim") / "reference"
    simulate_to_archive(archive, SimulationOptions(hands=SIM_HANDS, seed=4), workers=2)
    return archive


def _sim_args(archive: Path, workers: int = 2) -> list[str]:
    return ["simulate", "--hands", str(SIM_HANDS), "--seed", "4", "--workers", str(workers),
            "--archive", str(archive), "--no-progress"]


def _check_sim_interruption(archive: Path, code: int, out: str, err: str, sig: int,
                            before: int) -> None:
    """What one interruption left: for Ctrl-C one line, exit 130, whole chunks committed
    (more than before it) and the run's one ingests row saying so."""
    manifest = read_manifest(archive)
    if sig == signal.SIGINT:
        assert code == 130, out + err
        line = _one_line(err)
        assert line.startswith("interrupted: ") and "the same command again" in line
        stored = manifest.rows("games")
        assert stored % 2_000 == 0 and before < stored < SIM_HANDS, stored
        assert f"{stored:,} of the run's {SIM_HANDS:,} hands are stored" in line
        ingests = read_table(archive, "ingests").to_pylist()
        assert ingests[-1]["stored"] == stored - before
    else:
        assert code == -signal.SIGKILL


#: Interruptions in a row, each of the rerun before: (stage, at, signal).
SIM_CASES = {
    "parallel tasks": (2, [("checkpoint", 2, signal.SIGINT),    # Ctrl-C after a few chunks
                           ("checkpoint", 3, signal.SIGKILL),   # kill -9 mid-run
                           ("commit", 1, signal.SIGKILL)]),     # ... with a manifest unrenamed
    "one task": (1, [("checkpoint", 3, signal.SIGINT)]),        # numba's threads, Ctrl-C
}


@pytest.mark.parametrize("case", list(SIM_CASES))
def test_simulate_interrupted_then_rerun_equals_an_uninterrupted_run(
        tmp_path: Path, sim_reference: Path, case: str) -> None:
    workers, interruptions = SIM_CASES[case]
    archive = tmp_path / "arc"
    args = _sim_args(archive, workers)
    for stage, at, sig in interruptions:
        before = read_manifest(archive).rows("games")
        generation = read_manifest(archive).generation
        code, out, err = _interrupt(args, tmp_path, stage, at, sig)
        _check_sim_interruption(archive, code, out, err, sig, before)
        if sig == signal.SIGKILL:  # the state of the commit it was paused at (or before)
            assert read_manifest(archive).generation == generation + (
                at if stage == "checkpoint" else 0)
    stored = read_manifest(archive).rows("games")
    code, out, err = _finish(_run(args))
    assert code == 0, out + err
    assert f"{stored:,} stored hands were not simulated again" in out, out
    _same_rows(archive, sim_reference, ("games", "tricks", "auction"))
    assert read_table(archive, "games").num_rows == SIM_HANDS
    leftovers = {f"{p.parent.name}/{p.name}" for p in archive.rglob("*.parquet")} - {
        rel for table in ("games", "tricks", "auction", "ingests")
        for rel in read_manifest(archive).files(table)}
    assert leftovers == set() and not list(archive.glob(MANIFEST + ".tmp*"))


@pytest.fixture(scope="module")
def iss_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ISS log of 10,000 games after the damaged sample's records (rejected in the
    first task, so the first commits hold rejects)."""
    from skatlog.ingest.fast.synth import write_corpus

    folder = tmp_path_factory.mktemp("logs")
    corpus = write_corpus(folder / "corpus.sgf", 10_000, seed=3, workers=2)
    log = folder / "big.sgf"
    log.write_bytes((SAMPLES / "damaged.sgf").read_bytes() + corpus.read_bytes())
    return log


@pytest.fixture(scope="module")
def references(iss_log: Path) -> dict[bool, Path]:
    """Uninterrupted ingests of the log (in this process), by path: compiled or reference."""
    from skatlog.ingest.pipeline import ingest_paths

    out: dict[bool, Path] = {}
    for fast in (True, False):
        out[fast] = iss_log.parent / f"reference-{fast}"
        ingest_paths([iss_log], out[fast], progress=False, fast=fast)
    return out


def _ingest_args(log: Path, archive: Path, fast: bool) -> list[str]:
    return ["ingest", str(log), "--archive", str(archive), "-q",
            "--fast" if fast else "--no-fast", "--batch-size", "500"]


@pytest.mark.parametrize("fast", [True, False], ids=["compiled", "reference"])
def test_ingest_interrupted_then_rerun_equals_an_uninterrupted_run(
        tmp_path: Path, iss_log: Path, references: dict[bool, Path], fast: bool) -> None:
    """Ctrl-C after the second commit, then a kill -9 of the rerun after its second, then
    a rerun to the end."""
    reference = references[fast]
    total = read_manifest(reference).rows("games")
    archive = tmp_path / "arc"
    args = _ingest_args(iss_log, archive, fast)
    code, out, err = _interrupt(args, tmp_path, "checkpoint", 2, signal.SIGINT)
    games = read_manifest(archive).rows("games")
    assert 0 < games < total
    assert code == 130, out + err
    line = _one_line(err)
    assert line.startswith(f"interrupted: {games:,} games stored in {archive}"), line
    assert "the same command again resumes" in line
    ingests = read_table(archive, "ingests")
    assert ingests.num_rows == 1
    row = ingests.to_pylist()[0]
    assert row["stored"] == games == _committed_of(archive, row["ingest_id"])
    # rejects held back between commits are written before each commit: the row agrees
    assert row["rejected"] == row["rejects_stored"] == _committed_of(
        archive, row["ingest_id"], "rejects")
    assert [f["path"] for f in row["files"]] == [str(iss_log)]
    # the compiled path hashes a file as it reads it: one read in part has no digest
    assert (row["files"][0]["sha256"] == "") == fast

    generation = read_manifest(archive).generation
    code, out, err = _interrupt(args, tmp_path, "checkpoint", 2, signal.SIGKILL)
    assert code == -signal.SIGKILL
    manifest = read_manifest(archive)  # as of the rerun's second commit
    assert manifest.generation == generation + 2 and manifest.rows("ingests") == 2
    killed = read_table(archive, "ingests").to_pylist()[1]
    assert killed["duplicates"] > 0 and killed["stored"] == _committed_of(
        archive, killed["ingest_id"])
    assert killed["rejects_stored"] == _committed_of(archive, killed["ingest_id"], "rejects")

    stored = manifest.rows("games")
    code, out, err = _finish(_run(args))
    assert code == 0, out + err
    assert f"duplicates  {stored:,}" in out, out
    _same_rows(archive, reference, ("games", "tricks", "auction", "rejects"))
    runs = read_table(archive, "ingests").to_pylist()
    assert len(runs) == 3 and sum(r["stored"] for r in runs) == total
    assert sum(r["rejects_stored"] for r in runs) == read_manifest(archive).rows("rejects") > 0


def test_a_killed_compiled_ingest_commits_its_rejects_with_its_games(
        tmp_path: Path, iss_log: Path) -> None:
    """The compiled ingest holds rejects back between commits (written in batches): each
    commit writes them first, so a kill -9 after the first commit leaves that commit's
    rejects stored and counted, as its ``ingests`` row says."""
    archive = tmp_path / "arc"
    code, _, _ = _interrupt(_ingest_args(iss_log, archive, True), tmp_path, "checkpoint", 1,
                            signal.SIGKILL)
    assert code == -signal.SIGKILL
    row = read_table(archive, "ingests").to_pylist()[0]
    assert row["stored"] == _committed_of(archive, row["ingest_id"]) > 0
    assert 0 < row["rejected"] == row["rejects_stored"] == _committed_of(
        archive, row["ingest_id"], "rejects")
