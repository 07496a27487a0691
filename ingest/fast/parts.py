"""Worker processes that validate ISS chunks AND write their archive partition files.

The single-threaded Parquet writer of the main process was the bottleneck of a big ingest, so
here each task (a few consecutive chunks of the file) is scanned by the kernel, turned into
the ``games``/``tricks``/``auction`` tables of its accepted games and written straight to its
own partition files (``<table>/part-<ingest_id>-c<task>-<n>.parquet``) inside the archive,
under the lock the main process's :class:`~skatlog.ingest.archive.ArchiveWriter` holds. The
records the kernel hands over are settled in the worker too (:func:`_settle_slow`; the
rejects the kernel settles itself come ready, :mod:`.verdicts`): the
simulator's own lines (:mod:`..sim_claims`) and the records the reference validator finds
valid are written to the same partition files; only the file names, the game ids written, the task's
``rejects`` rows with what the run's summary reports of them (:class:`TaskRejects`, built
here: an Arrow table crosses the process boundary far cheaper than thousands of validated
games), and the claims that did not match travel back.

Games whose id the archive already held when the run started, and repeats within the task,
are dropped by the worker; repeats across tasks only the main process can see (it dedupes
every task's ids in file order, and rewrites a task's files without them). Nothing is visible
before the writer's manifest commit; a crash leaves orphans that the next writer removes.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import heapq
import itertools
import multiprocessing as mp
import os
import signal
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa

from skatlog.engine.rules import ISKO_ISS, Rules

from ..archive import ArchiveError, IdSet, PartitionFiles, fit_schema, keep_game_rows
from ..model import LogGame
from ..sim_claims import warm_up_matching
from ..sources import RawRecord
from .pages import disable_huge_pages
from .runner import process_chunk, warm_up
from .stream import CHUNK_BYTES, Span, is_compressed_name, iter_spans, open_binary

#: Chunks per task: a task's files hold this many chunks' games (fewer, bigger files), while
#: the kernel still works chunk by chunk (bounded memory per worker).
CHUNKS_PER_TASK = 2

#: The filter of a task's own id set (:class:`~..archive.IdSet`): 2^20 bits (128 KB) for the
#: at most some 35,000 games of a task, instead of the archive-wide set's 16 MB.
TASK_FILTER_BITS = 20

#: Game ids the archive held when the run started; inherited by forked workers.
_KNOWN: IdSet | None = None

GAME_TABLES = ("games", "tricks", "auction")


@dataclass
class PartBatch:
    """What one task did: ``accepted`` valid games (the kernel's, then the slow path's
    that the worker stored itself), of which the ones with ``ids`` are in the partition
    files ``parts``; ``games``: the valid records the main process still checks (claimed
    simulated hands that did not match their re-simulation), in file order; ``rejects``:
    the task's rejects and lines that are no record, as rows (:class:`TaskRejects`)."""

    number: int
    accepted: int
    ids: np.ndarray
    parts: dict[str, list[dict[str, Any]]]
    games: list[LogGame] = field(default_factory=list)
    rejects: TaskRejects | None = None


@dataclass
class TaskRejects:
    """A task's rejected records, ready for the archive: their ``rejects`` rows in file
    order, and what the run's summary reports of them (counts by code, the first few as
    ``validate`` prints them), as :class:`~..pipeline.IngestSummary` decides it."""

    table: pa.Table | None
    rejected: int
    by_code: dict[str, int]
    examples: list[str]
    not_records: int
    not_record_examples: list[str]


def _task_rejects(games: list[LogGame], ingest_id: str, root: str
                  ) -> tuple[list[LogGame], TaskRejects]:
    """Split a task's settled games into those the main process must see (valid claims
    that did not match) and the rejects and prose, turned into :class:`TaskRejects` here,
    in the worker, by the summary's and the reject builder's own rules."""
    from ..pipeline import IngestSummary, tally_reject
    from ..rows import RejectRowsBuilder

    local = IngestSummary(ingest_id, Path(root))
    rows = RejectRowsBuilder(ingest_id)
    by_code: Counter[str] = Counter()
    kept: list[LogGame] = []
    for game in games:
        if game.ok:
            kept.append(game)
        elif not local.not_a_record(game):
            tally_reject(game, local, by_code, rows)
    return kept, TaskRejects(rows.table() if len(rows) else None, local.rejected,
                             dict(by_code), local.examples, local.not_records,
                             local.not_record_examples)


#: A chunk handed to a task: its first line and either its bytes or, for a plain file the
#: worker reads itself (no copy through a pipe), its (offset, length) in that file.
Chunk = tuple[int, bytes | tuple[int, int]]


def _chunk_bytes(data: bytes | tuple[int, int], fd: int | None) -> bytes:
    if isinstance(data, bytes):
        return data
    offset, length = data
    assert fd is not None
    out = os.pread(fd, length, offset)
    if len(out) != length:
        raise OSError(f"input file changed while it was read (short read at {offset})")
    return out


def write_task(number: int, chunks: list[Chunk], source: str, root: str,
               ingest_id: str, prefix: str, fast: bool, path: str | None = None,
               rules: Rules = ISKO_ISS) -> PartBatch:
    """Scan ``chunks`` (in a worker) and write the new accepted games to partition files;
    ``path``: the plain file that chunks given as (offset, length) are read from."""
    fd = os.open(path, os.O_RDONLY) if path is not None else None
    try:
        return _write_task(number, [(first, _chunk_bytes(data, fd)) for first, data in chunks],
                           source, root, ingest_id, prefix, fast, rules)
    finally:
        if fd is not None:
            os.close(fd)


def _write_task(number: int, chunks: list[tuple[int, bytes]], source: str, root: str,
                ingest_id: str, prefix: str, fast: bool, rules: Rules) -> PartBatch:
    # the files are fsynced on a background thread while the worker goes on (the commit
    # fsyncs every part again before its manifest, cheaply once this has)
    files = PartitionFiles(Path(root), f"{prefix}-c{number:05d}", ingest_id, fast,
                           flush_in_background=True)
    seen_here = IdSet(filter_bits=TASK_FILTER_BITS)
    written: list[np.ndarray] = []
    slow: list[RawRecord] = []
    decided: list[LogGame] = []
    accepted = 0

    pending: dict[str, list[pa.Table]] = {}

    def store(tables: dict[str, pa.Table]) -> None:
        """Keep the games of ``tables`` that neither the archive (at the run's start) nor
        this task holds yet, for the task's files."""
        ids = tables["games"].column("game_id").to_numpy().astype(np.int64)
        keep = seen_here.new_mask(ids)
        if _KNOWN is not None and len(_KNOWN):
            keep &= ~_KNOWN.contains(ids)
        if not keep.any():
            return
        for table, data in keep_game_rows(tables, keep, ids).items():
            if data.num_rows:
                pending.setdefault(table, []).append(fit_schema(table, data))
        written.append(ids[keep])

    try:
        for first, chunk in chunks:
            batch = process_chunk(first, chunk, source, True, ingest_id, rules, claims=True)
            slow.extend(batch.slow)
            decided.extend(batch.decided)
            accepted += batch.accepted + batch.matched
            if batch.tables is not None and batch.tables["games"].num_rows:
                store(batch.tables)
            for tables in batch.claimed:  # the simulator's own lines, matched
                store(tables)
        settled = _settle_slow(slow, rules, ingest_id)
        for tables in settled.tables:
            store(tables)
        accepted += settled.stored
        for table, pieces in pending.items():  # one write (row group) a table: each costs
            files.write(table, pa.concat_tables(pieces))  # ~1 ms whatever its rows
        parts = files.finish_all()
    except BaseException:
        files.abandon()
        raise
    ids_out = np.concatenate(written) if written else np.empty(0, np.int64)
    games = settled.games if not decided else list(
        heapq.merge(decided, settled.games, key=lambda game: game.line))
    claims, rejects = _task_rejects(games, ingest_id, root)
    return PartBatch(number, accepted, ids_out, {t: p for t, p in parts.items() if p}, claims,
                     rejects)


@dataclass
class _Settled:
    """The slow path's verdict on a task's records: ``tables`` of the ``stored`` valid
    logged games the worker writes itself, and the ``games`` left to the main process."""

    tables: list[dict[str, pa.Table]] = field(default_factory=list)
    stored: int = 0
    games: list[LogGame] = field(default_factory=list)


def _settle_slow(records: list[RawRecord], rules: Rules, ingest_id: str) -> _Settled:
    """Validate the records the kernel handed over, in the worker, by the reference
    validator (the same verdicts as the reference ingest); valid logged games become rows
    here. The simulator's own lines were matched before (:func:`process_chunk` with
    ``claims``), so a claim that reaches this point did not match its bytes: it is replayed
    and left to the main process, which checks it field by field."""
    from ..rows import GameRowsBuilder
    from ..simulated import claims_simulation
    from ..validate import parse_raw, replay_parsed

    out = _Settled()
    rows = GameRowsBuilder(ingest_id)
    for raw in records:
        game = replay_parsed(parse_raw(raw, rules), checked=not raw.replayed)
        if game.ok and not claims_simulation(game):
            rows.add_log_game(game)
            out.stored += 1
        else:  # rejects and prose (summary), claims checked field by field (main process)
            out.games.append(game)
    if len(rows):
        out.tables.append(rows.tables())
    return out


def iter_part_batches(
    path_or_stream: str | os.PathLike[str] | BinaryIO,
    root: Path,
    ingest_id: str,
    known: IdSet,
    *,
    source: str | None = None,
    workers: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    chunks_per_task: int = CHUNKS_PER_TASK,
    fast: bool = True,
    prefix: str | None = None,
    hasher: Any | None = None,
    rules: Rules = ISKO_ISS,
    stop: Callable[[], bool] | None = None,
    exits: list[threading.Thread] | None = None,
) -> Iterator[PartBatch]:
    """Validate an ISS file and write its accepted games' partitions, task by task.

    Yields one :class:`PartBatch` per task, in file order (so partition and row order do
    not depend on the worker count or scheduling). ``workers`` > 1 runs the tasks in that
    many forked processes with at most ``2 x workers`` tasks in flight (bounded memory);
    1 runs them in this process. ``known``: the archive's game ids at the start of the run.
    ``prefix`` (default ``ingest_id``; it must start with it) names the partition files
    ``part-<prefix>-c<task>-<n>``: give each file of a run its own. ``hasher`` (a hashlib
    object) is fed every byte of the (decompressed) stream, in order. ``rules``: the rule
    set of records that do not name one. ``stop()`` is asked before each task is started:
    once it says so, no task starts and the ones already running are still yielded (their
    work is done), so the caller keeps consuming until the end. ``exits``: when given, the
    worker processes, once every task is yielded, exit while the caller goes on (their
    exit frees hundreds of MB, some 15 ms): a thread that joins them is appended, which
    the caller joins in turn before it returns (so their CPU time is accounted to it, and
    none outlives the run). Without it (or on an error) they are joined here.
    """
    global _KNOWN
    plain: str | None = None
    if isinstance(path_or_stream, (str, os.PathLike)):
        name = source if source is not None else str(path_or_stream)
        stream: BinaryIO = open_binary(Path(path_or_stream))
        close = True
        if not is_compressed_name(path_or_stream):  # not decompressed: workers read it too
            plain = os.fspath(path_or_stream)
    else:
        name = source if source is not None else getattr(path_or_stream, "name", "<stream>")
        stream = path_or_stream
        close = False
    workers = workers or os.cpu_count() or 1
    _KNOWN = known
    try:
        args = (name, str(root), ingest_id, prefix or ingest_id, fast)
        if workers <= 1:
            for number, chunks in _tasks(_chunks(stream, chunk_bytes, hasher, False),
                                         max(1, chunks_per_task)):
                if stop is not None and stop():
                    return
                yield write_task(number, chunks, *args, None, rules)
            return
        spans = iter_spans(stream, chunk_bytes, hasher)
        head = next(spans, None)
        tasks = _tasks(_chunks(stream, chunk_bytes, hasher, plain is not None,
                               itertools.chain([head], spans) if head else spans),
                       max(1, chunks_per_task))
        warm_up(slow_path=True)  # load the compiled code once, before the workers fork
        if head is not None and _simulated_head(head[3]):  # a simulated run's log:
            warm_up_matching()  # the re-simulation too (not compiled for other logs)
        # a ProcessPoolExecutor, not a Pool: a worker killed (e.g. out of memory) fails
        # the run instead of hanging it
        procs = _forked_pool(workers)
        done = False
        pending: deque[Future[PartBatch]] = deque()
        try:
            for number, chunks in tasks:
                if stop is not None and stop():
                    break
                pending.append(procs.submit(write_task, number, chunks, *args, plain, rules))
                while len(pending) >= 2 * workers:
                    yield pending.popleft().result()
            if stop is not None and stop():
                for future in pending:  # not started yet: dropped
                    future.cancel()
            while pending:
                future = pending.popleft()
                if not future.cancelled():  # running or done: its work is kept
                    yield future.result()
            done = True
        except BrokenProcessPool as err:
            raise ArchiveError(f"{name}: a worker process died ({err}); nothing was"
                               " committed") from None
        finally:
            for future in pending:
                future.cancel()
            if done and exits is not None:  # every task's work is in: let them exit while
                exits.append(_exit_in_background(procs))  # the caller goes on
            else:
                procs.shutdown(wait=True)
    finally:
        _KNOWN = None
        if close:
            stream.close()


#: How much of a file's first chunk tells whether the simulator wrote it (every line of
#: such a log carries its hand's ``seed`` tag).
_SIMULATED_PEEK = 1 << 16


def _simulated_head(pieces: tuple[bytes | memoryview, ...]) -> bool:
    """Whether the lines at the start of a file are the simulator's (a ``seed`` tag among
    its first 64 KB): then the parent loads the re-simulation before the workers fork.
    Only that far, not the whole first chunk: the workers wait for this."""
    head = b"".join(bytes(piece[:_SIMULATED_PEEK]) for piece in pieces)[:_SIMULATED_PEEK]
    return b"]seed[" in head


def _exit_in_background(procs: ProcessPoolExecutor) -> threading.Thread:
    """Shut ``procs`` down (every task done) on a thread of its own; the thread, to join."""
    thread = threading.Thread(target=procs.shutdown, name="skatlog-workers-exit", daemon=True)
    thread.start()
    return thread


def _forked_pool(workers: int) -> ProcessPoolExecutor:
    """``workers`` processes forked now, while this process reads the first task, with
    this process's objects frozen for the fork (``gc.freeze``): a worker's garbage
    collections then never walk them, so the pages they share with this process are not
    written (each write copies a page) nor read again. With a large heap, as after a
    validation in the same process, the workers spent 0.2-1.6 CPU-s more per 200,000
    records without it. The objects are unfrozen here again once the workers exist."""
    gc.freeze()
    try:
        procs = ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"),
                                    initializer=_die_with_parent, initargs=(os.getpid(),))
        procs.submit(int)  # a fork context starts every worker at the first task
    finally:
        gc.unfreeze()
    return procs


#: glibc's mallopt parameters (malloc.h): allocations above M_MMAP_THRESHOLD get pages of
#: their own, which are returned to the OS when freed; M_TRIM_THRESHOLD is how much free
#: memory the heap keeps at its top.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def _keep_freed_memory() -> None:
    """Let this worker's malloc keep the memory of one chunk for the next (glibc only).

    A chunk's scratch arrays (tens of MB, :func:`.columns.scan`) and its copies are large
    enough that glibc maps fresh pages for each and unmaps them when freed, so every chunk
    paid the kernel's page faults again: some 30,000 a worker for 200,000 records. Served
    from a heap that keeps up to 256 MB free instead, the next chunk reuses the pages
    (about 25 % fewer faults, 2 % less CPU; the worker's peak memory is about the same).
    Elsewhere (no glibc) this does nothing."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None)
        libc.mallopt(_M_MMAP_THRESHOLD, 64 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 256 << 20)


def _die_with_parent(parent: int) -> None:
    """Worker start-up: end this worker when the main process dies (Linux
    PR_SET_PDEATHSIG), so a killed ingest leaves no workers behind writing orphans; and
    ignore Ctrl-C, which the terminal sends the workers too: the main process decides
    (it lets the running tasks finish and commits them, :mod:`skatlog.ingest.interrupt`);
    use no huge pages (:mod:`.pages`); and keep freed memory for the next chunk
    (:func:`_keep_freed_memory`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the prctl took effect
        os._exit(1)
    disable_huge_pages()
    _keep_freed_memory()


def _chunks(stream: BinaryIO, chunk_bytes: int, hasher: Any | None, by_offset: bool,
            spans: Iterator[Span] | None = None) -> Iterator[Chunk]:
    """The stream's chunks (:func:`.stream.iter_spans`, which also feeds ``hasher``, so the
    file is hashed as it is read, not in a second pass): as (offset, length) when
    ``by_offset`` (the workers read a plain file themselves), else as bytes. ``spans``:
    the stream's spans when the caller has already started on them."""
    for line, offset, length, pieces in spans or iter_spans(stream, chunk_bytes, hasher):
        yield line, (offset, length) if by_offset else b"".join(pieces)


def _tasks(chunks: Iterator[Chunk], per_task: int) -> Iterator[tuple[int, list[Chunk]]]:
    """Consecutive groups of ``per_task`` chunks, numbered from 1."""
    group: list[Chunk] = []
    number = 0
    for chunk in chunks:
        group.append(chunk)
        if len(group) == per_task:
            number += 1
            yield number, group
            group = []
    if group:
        yield number + 1, group


