"""Simulation runs into the archive: parallel tasks, atomic deduplicating commits as it goes.

The run is cut into tasks of contiguous hands; each task simulates its chunks
(:mod:`.batches`) and writes its own partition files with the archive's writer
(:class:`skatlog.ingest.archive.PartitionFiles`), skipping the hands the archive already
holds (:mod:`.stored`). The parent commits the tasks' finished chunks every few seconds
and at the end, each commit atomic and listing the run's files in task order, so the
stored rows never depend on the worker count, and an interrupted run resumes.
"""

from __future__ import annotations

import gc
import os
import queue
import threading
import time
from collections.abc import Callable
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
from skatlog.ingest.interrupt import RunInterrupted, commit_interval, graceful_stop, stop_requested
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
class _Segment:
    """Finished chunks of one task: written, closed, not yet committed. A task hands one
    over every :func:`~skatlog.ingest.interrupt.commit_interval` seconds and at its end."""

    task: int
    parts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    stored: int = 0
    duplicates: int = 0
    played: int = 0
    declarer_won: int = 0
    #: Chunks (hand ranges) whose hands were all in the archive already: not simulated.
    skipped: list[tuple[int, int]] = field(default_factory=list)
    #: Whether this is the task's last segment and the task did all its hands.
    complete: bool = False


def _run_task(task: _Task, known: np.ndarray | None, report: Progress | None,
              emit: Callable[[_Segment], None], stop: Callable[[], bool],
              interval: float) -> None:
    """Simulate ``task``'s hands and write them as partition files of the run, skipping
    hands whose id is in ``known`` (the archive's ids, sorted) or repeats within the task.

    The finished chunks go to ``emit`` as segments: every ``interval`` seconds (the files
    are closed there, so the run can commit them) and at the end. ``stop()`` is asked after
    every chunk: when it says so, the task hands over what it finished and returns.

    Everything heavy here -- the kernels, numpy, pyarrow's Parquet writer -- runs without
    the GIL, so tasks on parallel threads keep every core busy end to end."""
    import numba

    if stop():  # the run stopped before this task started
        return
    numba.set_num_threads(min(task.threads, int(numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    files = PartitionFiles(Path(task.root), f"{task.ingest_id}-{task.number:05d}",
                           task.ingest_id, fast=True, sequential_ids=True,
                           flush_in_background=True)
    stored_ids = StoredIds()  # ids of this task so far
    segment = _Segment(task.number)
    todo, segment.skipped = split_stored(task.options, task.start, task.stop, task.chunk,
                                         known)
    since = time.monotonic()
    try:
        for begin, end in segment.skipped:
            segment.duplicates += end - begin
            if report is not None:
                report(end - begin)
        stopped = False
        for begin, end in todo:
            chunks = iter_tables(task.options, begin, end, task.chunk, task.ingest_id,
                                 task.prefetch)
            try:
                for batch, tables in chunks:
                    _store_chunk(batch, tables, files, stored_ids, known, segment)
                    if report is not None:
                        report(len(batch))
                    if stop():
                        stopped = True
                        break
                    if time.monotonic() - since >= interval:
                        segment.parts = files.finish_all()
                        files.parts = {name: [] for name in files.parts}  # handed over
                        emit(segment)
                        segment = _Segment(task.number)
                        since = time.monotonic()
            finally:
                chunks.close()  # a stop: the prefetched chunk is dropped
            if stopped:
                break
        segment.parts = files.finish_all()
        segment.complete = not stopped
    except BaseException:
        files.abandon()
        raise
    emit(segment)


def _store_chunk(batch: BatchGames, tables: dict[str, pa.Table], files: Any,
                 stored_ids: StoredIds, known: np.ndarray | None, result: _Segment
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
    """Simulate the run into the archive, committing finished chunks as it goes.

    The run is cut into :data:`TASK`-hand tasks. With several ``workers`` (default: the
    numba thread setting, see :func:`.options.set_workers`) and at least
    :data:`PARALLEL_THRESHOLD` hands, ``workers`` tasks run at once on threads, each one
    simulating AND writing its own partition files, so all cores work end to end. The
    writer holds the archive lock throughout and commits the finished chunks every
    :func:`~skatlog.ingest.interrupt.commit_interval` seconds and at the end, each time
    atomically (the run's partitions are listed in task order, so the stored rows never
    depend on the worker count or on when the commits came). A kill leaves the archive as
    of the last commit; a Ctrl-C (:func:`~skatlog.ingest.interrupt.graceful_stop`) lets
    every task finish its chunk, commits them and raises
    :class:`~skatlog.ingest.interrupt.RunInterrupted`. Hands whose id the archive already
    holds (a rerun of the seed, also after an interruption) are skipped, whole chunks
    without being simulated; the ids of one run are consecutive
    (:func:`~skatlog.ingest.sim_ids.run_ids`), so they never repeat within it.
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


class _Committer:
    """The run's side of the commits: adopts the segments the tasks hand over and commits
    them, at most every ``interval`` seconds (and once at the end)."""

    def __init__(self, writer: ArchiveWriter, options: SimulationOptions,
                 summary: SimulationSummary, started: datetime, interval: float) -> None:
        self.writer = writer
        self.options = options
        self.summary = summary
        self.started = started
        self.interval = interval
        self.pending: list[_Segment] = []
        self.last = time.monotonic()
        self.complete = 0  # tasks that did all their hands

    def add(self, segment: _Segment) -> None:
        self.pending.append(segment)
        self.complete += segment.complete
        if time.monotonic() - self.last >= self.interval:
            self.commit(final=False)

    def commit(self, final: bool) -> None:
        summary = self.summary
        for segment in self.pending:
            self.writer.adopt(segment.parts)
            summary.stored += segment.stored
            summary.duplicates += segment.duplicates
            summary.played += segment.played
            summary.declarer_won += segment.declarer_won
            summary.skipped += segment.skipped
        self.pending.clear()
        if final and summary.skipped:
            base = self.options.id_base
            assert base is not None
            played, won = stored_outcomes(self.writer, base, merged_ranges(summary.skipped))
            summary.played += played
            summary.declarer_won += won
        row = ingest_table(
            ingest_id=self.writer.ingest_id, kind="simulate", started_at=self.started,
            finished_at=datetime.now(UTC), fmt=None, files=(),
            seen=summary.stored + summary.duplicates, stored=summary.stored,
            duplicates=summary.duplicates, rejected=0, rejects_stored=0,
            rejected_by_code={}, skatlog_version=__version__)
        if final:
            self.writer.commit(row)
        else:
            self.writer.checkpoint(row)
        self.last = time.monotonic()


def _simulate_to_archive(archive: str | os.PathLike[str] | None, options: SimulationOptions,
                         chunk: int, on_progress: Progress | None, workers: int,
                         ranges: list[tuple[int, int]], parallel: bool, started: datetime,
                         clock: float, summary: SimulationSummary) -> SimulationSummary:
    with ArchiveWriter(archive, fast=True, sort_parts=True) as writer, graceful_stop():
        summary.target = str(writer.root)
        summary.ingest_id = writer.ingest_id
        known = writer.game_ids.sorted_ids()
        interval = commit_interval()
        committer = _Committer(writer, options, summary, started, interval)
        # Parallel tasks (one per core) each simulate and write in their own thread;
        # a single task overlaps the two on a prefetch thread instead.
        tasks = [_Task(str(writer.root), writer.ingest_id, k, options, b, e, chunk,
                       1 if parallel else workers, prefetch=not parallel)
                 for k, (b, e) in enumerate(ranges)]
        if parallel:
            _run_parallel(tasks, known, workers, on_progress, committer, interval)
        else:
            for task in tasks:
                _run_task(task, known, on_progress, committer.add, stop_requested, interval)
                if stop_requested():
                    break
        committer.commit(final=True)
        if committer.complete < len(tasks):
            done = summary.stored + summary.duplicates
            raise RunInterrupted(
                f"interrupted: {done:,} of the run's {options.hands:,} hands are stored in "
                f"{writer.root} ({summary.stored:,} committed by this run); the same command "
                f"again simulates only the other {options.hands - done:,}")
    summary.seconds = time.perf_counter() - clock
    return summary


def _run_parallel(tasks: list[_Task], known: np.ndarray | None, workers: int,
                  on_progress: Progress | None, committer: _Committer, interval: float
                  ) -> None:
    """Run ``tasks`` on ``workers`` threads, committing their segments as they come.

    This thread relays the progress the tasks report, and stops them (at their next
    chunk) after a Ctrl-C or when one of them failed; a failure is raised here once every
    task has stopped (what was committed before stays)."""
    messages: Queue[Any] = Queue()
    cancel = threading.Event()

    def stop() -> bool:
        return cancel.is_set() or stop_requested()

    pool = ThreadPoolExecutor(min(workers, len(tasks)), thread_name_prefix="skatlog-sim")
    try:
        futures = [pool.submit(_run_task, t, known, messages.put, messages.put, stop,
                               interval) for t in tasks]
        for future in futures:  # a finished task wakes this loop at once
            future.add_done_callback(messages.put)
        running = len(futures)
        while running or not messages.empty():
            try:
                item = messages.get(timeout=0.5)
            except queue.Empty:
                item = None
            if stop_requested():
                cancel.set()
            if item is None:
                continue
            if isinstance(item, int):
                if item and on_progress is not None:
                    on_progress(item)
            elif isinstance(item, _Segment):
                committer.add(item)
            else:  # a finished task
                running -= 1
                if item.cancelled() or item.exception() is not None:
                    cancel.set()
        for future in futures:
            if not future.cancelled():
                future.result()  # the first failure, if any
    finally:
        cancel.set()  # after an error or a second Ctrl-C: running tasks stop at their
        pool.shutdown(cancel_futures=True)  # next chunk, queued ones never start
