"""Simulation runs into the archive: parallel tasks, one atomic, deduplicating commit.

The run is cut into tasks of contiguous hands; each task simulates its chunks
(:mod:`.batches`) and writes its own partition files with the archive's writer
(:class:`skatlog.ingest.archive.PartitionFiles`), skipping the hands the archive already
holds (:mod:`.stored`). The parent commits every task's files in one manifest commit, in
task order, so the stored rows never depend on the worker count.
"""

from __future__ import annotations

import gc
import os
import queue
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from queue import Queue
from typing import Any

import numpy as np
import pyarrow as pa

from skatlog import __version__
from skatlog.engine.batch import BatchGames
from skatlog.ingest.archive import ArchiveWriter, PartitionFiles
from skatlog.ingest.rows import ingest_table

from .batches import CHUNK, chunk_ranges, iter_tables
from .options import Progress, SimulationOptions, SimulationSummary, current_workers, tally
from .stored import (
    StoredIds,
    fresh_ids,
    keep_games,
    merged_ranges,
    split_stored,
    stored_outcomes,
)

#: Hands per task of an archive run: each task simulates its range and writes its own
#: partition files (:func:`task_ranges`). Tasks are contiguous and committed in order, so
#: the stored rows and their order never depend on the worker count.
TASK = 500_000
#: Runs of at least this many hands run their tasks on parallel threads (when more than
#: one worker is set); smaller runs use numba's threads inside one task instead.
PARALLEL_THRESHOLD = 400_000


@dataclass(frozen=True)
class _Task:
    """One contiguous range of a run, simulated and written by one thread."""

    root: str
    ingest_id: str
    number: int
    options: SimulationOptions
    start: int
    stop: int
    chunk: int
    threads: int  # numba threads inside the task
    prefetch: bool = True  # simulate the next chunk on a second thread while writing


@dataclass
class _TaskResult:
    parts: dict[str, list[dict[str, Any]]]
    stored: int = 0
    duplicates: int = 0
    played: int = 0
    declarer_won: int = 0
    #: Chunks (hand ranges) whose hands were all in the archive already: not simulated.
    skipped: list[tuple[int, int]] = field(default_factory=list)


class _Cancelled(Exception):
    """A task stopped early because the run failed or was interrupted elsewhere."""


def _run_task(task: _Task, known: np.ndarray | None, report: Progress | None,
              cancel: threading.Event | None = None) -> _TaskResult:
    """Simulate ``task``'s hands and write them as partition files of the run, skipping
    hands whose id is in ``known`` (the archive's ids, sorted) or repeats within the task.

    Everything heavy here -- the kernels, numpy, pyarrow's Parquet writer -- runs without
    the GIL, so tasks on parallel threads keep every core busy end to end."""
    import numba

    numba.set_num_threads(min(task.threads, int(numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    files = PartitionFiles(Path(task.root), f"{task.ingest_id}-{task.number:05d}",
                           task.ingest_id, fast=True, sequential_ids=True,
                           flush_in_background=True)
    stored_ids = StoredIds()  # ids of this task so far
    result = _TaskResult({})
    todo, result.skipped = split_stored(task.options, task.start, task.stop, task.chunk,
                                        known)
    try:
        for begin, end in result.skipped:
            result.duplicates += end - begin
            if report is not None:
                report(end - begin)
        for begin, end in todo:
            for batch, tables in iter_tables(task.options, begin, end, task.chunk,
                                             task.ingest_id, task.prefetch):
                if cancel is not None and cancel.is_set():
                    raise _Cancelled
                _store_chunk(batch, tables, files, stored_ids, known, result)
                if report is not None:
                    report(len(batch))
        result.parts = files.finish_all()
    except BaseException:
        files.abandon()
        raise
    return result


def _store_chunk(batch: BatchGames, tables: dict[str, pa.Table], files: Any,
                 stored_ids: StoredIds, known: np.ndarray | None, result: _TaskResult
                 ) -> None:
    """Write one simulated chunk's rows, less the hands already stored."""
    ids = tables["games"].column("game_id").to_numpy()
    keep = fresh_ids(ids, stored_ids, known)
    stored = int(keep.sum())
    result.stored += stored
    result.duplicates += len(ids) - stored
    tally(result, batch)
    if stored < len(ids):
        tables = keep_games(tables, ids, keep)
    for table in ("games", "tricks", "auction"):
        if tables[table].num_rows:
            files.write(table, tables[table])


def task_ranges(hands: int, workers: int = 1) -> list[tuple[int, int]]:
    """An archive run's tasks, in order: :data:`TASK` hands each. With several ``workers``
    the last ``workers - 1`` tasks' worth is cut into tenths, so that the threads run out
    of work at nearly the same time (with whole tasks to the end, one thread idled for
    half a task on average, ~5 % of a 4-million-hand run). Either way the rows and their
    order are the same; only the partition files differ."""
    head = max(0, hands - (workers - 1) * TASK)
    return chunk_ranges(0, head, TASK) + chunk_ranges(head, hands, max(1, TASK // 10))


def simulate_to_archive(
    archive: str | os.PathLike[str] | None,
    options: SimulationOptions,
    *,
    chunk: int = CHUNK,
    on_progress: Progress | None = None,
    workers: int | None = None,
) -> SimulationSummary:
    """Simulate the run into the archive as one atomic, deduplicating append.

    The run is cut into :data:`TASK`-hand tasks. With several ``workers`` (default: the
    numba thread setting, see :func:`.options.set_workers`) and at least
    :data:`PARALLEL_THRESHOLD` hands, ``workers`` tasks run at once on threads, each one
    simulating AND writing its own partition files, so all cores work end to end. The
    writer holds the archive lock throughout and commits every task's files in one
    manifest commit: nothing is visible before it, and an interrupted run leaves the
    archive as it was. Hands whose id the archive already holds (a rerun of the seed) are
    skipped; the ids of one run are consecutive (:func:`~skatlog.ingest.sim_ids.run_ids`), so they
    never repeat within it.
    """
    options = options.resolved()
    started = datetime.now(UTC)
    clock = time.perf_counter()
    workers = current_workers() if workers is None else max(1, workers)
    summary = SimulationSummary(options.hands, 0.0)
    parallel = workers > 1 and options.hands >= PARALLEL_THRESHOLD and options.hands > TASK
    ranges = task_ranges(options.hands, workers if parallel else 1)
    # The run allocates few Python objects, but the interpreter's full collections would
    # walk every object the imports made (numba, pyarrow): freeze those for the run.
    gc.freeze()
    try:
        return _simulate_to_archive(archive, options, chunk, on_progress, workers, ranges,
                                    parallel, started, clock, summary)
    finally:
        gc.unfreeze()


def _simulate_to_archive(archive: str | os.PathLike[str] | None, options: SimulationOptions,
                         chunk: int, on_progress: Progress | None, workers: int,
                         ranges: list[tuple[int, int]], parallel: bool, started: datetime,
                         clock: float, summary: SimulationSummary) -> SimulationSummary:
    with ArchiveWriter(archive, fast=True) as writer:
        summary.target = str(writer.root)
        summary.ingest_id = writer.ingest_id
        known = writer.game_ids.sorted_ids()
        base = options.id_base
        assert base is not None
        # Parallel tasks (one per core) each simulate and write in their own thread;
        # a single task overlaps the two on a prefetch thread instead.
        tasks = [_Task(str(writer.root), writer.ingest_id, k, options, b, e, chunk,
                       1 if parallel else workers, prefetch=not parallel)
                 for k, (b, e) in enumerate(ranges)]
        if parallel:
            progress: Queue[int] = Queue()
            cancel = threading.Event()
            pool = ThreadPoolExecutor(min(workers, len(tasks)),
                                      thread_name_prefix="skatlog-sim")
            try:
                futures = [pool.submit(_run_task, t, known, progress.put, cancel)
                           for t in tasks]
                for result in _collect(futures, progress, on_progress):
                    _add_result(writer, summary, result)
            finally:
                cancel.set()  # after an error or Ctrl-C: running tasks stop at their next
                pool.shutdown(cancel_futures=True)  # chunk, queued ones never start
        else:
            for task in tasks:
                _add_result(writer, summary, _run_task(task, known, on_progress))
        if summary.skipped:
            played, won = stored_outcomes(writer, base, merged_ranges(summary.skipped))
            summary.played += played
            summary.declarer_won += won
        writer.commit(ingest_table(
            ingest_id=writer.ingest_id, kind="simulate", started_at=started,
            finished_at=datetime.now(UTC), fmt=None, files=(), seen=options.hands,
            stored=summary.stored, duplicates=summary.duplicates, rejected=0,
            rejects_stored=0, rejected_by_code={}, skatlog_version=__version__))
    summary.seconds = time.perf_counter() - clock
    return summary


def _add_result(writer: Any, summary: SimulationSummary, result: _TaskResult) -> None:
    writer.adopt(result.parts)
    summary.stored += result.stored
    summary.duplicates += result.duplicates
    summary.played += result.played
    summary.declarer_won += result.declarer_won
    summary.skipped += result.skipped


def _collect(futures: list[Any], progress: Any, on_progress: Progress | None
             ) -> Iterator[_TaskResult]:
    """The tasks' results in task order, relaying (in this thread) the progress they
    report meanwhile. A finished task puts a 0 on the queue, which wakes this loop at once
    (polling with a timeout left the cores idle for up to that timeout at the end)."""
    for future in futures:
        future.add_done_callback(lambda _: progress.put(0))
    for future in futures:
        while not future.done():
            try:
                done = progress.get(timeout=1.0)
            except queue.Empty:
                continue
            if done and on_progress is not None:
                on_progress(done)
        yield future.result()
    while on_progress is not None:  # progress reported after the last result was read
        try:
            done = progress.get_nowait()
        except queue.Empty:
            break
        if done:
            on_progress(done)
