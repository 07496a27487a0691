"""Simulation runs: hands from the batch simulator into the archive or a log file.

A run is fixed by its :class:`SimulationOptions` (seed, number of hands, bots, sessions);
hand ``i`` depends only on (seed, i, bots), so any split of the work -- chunks, threads,
Dask workers -- gives identical output. Rows are built with the archive's own schema
(:mod:`skatlog.ingest.schema`, ``origin = simulated``, ``seed`` and ``bots`` per game) and
appended with its atomic writer (:class:`skatlog.ingest.archive.ArchiveWriter`).
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from .batch import BatchGames, bot_codes, simulate_batch
from .batch.encode import (
    TRICK_SMALL_COLUMNS,
    batch_rows,
    needs_moves_text,
    run_base,
    run_ids,
)
from .batch.tables import DECL_T
from .contract import Contract
from .session import HANDS_PER_SESSION

#: Hands simulated and written per chunk: big enough for fast columnar writes, small
#: enough that its arrays are reused from the allocator rather than fresh zeroed pages
#: (measured: 50,000 takes ~5% less CPU per hand than 100,000 or 200,000).
CHUNK = 50_000
FILE_FORMATS = ("sgf", "jsonl")


class SimulationError(ValueError):
    """Bad simulation options (unknown bot, negative count, unknown output format)."""


NEEDS_NUMBA = "the simulator needs numba: pip install 'skatlog[fast]'"


#: The most hands one run may ask for: far below the 2**64 ids a run numbers its hands with,
#: and small enough that the run's task list fits in memory.
MAX_HANDS = 10**12


@dataclass(frozen=True)
class SimulationOptions:
    """Everything that determines a run's output."""

    hands: int
    seed: int = 1
    bots: tuple[str, str, str] = ("rules", "rules", "rules")
    sessions: bool = False
    #: The id of hand 0 (:func:`~.batch.encode.run_base`), derived from the fields above
    #: and the simulator; :meth:`resolved` fills it in once, so that every thread, process
    #: and Dask worker numbers the run's hands alike.
    id_base: int | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.hands <= MAX_HANDS:
            raise SimulationError(f"--hands must be in 0 .. {MAX_HANDS:,} (about four weeks "
                                  f"at 500,000 hands/s), not {self.hands:,}")
        if not 0 <= self.seed < 2**63:
            raise SimulationError(f"--seed must be in 0 .. 2**63-1, not {self.seed}")
        try:
            bot_codes(self.bots)
        except ValueError as err:
            raise SimulationError(str(err)) from None

    def resolved(self) -> SimulationOptions:
        """These options with :attr:`id_base` worked out."""
        if self.id_base is not None:
            return self
        return replace(self, id_base=run_base(self.seed, self.bots,
                                              1 if self.sessions else 0))

    @property
    def player_names(self) -> tuple[str, str, str]:
        """Names of the three table positions: ``P1:rules``, ``P2:rules``, ``P3:random``."""
        return (f"P1:{self.bots[0]}", f"P2:{self.bots[1]}", f"P3:{self.bots[2]}")


def parse_bots(text: str) -> tuple[str, str, str]:
    """``"rules,rules,random"`` -> three bot names; one name is used for all three seats."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    if len(names) == 1:
        names *= 3
    if len(names) != 3:
        raise SimulationError(f"--bots takes one or three names, not {text!r}")
    try:
        bot_codes(names)
    except ValueError as err:
        raise SimulationError(str(err)) from None
    return (names[0], names[1], names[2])


def set_workers(workers: int | None) -> int:
    """Use ``workers`` numba threads (default: all cores); returns the number in use."""
    try:
        import numba
    except ImportError:
        raise SimulationError(NEEDS_NUMBA) from None

    available = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    if workers is None:
        workers = available
    if workers < 1:
        raise SimulationError(f"--workers must be at least 1, not {workers}")
    workers = min(workers, available)
    numba.set_num_threads(workers)
    return workers


def current_workers() -> int:
    """The number of threads :func:`set_workers` chose for this thread (numba's setting)."""
    import numba

    return int(numba.get_num_threads())


# ------------------------------------------------------------------ rows
_OUTCOMES = pa.array(["played", "passed"])
_ENDINGS = pa.array(["all_passed", "ten_tricks", "null_trick"])
_CONTRACTS = pa.array([c.label for c in Contract])
_KINDS = pa.array(["bid", "hold", "pass"])


def _dict(indices: np.ndarray, dictionary: pa.Array | list[str],
          valid: pa.Buffer | None = None, nulls: int = 0) -> pa.DictionaryArray:
    """A dictionary column from int indices; ``valid`` is a validity bitmap (see
    :func:`_validity`) with ``nulls`` null rows, shared by the columns it applies to."""
    values = dictionary if isinstance(dictionary, pa.Array) else pa.array(dictionary)
    codes = indices.astype(np.int32, copy=False)
    return pa.DictionaryArray.from_arrays(_array(codes, pa.int32(), valid, nulls), values)


def _validity(passed: np.ndarray) -> tuple[pa.Buffer | None, int]:
    """The validity bitmap of the columns that are null in passed hands, and their count."""
    nulls = int(passed.sum())
    if nulls == 0:
        return None, 0
    return pa.py_buffer(np.packbits(~passed, bitorder="little")), nulls


def _array(values: np.ndarray, type_: pa.DataType, valid: pa.Buffer | None, nulls: int
           ) -> pa.Array:
    """``values`` as an Arrow array of ``type_`` with the given validity bitmap (no copy
    when ``values`` already is a contiguous array of that width)."""
    data = np.ascontiguousarray(values.astype(type_.to_pandas_dtype(), copy=False))
    return pa.Array.from_buffers(type_, len(values), [valid, pa.py_buffer(data)], nulls)


def _flag(values: np.ndarray, valid: pa.Buffer | None, nulls: int) -> pa.Array:
    bits = pa.py_buffer(np.packbits(values.astype(bool), bitorder="little"))
    return pa.Array.from_buffers(pa.bool_(), len(values), [valid, bits], nulls)


def batch_tables(batch: BatchGames, options: SimulationOptions,
                 ingest_id: str | None = None) -> dict[str, pa.Table]:
    """The ``games``, ``tricks`` and ``auction`` tables of a simulated batch.

    Every per-row array comes from a compiled pass over the batch (:mod:`.batch.encode`)
    or one numpy cast per column; pyarrow wraps the arrays without copying them.
    """
    from skatlog.ingest.schema import table_from_columns

    n = len(batch)
    index = batch.index
    dealer = index % 3
    positions = [(dealer + 1 + seat) % 3 for seat in range(3)]  # seat -> table position
    if (batch.seed, batch.bots) != (options.seed, options.bots):
        raise SimulationError("the batch was not simulated with these options")
    base = options.resolved().id_base
    assert base is not None
    ids = run_ids(base, batch.start, n)
    text_rows = needs_moves_text(batch)  # the rest rebuild from their rows exactly
    rows = batch_rows(batch, ids, text_rows)

    col = batch.column
    declarer = col("declarer").astype(np.int8)
    passed = declarer < 0
    decl = col("decl").astype(np.int64)
    decl_rows = DECL_T[np.where(passed, 0, decl)]
    contract = decl_rows[:, 0]
    pickup = col("pickup").astype(bool)
    declarer_tricks = col("declarer_tricks")
    valid, nulls = _validity(passed)
    ending = np.where(passed, 0, np.where((contract == Contract.NULL) & (declarer_tricks > 0),
                                          2, 1))
    names = list(options.player_names)
    rotations = [",".join(options.bots[(d + 1 + s) % 3] for s in range(3)) for d in range(3)]
    laid_away = pickup & ~passed
    discard_offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(laid_away * np.int32(2), out=discard_offsets[1:])
    discard_values = batch.discard[laid_away].reshape(-1).view(np.uint8)
    discard = pa.ListArray.from_arrays(pa.array(discard_offsets), pa.array(discard_values),
                                       mask=pa.array(~laid_away))
    const = np.zeros(n, dtype=np.int32)
    games: dict[str, object] = {
        "game_id": ids,
        "origin": _dict(const, ["simulated"]),
        "source": _dict(const, ["simulated"]),
        "forehand": _dict(positions[0], names),
        "middlehand": _dict(positions[1], names),
        "rearhand": _dict(positions[2], names),
        "dealer": np.full(n, 2, dtype=np.int8),  # the dealer sits Rearhand (R1)
        "deal": batch.deal.view(np.uint8),
        "forehand_cards": rows.masks[0],
        "middlehand_cards": rows.masks[1],
        "rearhand_cards": rows.masks[2],
        "passed": passed,
        "outcome": _dict(passed.astype(np.int32), _OUTCOMES),
        "ending": _dict(ending, _ENDINGS),
        "declarer": _array(declarer, pa.int8(), valid, nulls),
        "declarer_name": _dict(np.choose(np.maximum(declarer, 0), positions), names, valid,
                               nulls),
        "contract": _dict(contract, _CONTRACTS, valid, nulls),
        "hand": _flag(decl_rows[:, 1], valid, nulls),
        "schneider_announced": _flag(decl_rows[:, 2], valid, nulls),
        "schwarz_announced": _flag(decl_rows[:, 3], valid, nulls),
        "ouvert": _flag(decl_rows[:, 4], valid, nulls),
        "skat_taken": _flag(pickup, valid, nulls),
        "discard": discard,
        "bid": col("bid"),
        "value": col("value"),
        "value_check": _dict(const, ["not_recorded"]),
        "moves": pa.StringArray.from_buffers(n, pa.py_buffer(rows.offsets),
                                             pa.py_buffer(rows.text),
                                             *_validity(~text_rows)),
        "recorded_rules": np.zeros(n, dtype=bool),
        "seed": np.full(n, options.seed, dtype=np.int64),
        "bots": _dict(dealer, rotations),
    }
    for name, type_ in (("matadors", pa.int8()), ("declarer_points", pa.int16()),
                        ("defender_points", pa.int16()), ("declarer_tricks", pa.int8()),
                        ("defender_tricks", pa.int8()), ("game_value", pa.int16()),
                        ("multiplier", pa.int8())):
        games[name] = _array(col(name), type_, valid, nulls)
    for name in ("schneider", "schwarz", "won", "overbid"):
        games[name] = _flag(col(name), valid, nulls)
    if options.sessions and n:
        session_no = index // HANDS_PER_SESSION
        labels = [f"sim-{options.seed}-{s}" for s in range(int(session_no[0]),
                                                            int(session_no[-1]) + 1)]
        games["session_id"] = _dict(session_no - session_no[0], labels).cast(pa.string())
        games["hand_no"] = (index % HANDS_PER_SESSION + 1).astype(np.int8)
    if ingest_id is not None:
        games["ingest_id"] = _dict(const, [ingest_id])

    # tricks: one row per completed trick
    tricks: dict[str, object] = {"game_id": rows.trick_ids}
    tricks.update(zip(TRICK_SMALL_COLUMNS, rows.trick, strict=True))

    # auction: one row per call; a hold repeats the bid it holds
    auction = {
        "game_id": rows.call_ids,
        "call_no": rows.call[0],
        "seat": rows.call[1],
        "kind": _dict(rows.kind, _KINDS),
        "value": _array(rows.value, pa.int16(), *_validity(rows.is_pass)),
    }
    return {
        "games": table_from_columns("games", games, n),
        "tricks": table_from_columns("tricks", tricks, len(rows.trick_ids)),
        "auction": table_from_columns("auction", auction, len(rows.call_ids)),
    }


# ------------------------------------------------------------------ runs
def chunk_ranges(start: int, stop: int, chunk: int = CHUNK) -> list[tuple[int, int]]:
    """``[start, stop)`` cut into consecutive ``(begin, end)`` ranges of at most ``chunk``."""
    return [(b, min(b + chunk, stop)) for b in range(start, stop, chunk)]


def task_ranges(hands: int, workers: int = 1) -> list[tuple[int, int]]:
    """An archive run's tasks, in order: :data:`TASK` hands each. With several ``workers``
    the last ``workers - 1`` tasks' worth is cut into tenths, so that the threads run out
    of work at nearly the same time (with whole tasks to the end, one thread idled for
    half a task on average, ~5 % of a 4-million-hand run). Either way the rows and their
    order are the same; only the partition files differ."""
    head = max(0, hands - (workers - 1) * TASK)
    return chunk_ranges(0, head, TASK) + chunk_ranges(head, hands, max(1, TASK // 10))


def iter_batches(options: SimulationOptions, start: int = 0, stop: int | None = None,
                 chunk: int = CHUNK) -> Iterator[BatchGames]:
    """The run's hands ``[start, stop)`` as batches, the next one simulated while the caller
    handles the current one (numba releases the GIL)."""
    for batch, _ in _prefetched(options, start, stop, chunk, lambda b: None):
        yield batch


def iter_tables(options: SimulationOptions, start: int = 0, stop: int | None = None,
                chunk: int = CHUNK, ingest_id: str | None = None, prefetch: bool = True
                ) -> Iterator[tuple[BatchGames, dict[str, pa.Table]]]:
    """Batches with their archive tables. With ``prefetch`` the next chunk is simulated
    and converted in a background thread while the caller writes the current one; without
    it everything runs in the caller's thread (for callers that already keep every core
    busy with one such loop per core, where a second thread each only adds switching)."""
    yield from _prefetched(options, start, stop, chunk,
                           lambda b: batch_tables(b, options, ingest_id), prefetch)


def _prefetched(options: SimulationOptions, start: int, stop: int | None, chunk: int,
                convert: Callable[[BatchGames], Any], prefetch: bool = True
                ) -> Iterator[tuple[BatchGames, Any]]:
    stop = options.hands if stop is None else stop
    ranges = chunk_ranges(start, stop, chunk)
    threads = current_workers()  # numba's setting is per thread: read it here, pass it on

    def produce(begin: int, end: int) -> tuple[BatchGames, Any]:
        batch = simulate_batch(options.seed, begin, end - begin, options.bots, threads=threads)
        return batch, convert(batch)

    if not ranges:
        return
    if not prefetch:
        for begin, end in ranges:
            yield produce(begin, end)
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(produce, *ranges[0])
        for k in range(len(ranges)):
            done = pending.result()
            if k + 1 < len(ranges):
                pending = pool.submit(produce, *ranges[k + 1])
            yield done


@dataclass
class SimulationSummary:
    """What a simulation run did."""

    hands: int
    seconds: float
    stored: int = 0
    duplicates: int = 0
    target: str = ""
    ingest_id: str = ""
    played: int = 0
    declarer_won: int = 0
    #: Hand ranges not simulated because the archive held them (a re-run).
    skipped: list[tuple[int, int]] = field(default_factory=list)

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0

    @property
    def skipped_hands(self) -> int:
        """Hands of the run that were not simulated, the archive holding them already."""
        return sum(end - begin for begin, end in self.skipped)


Progress = Callable[[int], None]


def _tally(summary: SimulationSummary | _TaskResult, batch: BatchGames) -> None:
    played = batch.column("declarer") >= 0
    summary.played += int(played.sum())
    summary.declarer_won += int(batch.column("won")[played].sum())


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

    from skatlog.ingest.archive import PartitionFiles

    numba.set_num_threads(min(task.threads, int(numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    files = PartitionFiles(Path(task.root), f"{task.ingest_id}-{task.number:05d}",
                           task.ingest_id, fast=True, sequential_ids=True,
                           flush_in_background=True)
    stored_ids = _StoredIds()  # ids of this task so far
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
                 stored_ids: _StoredIds, known: np.ndarray | None, result: _TaskResult
                 ) -> None:
    """Write one simulated chunk's rows, less the hands already stored."""
    ids = tables["games"].column("game_id").to_numpy()
    keep = _fresh(ids, stored_ids, known)
    stored = int(keep.sum())
    result.stored += stored
    result.duplicates += len(ids) - stored
    _tally(result, batch)
    if stored < len(ids):
        tables = _keep_games(tables, ids, keep)
    for table in ("games", "tricks", "auction"):
        if tables[table].num_rows:
            files.write(table, tables[table])


def _all_known(known: np.ndarray, base: int, begin: int, end: int) -> bool:
    """Whether ``known`` (sorted, distinct ids) holds the ids of the run's hands
    ``[begin, end)``. Those ids are consecutive integers (in one or two bounds), so the
    count of known ids within the bounds decides it: two binary searches per bound."""
    inside = sum(int(np.searchsorted(known, hi, side="right") - np.searchsorted(known, lo))
                 for lo, hi in id_bounds(base, [(begin, end)]))
    return inside == end - begin


def split_stored(options: SimulationOptions, start: int, stop: int, chunk: int,
                 known: np.ndarray | None
                 ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Hands ``[start, stop)`` of the run as (runs of chunks to simulate, chunks to skip).
    A chunk is skipped when the archive (``known``, sorted and distinct) holds every one
    of its hands, as after a re-run of the same seed and options: the hands' ids are known
    before simulating (:func:`~.batch.encode.run_ids`), so the work is not done twice."""
    base = options.resolved().id_base
    assert base is not None
    todo: list[tuple[int, int]] = []
    skipped: list[tuple[int, int]] = []
    for begin, end in chunk_ranges(start, stop, chunk):
        if known is not None and _all_known(known, base, begin, end):
            skipped.append((begin, end))
        elif todo and todo[-1][1] == begin:
            todo[-1] = (todo[-1][0], end)
        else:
            todo.append((begin, end))
    return todo, skipped


@dataclass
class _StoredIds:
    """The ids a task has stored so far. A simulated run's ids are consecutive, so each
    chunk's ids normally increase past everything before them; then only the highest id
    is needed to know nothing repeats. A chunk that breaks this is checked against all of
    them, sorted once (the general path, for ids that wrapped around or repeat)."""

    high: int | None = None
    chunks: list[np.ndarray] = field(default_factory=list)

    def sorted(self) -> np.ndarray:
        if not self.chunks:
            return np.empty(0, dtype=np.int64)
        return np.sort(np.concatenate(self.chunks), kind="stable")

    def add(self, ids: np.ndarray) -> None:
        if len(ids):
            self.chunks.append(ids)
            top = int(ids.max())
            self.high = top if self.high is None else max(self.high, top)


def _increasing_past(ids: np.ndarray, high: int | None) -> bool:
    """Whether ``ids`` strictly increase and all exceed ``high`` (None: nothing yet)."""
    if not len(ids):
        return True
    return (high is None or int(ids[0]) > high) and bool((ids[1:] > ids[:-1]).all())


def _fresh(ids: np.ndarray, stored: _StoredIds, known: np.ndarray | None) -> np.ndarray:
    """Which ``ids`` to store: not in ``known`` (the archive, sorted) nor earlier in the
    task (``stored``, which gets them), and the first of their value in ``ids``.

    Consecutive ids (every simulated chunk) only need binary searches into ``known``;
    otherwise one sort of the chunk, and the exact per-row mask is only worked out when
    something repeats (a re-run, or a 64-bit id collision)."""
    if _increasing_past(ids, stored.high):
        keep = np.ones(len(ids), dtype=bool)
        if known is not None and len(known) and len(ids):
            # only the archive's ids between the chunk's first and last can match
            near = known[np.searchsorted(known, ids[0]):
                         np.searchsorted(known, ids[-1], side="right")]
            if len(near):
                pos = np.searchsorted(near, ids)
                pos[pos == len(near)] = 0
                keep = near[pos] != ids
        stored.add(ids if keep.all() else ids[keep])
        return keep
    order = np.argsort(ids, kind="stable")  # equal ids keep their row order: first wins
    ordered = ids[order]
    repeated = ordered[1:] == ordered[:-1]
    hits = np.zeros(len(ids), dtype=bool)  # in sorted order
    for earlier in (stored.sorted(), known):
        if earlier is not None and len(earlier):
            pos = np.searchsorted(earlier, ordered)
            pos[pos == len(earlier)] = 0
            hits |= earlier[pos] == ordered
    first = np.ones(len(ids), dtype=bool)
    first[1:] = ~repeated
    keep = np.zeros(len(ids), dtype=bool)
    keep[order[first & ~hits]] = True
    stored.add(ids[keep])
    return keep


def _keep_games(tables: dict[str, pa.Table], ids: np.ndarray, keep: np.ndarray
                ) -> dict[str, pa.Table]:
    """The tables reduced to the games ``keep`` marks (with their tricks and calls)."""
    import pyarrow.compute as pc

    kept_ids = pa.array(ids[keep])
    out = {"games": tables["games"].filter(pa.array(keep))}
    for child in ("tricks", "auction"):
        rows = tables[child]
        out[child] = rows.filter(pc.is_in(rows.column("game_id"), value_set=kept_ids))
    return out


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
    numba thread setting, see :func:`set_workers`) and at least
    :data:`PARALLEL_THRESHOLD` hands, ``workers`` tasks run at once on threads, each one
    simulating AND writing its own partition files, so all cores work end to end. The
    writer holds the archive lock throughout and commits every task's files in one
    manifest commit: nothing is visible before it, and an interrupted run leaves the
    archive as it was. Hands whose id the archive already holds (a rerun of the seed) are
    skipped; the ids of one run are consecutive (:func:`~.batch.encode.run_ids`), so they
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
    from concurrent.futures import ThreadPoolExecutor
    from queue import Queue

    from skatlog import __version__
    from skatlog.ingest.archive import ArchiveWriter
    from skatlog.ingest.schema import ingest_table

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


def merged_ranges(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``ranges`` sorted, with touching ranges joined."""
    out: list[tuple[int, int]] = []
    for begin, end in sorted(ranges):
        if out and out[-1][1] == begin:
            out[-1] = (out[-1][0], end)
        else:
            out.append((begin, end))
    return out


def id_bounds(base: int, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Inclusive ``(low, high)`` game-id bounds of a run's hand ``ranges`` (its hand 0 has
    id ``base``). Ids count up modulo 2**64, so a range that wraps past the largest int64
    gives two bounds."""
    bounds: list[tuple[int, int]] = []
    for begin, end in ranges:
        if end <= begin:
            continue
        first, last = (int(v) for v in run_ids(base, begin, end - begin)[[0, -1]])
        bounds += [(first, last)] if first <= last else [(first, 2**63 - 1), (-2**63, last)]
    return bounds


def stored_outcomes(writer: Any, base: int, ranges: list[tuple[int, int]]
                     ) -> tuple[int, int]:
    """(played games, declarer wins) among the run's hands ``ranges`` that the archive
    already held (skipped chunks), read from its committed ``games`` rows, so that a
    re-run reports the same counts as the first run."""
    import duckdb

    from skatlog.ingest.computed import table_sql

    bounds = id_bounds(base, ranges)
    files = [writer.root / rel for rel in writer.manifest.files("games")]
    where = " OR ".join(f"game_id BETWEEN {lo} AND {hi}" for lo, hi in bounds)
    with duckdb.connect() as con:
        row = con.execute(f"SELECT count(declarer), count(*) FILTER (WHERE won) FROM "
                          f"{table_sql('games', files)} WHERE {where}").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def _collect(futures: list[Any], progress: Any, on_progress: Progress | None
             ) -> Iterator[_TaskResult]:
    """The tasks' results in task order, relaying (in this thread) the progress they
    report meanwhile. A finished task puts a 0 on the queue, which wakes this loop at once
    (polling with a timeout left the cores idle for up to that timeout at the end)."""
    import queue

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


def log_games(batch: BatchGames, options: SimulationOptions) -> Iterator[object]:
    """The batch's hands as validated :class:`~skatlog.ingest.model.LogGame` values: each
    one replayed through the engine's validated path (``GameState.apply``), with the
    record id and tags that name it (:mod:`skatlog.ingest.simulated`: seed, bots, hand
    index, sessions), from which ingest re-simulates it and stores it under the id
    ``simulate --archive`` gives it."""
    from skatlog.ingest.model import LogGame
    from skatlog.ingest.simulated import Claim, simulated_meta, simulated_tags

    from .record import replay

    for row in range(len(batch)):
        claim = Claim(options.seed, options.bots, batch.start + row, options.sessions)
        record = replay(batch.deal_of(row), batch.moves(row))
        yield LogGame(source="simulated", line=0, raw="", format="simulated",
                      meta=simulated_meta(claim), record=record,
                      extra={"tags": simulated_tags(claim)})


def file_format(path: str | os.PathLike[str]) -> str:
    """``sgf`` (ISS) or ``jsonl`` from the output file's name; SimulationError otherwise."""
    target = Path(path)
    suffix = target.suffix.lower().lstrip(".")
    if suffix not in FILE_FORMATS:
        raise SimulationError(f"--out must end in .sgf or .jsonl, not {target.name!r}")
    return suffix


def simulate_to_file(
    path: str | os.PathLike[str],
    options: SimulationOptions,
    *,
    chunk: int = CHUNK,
    on_progress: Progress | None = None,
) -> SimulationSummary:
    """Simulate the run into an ISS (``.sgf``) or skatlog JSONL (``.jsonl``) log file,
    written to a temporary name and renamed when complete."""
    from skatlog.ingest.iss import write_iss
    from skatlog.ingest.jsonl import write_jsonl

    target = Path(path)
    writer = write_iss if file_format(target) == "sgf" else write_jsonl
    clock = time.perf_counter()
    summary = SimulationSummary(options.hands, 0.0, target=str(target))
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as out:
            for batch in iter_batches(options, chunk=min(chunk, 20_000)):
                for game in log_games(batch, options):
                    out.write(writer(game, result="computed"))  # type: ignore[arg-type]
                    out.write("\n")
                summary.stored += len(batch)
                _tally(summary, batch)
                if on_progress is not None:
                    on_progress(len(batch))
        os.replace(tmp, target)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise SimulationError(f"cannot write {target}: {err.strerror}") from err
    except BaseException:  # Ctrl-C, a failed hand: no half-written file is left behind
        tmp.unlink(missing_ok=True)
        raise
    summary.seconds = time.perf_counter() - clock
    return summary


# ------------------------------------------------------------------ checking stored runs
def verify_archive(archive: str | os.PathLike[str] | None, *, workers: int = 1,
                   batch_size: int = 20_000, on_progress: Progress | None = None,
                   ) -> tuple[int, list[str]]:
    """Replay every stored game through ``GameState.apply`` and compare the stored results
    (:func:`skatlog.ingest.verify.verify_archive`). Returns (games checked, problems)."""
    from skatlog.ingest.verify import verify_archive as verify

    report = verify(archive, workers=workers, batch_size=batch_size, on_progress=on_progress)
    return report.checked, report.problems
