"""The Parquet archive: append-only partitions per table, made visible by one manifest commit.

Layout of an archive directory (default ``data/archive/``, else ``$SKATLOG_ARCHIVE`` or a
``--archive DIR`` flag)::

    manifest.json          committed partitions per table; replaced atomically, written last
    .lock                  file lock serialising writers (readers never take it)
    games/part-<ingest_id>-<n>.parquet
    tricks/ auction/ rejects/ ingests/   likewise

A write (:class:`ArchiveWriter`) takes the lock, deletes orphan partitions left by a killed
run, writes its new partition files, fsyncs them, then writes ``manifest.json.tmp``, fsyncs it
and renames it over ``manifest.json``. Readers only look at the files the manifest lists, so a
crash or SIGKILL at any point leaves the archive exactly as it was before the run (or, for a
long run that commits as it goes with :meth:`ArchiveWriter.checkpoint`, as of its last
commit), and a rerun completes. Game ids (and reject ids) already in the archive or earlier
in the same run are counted as duplicates and not written again.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from filelock import FileLock, Timeout

from .computed import query_table, storage_form
from .schema import SCHEMA_VERSION, TABLES, SchemaError

DEFAULT_ARCHIVE = Path("data") / "archive"
ARCHIVE_ENV = "SKATLOG_ARCHIVE"
MANIFEST = "manifest.json"
MANIFEST_FORMAT = "skatlog-archive"
LOCK = ".lock"

#: Test hook: ``SKATLOG_ARCHIVE_PAUSE=<stage>`` makes a writer stop at ``stage`` (``batch``:
#: after its first partition batch is on disk; ``commit``: after the temporary manifest is
#: written, just before the rename), touch ``SKATLOG_ARCHIVE_PAUSE_FILE`` and wait until that
#: file is deleted, so a test can SIGKILL it (or run another ingest) at a known point.
PAUSE_ENV = "SKATLOG_ARCHIVE_PAUSE"
PAUSE_FILE_ENV = "SKATLOG_ARCHIVE_PAUSE_FILE"
#: With ``SKATLOG_ARCHIVE_PAUSE=checkpoint``: pause just after the run's Nth commit that is
#: not its last (default 1), to interrupt a run that has committed part of its work.
PAUSE_AT_ENV = "SKATLOG_ARCHIVE_PAUSE_AT"

#: Start a new partition file once one holds this many rows.
ROWS_PER_FILE = {"games": 2_000_000, "tricks": 16_000_000, "auction": 16_000_000,
                 "rejects": 1_000_000, "ingests": 1_000_000, "analysis": 2_000_000}


#: Columns whose values are (nearly) all distinct: Parquet dictionary pages only cost time
#: there (about half the write time of a games batch), so they are written plain.
DISTINCT_COLUMNS = frozenset({
    "game_id", "reject_id", "moves", "deal", "extra", "recorded_result", "raw", "errors",
    "record_id", "played_at", "source_line", "forehand_cards", "middlehand_cards",
    "rearhand_cards", "files",
})


def _dictionary_columns(schema: pa.Schema) -> list[str]:
    return [name for name in schema.names if name not in DISTINCT_COLUMNS]


#: Columns that keep min/max statistics in fast-written partitions (cheap, and useful for
#: filtering runs); the rest skip them, which saves a pass over every value.
FAST_STATISTICS = ("seed", "origin", "ingest_id", "trick_no", "call_no")
#: Text columns compressed with snappy in fast-written partitions (cheap, halves the size).
FAST_SNAPPY = ("moves", "record_id", "session_id", "extra", "raw", "message")


#: Values handed to the column encoders per call in fast-written partitions (pyarrow's
#: default is 1,024; each call looks up the column's properties by its dotted path).
FAST_WRITE_BATCH = 65_536
#: Rows per data page at most in fast-written partitions (pyarrow's default is 20,000,
#: which cut a 500,000-row ``tricks`` chunk into 25 pages, each with its own header and
#: compressor set-up; the 1 MB page size still bounds a page): ~10 % less time for
#: ``tricks``, ~0.8 byte a hand less overall.
FAST_ROWS_PER_PAGE = 1_000_000


def _leaves(name: str, type_: pa.DataType) -> Iterator[tuple[str, pa.DataType]]:
    """The Parquet leaf columns of a field, by the path Parquet's per-column settings
    address (``deal.list.element``, ``recorded_result.raw``): a setting named after a
    list or struct column itself reaches none of its values."""
    if pa.types.is_list(type_):
        yield from _leaves(f"{name}.list.element", type_.value_type)
    elif pa.types.is_struct(type_):
        for child in type_:
            yield from _leaves(f"{name}.{child.name}", child.type)
    else:
        yield name, type_


def parquet_options(schema: pa.Schema, fast: bool = False, sequential_ids: bool = False
                    ) -> dict[str, Any]:
    """``pq.ParquetWriter`` keyword arguments for a table's partitions.

    The default is zstd everywhere with dictionaries on the low-cardinality columns (small
    files for logged games). ``fast`` is for bulk simulated runs, where the writer is the
    bottleneck: measured per column, dictionary columns keep their dictionary, small
    integers (card lists such as ``deal`` too) use BYTE_STREAM_SPLIT + zstd level 1 (their
    zero high bytes vanish at almost no cost, faster than a dictionary for ``deal``),
    nearly distinct 64-bit ids stay plain (snappy only where ids repeat, in child tables),
    text gets snappy, and statistics are kept only for :data:`FAST_STATISTICS`; list and
    struct columns are set leaf by leaf (:func:`_leaves`). Measured on
    simulated hands: ~1.7x less CPU than the default for ~1.2x the bytes. DuckDB, polars
    and pyarrow >= 16 read both (BYTE_STREAM_SPLIT on integers is Parquet format 2.11).
    ``sequential_ids`` (a simulated run, whose hands have consecutive ids) writes
    ``game_id`` with DELTA_BINARY_PACKED + zstd: ~0.1 byte per row instead of 8, and keeps
    its min/max statistics, so a lookup by id range (export rebuilding move lists from
    ``tricks`` and ``auction``) reads only the row groups that hold it.
    """
    if not fast:
        return {"compression": "zstd", "use_dictionary": _dictionary_columns(schema)}
    dictionary: list[str] = []
    compression: dict[str, str] = {}
    level: dict[str, int] = {}
    encoding: dict[str, str] = {}
    table = (schema.metadata or {}).get(b"skatlog.table", b"").decode()
    for name, type_ in (leaf for column in schema for leaf in _leaves(column.name, column.type)):
        if pa.types.is_dictionary(type_) or name == "seed":
            dictionary.append(name)  # a handful of distinct values: the codec is nearly free
            compression[name] = "zstd"
            level[name] = 1
        elif name == "game_id" and sequential_ids:
            encoding[name] = "DELTA_BINARY_PACKED"
            compression[name] = "zstd"
            level[name] = 1
        elif name in ("game_id", "reject_id"):
            compression[name] = "snappy" if table in ("tricks", "auction") else "none"
        elif pa.types.is_integer(type_) and type_.bit_width <= 16:
            encoding[name] = "BYTE_STREAM_SPLIT"
            compression[name] = "zstd"
            level[name] = 1
        elif name in FAST_SNAPPY:
            compression[name] = "snappy"
        elif pa.types.is_integer(type_) or pa.types.is_boolean(type_):
            compression[name] = "none"  # card masks: 32 random bits; booleans: bit-packed
        else:
            compression[name] = "zstd"
            level[name] = 1
    return {"compression": compression, "compression_level": level or None,
            "use_dictionary": dictionary, "column_encoding": encoding or None,
            "write_statistics": [n for n in FAST_STATISTICS if n in schema.names]
                                + (["game_id"] if sequential_ids else []),
            "write_batch_size": FAST_WRITE_BATCH, "max_rows_per_page": FAST_ROWS_PER_PAGE}


#: The column that numbers a game's rows from 1 in each child table.
CHILD_NUMBERS = {"tricks": "trick_no", "auction": "call_no"}


def keep_game_rows(tables: Mapping[str, pa.Table], keep: np.ndarray, ids: np.ndarray
                   ) -> dict[str, pa.Table]:
    """``games`` restricted to the rows of mask ``keep``, which holds at most the first row
    of a game id (:meth:`IdSet.new_mask`), and ``tricks``/``auction`` to those games' rows.
    A child row is kept when its game is and it belongs to the first run of that game's
    rows: a game twice in one batch has its child rows twice, and their game_id alone cannot
    tell the copies apart. The tables themselves when ``keep`` keeps every row."""
    if keep.all():
        return dict(tables)
    kept = pa.array(ids[keep])
    out = {"games": tables["games"].filter(pa.array(keep))}
    for child, number in CHILD_NUMBERS.items():
        rows = tables.get(child)
        if rows is not None:
            mask = pc.is_in(rows.column("game_id"), value_set=kept).to_numpy(
                zero_copy_only=False) & _first_runs(rows, number)
            out[child] = rows.filter(pa.array(mask))
    return out


def _first_runs(rows: pa.Table, number: str) -> np.ndarray:
    """Mask of the child rows in the first run of their game id: a run starts where the
    row number ``number`` is 1 (each game's rows are numbered 1, 2, ... in a row)."""
    starts = rows.column(number).to_numpy() == 1
    run = np.cumsum(starts) - 1
    run_ids = rows.column("game_id").to_numpy()[starts]
    _, first = np.unique(run_ids, return_index=True)
    first_run = np.zeros(len(run_ids), dtype=bool)
    first_run[first] = True
    return first_run[run]


class ArchiveError(RuntimeError):
    """An archive that cannot be read or written (bad manifest, busy lock, bad batch)."""


class UnusableArchive(ArchiveError):
    """The archive path cannot be used at all: not a directory, a manifest or a committed
    partition that cannot be read. Commands treat it like a missing archive (exit 2);
    other archive errors (another ingest holding the lock) exit 1."""


def archive_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The archive directory: ``path``, else ``$SKATLOG_ARCHIVE``, else ``data/archive``."""
    if path is not None and str(path) != "":
        return Path(path)
    env = os.environ.get(ARCHIVE_ENV)
    return Path(env) if env else DEFAULT_ARCHIVE


# ------------------------------------------------------------------ manifest
@dataclass
class Manifest:
    """The committed state: partition files (relative paths) and row counts per table."""

    generation: int = 0
    tables: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {name: [] for name in TABLES})

    def files(self, table: str) -> list[str]:
        return [part["path"] for part in self.tables.get(table, [])]

    def rows(self, table: str) -> int:
        return sum(int(part["rows"]) for part in self.tables.get(table, []))

    def to_json(self) -> str:
        return json.dumps({"format": MANIFEST_FORMAT, "schema_version": SCHEMA_VERSION,
                           "generation": self.generation, "tables": self.tables}, indent=1)

    @classmethod
    def from_json(cls, text: str, where: Path) -> Manifest:
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
                raise ValueError("not a skatlog archive manifest")
            if int(data.get("schema_version", 0)) > SCHEMA_VERSION:
                raise ValueError(f"schema version {data['schema_version']} is newer than this"
                                 f" skatlog's ({SCHEMA_VERSION}): upgrade skatlog")
            listed = data["tables"]
            if not isinstance(listed, dict):
                raise ValueError("'tables' is not an object")
            tables = {name: _parts(name, listed.get(name, [])) for name in TABLES}
            return cls(int(data["generation"]), tables)
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise UnusableArchive(f"{where}: unreadable manifest: {err}") from err


def _parts(table: str, parts: object) -> list[dict[str, Any]]:
    """A manifest's list of ``table`` partitions, checked: each names a relative path inside
    the table's own directory and a row count (a damaged or hand-edited manifest must not
    send readers elsewhere, e.g. to ``/etc/passwd``)."""
    if not isinstance(parts, list):
        raise ValueError(f"{table!r} is not a list of partitions")
    for part in parts:
        if not isinstance(part, dict) or not isinstance(part.get("path"), str) \
                or not isinstance(part.get("rows"), int) or isinstance(part["rows"], bool):
            raise ValueError(f"{table!r}: a partition without a path and a row count: {part!r}")
        path = PurePosixPath(part["path"])
        if path.is_absolute() or ".." in path.parts or path.parts[:1] != (table,):
            raise ValueError(f"{table!r}: partition path {part['path']!r} is outside "
                             f"{table}/")
    return list(parts)


def read_manifest(archive: str | os.PathLike[str] | None = None) -> Manifest:
    """The committed manifest of ``archive`` (an empty one when nothing was committed)."""
    root = archive_path(archive)
    path = root / MANIFEST
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if root.exists() and not root.is_dir():
            raise UnusableArchive(f"{root}: not a directory") from None
        return Manifest()
    except OSError as err:
        raise UnusableArchive(f"{path}: cannot read: {err}") from err
    return Manifest.from_json(text, path)


def committed_files(archive: str | os.PathLike[str] | None, table: str) -> list[Path]:
    """Absolute paths of ``table``'s committed partition files, oldest first."""
    if table not in TABLES:
        raise ArchiveError(f"unknown table {table!r}: one of {', '.join(TABLES)}")
    root = archive_path(archive)
    return [root / rel for rel in read_manifest(root).files(table)]


def committed_game_ids(archive: str | os.PathLike[str] | None) -> np.ndarray:
    """The committed games' ids, sorted and distinct: a snapshot taken without the lock
    (a writer still skips any id committed meanwhile)."""
    root = archive_path(archive)
    return _load_ids(root, read_manifest(root), "games", "game_id").sorted_ids()


def check_committed(archive: str | os.PathLike[str] | None) -> Manifest:
    """The committed manifest, after reading the footer of every partition it lists: a file
    deleted or cut off since its commit is an :class:`ArchiveError` naming it (before a
    reader such as export has written anything)."""
    root = archive_path(archive)
    manifest = read_manifest(root)
    for table in TABLES:
        for rel in manifest.files(table):
            try:
                pq.read_metadata(root / rel)
            except (OSError, pa.ArrowException) as err:
                raise UnusableArchive(f"{root / rel}: committed partition unreadable: {err}"
                                   ) from err
    return manifest


def read_table(archive: str | os.PathLike[str] | None, table: str,
               columns: list[str] | None = None) -> pa.Table:
    """A committed table read whole into memory (small tables, tests), as the views show
    it (with the computed columns, :mod:`.computed`); empty if none."""
    files = committed_files(archive, table)
    if files:
        stored = pa.concat_tables([pq.read_table(f, schema=TABLES[table]) for f in files])
    else:
        stored = TABLES[table].empty_table()
    data = query_table(table, stored)
    return data.select(columns) if columns else data


def iter_batches(archive: str | os.PathLike[str] | None, table: str,
                 columns: list[str] | None = None, batch_size: int = 65_536
                 ) -> Iterator[pa.RecordBatch]:
    """Stream a committed table in record batches (bounded memory), in commit order.

    A column that a partition of an older schema version lacks (``games.rules`` before
    version 3) comes as nulls of its type."""
    for path in committed_files(archive, table):
        parquet = pq.ParquetFile(path)
        present = set(parquet.schema_arrow.names)
        if columns is None or present.issuperset(columns):
            yield from parquet.iter_batches(batch_size=batch_size, columns=columns)
            continue
        schema = TABLES[table]
        for batch in parquet.iter_batches(batch_size=batch_size,
                                          columns=[c for c in columns if c in present]):
            yield pa.RecordBatch.from_arrays(
                [batch.column(c) if c in present else
                 pa.nulls(batch.num_rows, schema.field(c).type) for c in columns],
                names=list(columns))


# ------------------------------------------------------------------ id sets
class IdSet:
    """A set of int64 ids with vectorised membership, ~8 bytes per id plus a 16 MB filter.

    A sorted array (``base``) plus a smaller sorted array of recent additions, merged
    linearly; a bitmap over the ids' top bits (at most 27) answers most "not there"
    questions without a binary search (a Python set of nine million ints would take
    ~600 MB).
    """

    MERGE_AT = 1_000_000
    #: log2 of the largest filter's bits (16 MB)
    FILTER_BITS = 27
    #: log2 of the smallest filter's bits (8 KB)
    MIN_FILTER_BITS = 16
    #: a filter grows (doubling, rebuilt from the ids) to keep this many bits an id
    BITS_PER_ID = 16

    def __init__(self, ids: np.ndarray | None = None, *, owned: bool = False,
                 filter_bits: int | None = None) -> None:
        """The set of ``ids``; ``owned`` lets it sort that array in place (no copy).

        ``filter_bits``: log2 of the filter's bits, fixed. Without it the filter is sized
        for the ids (:attr:`BITS_PER_ID` each, up to :attr:`FILTER_BITS`) and grows with
        them: the OS zeroes a filter's pages as they are first touched, and random ids
        touch every page, about 40 ms for 16 MB, which a run that adds 200,000 ids to a
        fresh archive's set would pay for a filter it does not need."""
        self._grows = filter_bits is None
        self.base = (_sorted_unique(ids, owned=owned) if ids is not None
                     else np.empty(0, np.int64))
        self.recent_sorted = np.empty(0, np.int64)
        self.filter_bits = self._fitted_bits(len(self.base)) if filter_bits is None \
            else filter_bits
        self.filter = np.zeros(1 << (self.filter_bits - 3), np.uint8)
        self._mark(self.base)

    def _fitted_bits(self, count: int) -> int:
        """log2 of the filter's bits for ``count`` ids."""
        want = max(count * self.BITS_PER_ID, 1).bit_length()
        return max(min(want, self.FILTER_BITS), min(self.MIN_FILTER_BITS, self.FILTER_BITS))

    def _grow_filter(self) -> None:
        """Rebuild the filter at the size the ids now need (when it grows)."""
        bits = self._fitted_bits(len(self))
        if not self._grows or bits <= self.filter_bits:
            return
        self.filter_bits = bits
        self.filter = np.zeros(1 << (bits - 3), np.uint8)
        self._mark(self.base)
        self._mark(self.recent_sorted)

    def __len__(self) -> int:
        return len(self.base) + len(self.recent_sorted)

    def _buckets(self, ids: np.ndarray) -> np.ndarray:
        return (ids.view(np.uint64) >> np.uint64(64 - self.filter_bits)).astype(np.int64)

    def _mark(self, ids: np.ndarray) -> None:
        if len(ids) * 10 > len(self.filter):  # many ids for the filter's size: scatter into a
            seen = np.zeros(len(self.filter) * 8, bool)  # byte per bit (by slices), pack
            for at in range(0, len(ids), len(self.filter)):
                seen[self._buckets(ids[at:at + len(self.filter)])] = True
            self.filter |= np.packbits(seen, bitorder="little")
            return
        buckets = self._buckets(ids)
        np.bitwise_or.at(self.filter, buckets >> 3,
                         np.left_shift(1, buckets & 7).astype(np.uint8))

    @staticmethod
    def _member(sorted_ids: np.ndarray, ids: np.ndarray) -> np.ndarray:
        if not len(sorted_ids) or not len(ids):
            return np.zeros(len(ids), bool)
        order = np.argsort(ids)  # sorted keys make numpy's binary searches cache-friendly
        pos = np.searchsorted(sorted_ids, ids[order])
        pos[pos == len(sorted_ids)] = 0
        found = np.empty(len(ids), bool)
        found[order] = sorted_ids[pos] == ids[order]
        return found

    def contains(self, ids: np.ndarray) -> np.ndarray:
        """Boolean mask: which of ``ids`` are in the set."""
        ids = np.asarray(ids, dtype=np.int64)
        buckets = self._buckets(ids)
        maybe = ((self.filter[buckets >> 3] >> (buckets & 7).astype(np.uint8)) & 1) == 1
        found = np.zeros(len(ids), bool)
        if maybe.any():
            candidates = ids[maybe]
            found[maybe] = (self._member(self.base, candidates)
                            | self._member(self.recent_sorted, candidates))
        return found

    def add(self, ids: np.ndarray) -> None:
        """Add ``ids`` (assumed new): a linear merge into the sorted arrays."""
        self._add_sorted(np.sort(np.asarray(ids, dtype=np.int64)))

    def _add_sorted(self, ids: np.ndarray) -> None:
        """:meth:`add` for ``ids`` sorted already."""
        self._mark(ids)
        self.recent_sorted = np.insert(self.recent_sorted,
                                       np.searchsorted(self.recent_sorted, ids), ids)
        if len(self.recent_sorted) >= self.MERGE_AT:
            self.base = np.insert(self.base, np.searchsorted(self.base, self.recent_sorted),
                                  self.recent_sorted)
            self.recent_sorted = np.empty(0, np.int64)
        self._grow_filter()

    def sorted_ids(self) -> np.ndarray:
        """Every id in the set, sorted (for handing the set to parallel writers)."""
        if not len(self.recent_sorted):
            return self.base
        return np.insert(self.base, np.searchsorted(self.base, self.recent_sorted),
                         self.recent_sorted)

    def new_mask(self, ids: np.ndarray) -> np.ndarray:
        """Mask of ``ids`` not in the set and first of their value within ``ids``; adds them."""
        ids = np.asarray(ids, dtype=np.int64)
        fresh = ~self.contains(ids)
        ordered = np.sort(ids)
        if not (ordered[1:] == ordered[:-1]).any():  # no value twice (the usual case): every
            self._add_sorted(ordered if fresh.all() else np.sort(ids[fresh]))
            return fresh  # id is its value's first, and the sorted ids are added as they are
        order = np.argsort(ids, kind="stable")
        ordered = ids[order]
        first = np.ones(len(ids), bool)
        first[1:] = ordered[1:] != ordered[:-1]
        first_mask = np.zeros(len(ids), bool)
        first_mask[order[first]] = True  # the first occurrence of each value
        keep = fresh & first_mask
        self.add(ids[keep])
        return keep


#: Sorting with timsort when the ids hold fewer than one descent per this many values:
#: a simulated run's ids ascend, so an archive of such runs sorts in about linear time,
#: while random ids (logged games) keep numpy's quicksort, which timsort would slow ~6x.
TIMSORT_RUN = 4096


def _sorted_unique(ids: np.ndarray, *, owned: bool = False) -> np.ndarray:
    """Sorted distinct values (np.unique is far slower on large int64 arrays in numpy 2);
    sorted in place when the caller ``owned`` the array, and without a copy when no id
    repeats (the archive stores each id once)."""
    ordered = np.asarray(ids, dtype=np.int64)
    if ordered is ids and not owned:
        ordered = ordered.copy()
    if len(ordered) < 2:
        return ordered
    descents = int(np.count_nonzero(ordered[1:] < ordered[:-1]))
    if descents:
        ordered.sort(kind="stable" if descents * TIMSORT_RUN < len(ordered) else "quicksort")
    repeats = ordered[1:] == ordered[:-1]
    if not repeats.any():
        return ordered
    keep = np.ones(len(ordered), bool)
    keep[1:] = ~repeats
    return ordered[keep]


def _load_ids(root: Path, manifest: Manifest, table: str, column: str) -> IdSet:
    """The ids of ``table``'s committed rows, read file by file into one array (peak
    memory about 8 bytes an id, plus one file's column)."""
    paths = [root / rel for rel in manifest.files(table)]
    counts: list[int] = []
    try:
        for path in paths:
            counts.append(pq.read_metadata(path).num_rows)
        ids = np.empty(sum(counts), dtype=np.int64)
        at = 0
        for path, count in zip(paths, counts, strict=True):
            values = pq.read_table(path, columns=[column]).column(column)
            if len(values) != count:
                raise OSError(f"{count} rows in its footer, {len(values)} read")
            for chunk in values.chunks:
                ids[at:at + len(chunk)] = chunk.to_numpy()
                at += len(chunk)
    except (OSError, pa.ArrowException) as err:
        raise UnusableArchive(f"{path}: committed partition unreadable: {err}") from err
    return IdSet(ids, owned=True) if len(ids) else IdSet()


# ------------------------------------------------------------------ writing
def _fsync_path(path: Path, directory: bool = False) -> None:
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on directories
    finally:
        os.close(fd)


class _BackgroundFlush:
    """fsyncs partition files on one background thread, so that a writer keeps computing
    while the disk catches up (the commit fsyncs every part again before the manifest, so
    durability never depends on this thread: a flush it already did makes that one cheap).

    At most one flush per file is queued at a time; a file deleted meanwhile is skipped.
    """

    def __init__(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.pid = os.getpid()  # a forked child has no thread of its parent's: a new one
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="skatlog-flush")
        self._queued: set[Path] = set()
        self._lock = threading.Lock()

    def submit(self, path: Path) -> None:
        with self._lock:
            if path in self._queued:
                return
            self._queued.add(path)
        self._pool.submit(self._flush, path)

    def _flush(self, path: Path) -> None:
        with self._lock:
            self._queued.discard(path)
        _fsync_path(path)


_FLUSHER: _BackgroundFlush | None = None
_FLUSHER_LOCK = threading.Lock()


def _background_flush(path: Path) -> None:
    """Queue an fsync of ``path`` on the process's background flush thread."""
    global _FLUSHER
    with _FLUSHER_LOCK:
        if _FLUSHER is None or _FLUSHER.pid != os.getpid():
            _FLUSHER = _BackgroundFlush()
    _FLUSHER.submit(path)


def _pause(stage: str) -> None:
    """The test hook described at :data:`PAUSE_ENV`: touch the marker file, then wait until
    it is deleted (or ``SKATLOG_ARCHIVE_PAUSE_SECONDS`` pass, default an hour)."""
    if os.environ.get(PAUSE_ENV) != stage:
        return
    limit = time.monotonic() + float(os.environ.get("SKATLOG_ARCHIVE_PAUSE_SECONDS", "3600"))
    marker = os.environ.get(PAUSE_FILE_ENV)
    if marker:
        Path(marker).write_text(str(os.getpid()))
    from .interrupt import stop_requested

    while time.monotonic() < limit and (not marker or Path(marker).exists()) \
            and not stop_requested():  # a Ctrl-C during the pause: the run winds down
        time.sleep(0.05)


def new_ingest_id() -> str:
    """A sortable unique run id: UTC time plus 8 random hex digits."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]


class PartitionFiles:
    """The partition files one writer produces: one open Parquet file per table, rolled
    over at :data:`ROWS_PER_FILE`, named ``<table>/part-<prefix>-<n>.parquet``.

    Used by :class:`ArchiveWriter` and by helpers (threads or processes) that write shards
    of one run while the writer holds the lock (:meth:`ArchiveWriter.adopt` then commits
    their parts).
    Nothing here is visible to readers until a manifest lists it.

    With ``flush_in_background`` (bulk simulation threads) every written batch and every
    finished file is fsynced on a background thread instead of by the caller, which would
    otherwise sit idle while the disk writes tens of MB at the end of each file; the
    committing :class:`ArchiveWriter` fsyncs every part again before its manifest.
    """

    def __init__(self, root: Path, prefix: str, ingest_id: str, fast: bool = False,
                 sequential_ids: bool = False, flush_in_background: bool = False) -> None:
        self.root = root
        self.prefix = prefix
        self.ingest_id = ingest_id
        self.fast = fast
        self.sequential_ids = sequential_ids
        self.flush_in_background = flush_in_background
        self.parts: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
        self._writers: dict[str, pq.ParquetWriter] = {}
        self._paths: dict[str, Path] = {}
        self._rows: dict[str, int] = {}
        self._numbers: dict[str, int] = {}

    @property
    def open_tables(self) -> list[str]:
        return list(self._writers)

    def write(self, table: str, data: pa.Table) -> None:
        """Append rows that already have ``table``'s schema."""
        writer = self._writers.get(table)
        if writer is None:
            folder = self.root / table
            folder.mkdir(exist_ok=True)
            number = self._numbers.get(table, 0) + 1
            self._numbers[table] = number
            path = folder / f"part-{self.prefix}-{number:04d}.parquet"
            writer = pq.ParquetWriter(path, TABLES[table],
                                      **parquet_options(TABLES[table], self.fast,
                                                        self.sequential_ids))
            self._writers[table] = writer
            self._paths[table] = path
            self._rows[table] = 0
        writer.write_table(storage_form(table, data), row_group_size=max(data.num_rows, 1))
        self._rows[table] += data.num_rows
        if self._rows[table] >= ROWS_PER_FILE[table]:
            self.finish(table)
        elif self.flush_in_background:
            _background_flush(self._paths[table])  # what is written so far

    def finish(self, table: str) -> None:
        """Close ``table``'s open file, fsync it and record it as a part."""
        self._writers.pop(table).close()
        path = self._paths.pop(table)
        if self.flush_in_background:
            _background_flush(path)
        else:
            _fsync_path(path)
        self.parts[table].append({"path": f"{table}/{path.name}",
                                  "rows": self._rows.pop(table),
                                  "ingest_id": self.ingest_id})

    def finish_all(self) -> dict[str, list[dict[str, Any]]]:
        """Close every open file; returns all parts written, per table."""
        for table in list(self._writers):
            self.finish(table)
        return self.parts

    def abandon(self) -> None:
        """Close and delete everything written (a failed or abandoned run)."""
        for table in list(self._writers):
            with contextlib.suppress(Exception):
                self._writers.pop(table).close()
        for path in self._paths.values():
            with contextlib.suppress(OSError):
                path.unlink()
        self._paths.clear()
        for parts in self.parts.values():
            for part in parts:
                with contextlib.suppress(OSError):
                    (self.root / part["path"]).unlink()


def fit_schema(table: str, data: pa.Table) -> pa.Table:
    """``data`` with ``table``'s exact schema (columns selected and cast), or SchemaError."""
    schema = TABLES[table]
    if data.schema == schema:
        return data
    try:
        return data.select(schema.names).cast(schema)
    except (KeyError, pa.ArrowInvalid, pa.ArrowTypeError, ValueError) as err:
        raise SchemaError(f"{table}: batch does not fit the schema: {err}") from err


@dataclass
class AppendCounts:
    """What one append did."""

    stored: int = 0
    duplicates: int = 0
    rejects_stored: int = 0
    reject_duplicates: int = 0


@dataclass(frozen=True)
class LockWait:
    """How a writer waits for another run's lock: at most ``timeout`` seconds (``None``: as
    long as it takes), calling ``on_wait(root, timeout)`` once when it has to wait."""

    timeout: float | None = None
    on_wait: Callable[[Path, float | None], None] | None = None


_NO_POLICY = LockWait()
_LOCK_WAIT: contextvars.ContextVar[LockWait | None] = contextvars.ContextVar(
    "skatlog_lock_wait", default=None)


@contextlib.contextmanager
def lock_wait(timeout: float | None = None,
              on_wait: Callable[[Path, float | None], None] | None = None) -> Iterator[None]:
    """Within the block, every :class:`ArchiveWriter` opened by this thread waits for a busy
    lock as given (the CLI's ``--wait SECONDS`` for ``ingest`` and ``simulate``, whose
    writers are opened deep inside the library). A writer's own ``lock_timeout`` and
    ``on_wait`` arguments are used where the block leaves them unset."""
    token = _LOCK_WAIT.set(LockWait(timeout, on_wait))
    try:
        yield
    finally:
        _LOCK_WAIT.reset(token)


class ArchiveWriter:
    """One run's exclusive, atomic write to an archive.

    ``with ArchiveWriter(dir) as w: w.append(...); w.commit(ingest_row)`` -- leaving the
    block without :meth:`commit` (an exception, a kill) leaves the archive untouched; the
    files written so far are orphans the next writer deletes. A long run may
    :meth:`checkpoint` as it goes: each one is such an atomic commit of what is written so
    far, and leaving the block then keeps the archive as of the last one.
    """

    def __init__(self, archive: str | os.PathLike[str] | None = None, *,
                 ingest_id: str | None = None, lock_timeout: float | None = None,
                 on_wait: Callable[[], None] | None = None, fast: bool = False,
                 sort_parts: bool = False) -> None:
        self.root = archive_path(archive)
        self.ingest_id = ingest_id or new_ingest_id()
        policy = _LOCK_WAIT.get() or _NO_POLICY
        self.lock_timeout = policy.timeout if policy.timeout is not None else lock_timeout
        self._announce = policy.on_wait
        self.on_wait = on_wait
        self.fast = fast  # fast Parquet settings (see parquet_options), for bulk simulation
        self._lock: FileLock | None = None
        self._files = PartitionFiles(self.root, self.ingest_id, self.ingest_id, fast)
        self._adopted: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
        self._paused_batch = False
        self._paused_commit = False
        #: Commits so far (checkpoints and the final one).
        self.commits = 0
        #: List the run's partitions in the manifest sorted by path, however the commits
        #: interleaved them (parallel simulation tasks: ``part-<id>-<task>-<n>``), so the
        #: row order never depends on when each task's files were committed.
        self.sort_parts = sort_parts
        self.manifest = Manifest()
        self.game_ids = IdSet()
        self.reject_ids = IdSet()
        self.committed = False

    # -- lifecycle
    def __enter__(self) -> ArchiveWriter:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        """Take the lock, drop orphans of killed runs, load the ids already stored."""
        if self.root.exists() and not self.root.is_dir():
            raise UnusableArchive(f"{self.root}: not a directory, so it cannot be the archive")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise UnusableArchive(f"{self.root}: cannot create the archive: "
                               f"{err.strerror or err}") from err
        lock = FileLock(str(self.root / LOCK))
        wait = -1 if self.lock_timeout is None else self.lock_timeout
        told = self._announce is not None or self.on_wait is not None
        first = wait if not told else (0.2 if wait < 0 else min(0.2, wait))
        try:
            try:
                lock.acquire(timeout=first)
            except Timeout:
                if not told or 0 <= wait <= first:
                    raise
                if self._announce is not None:
                    self._announce(self.root, self.lock_timeout)
                elif self.on_wait is not None:
                    self.on_wait()
                lock.acquire(timeout=wait if wait < 0 else wait - first)
        except Timeout:
            waited = "" if self.lock_timeout is None else \
                f" (waited {self.lock_timeout:g} s)"
            raise ArchiveError(f"{self.root}: another ingest or simulation holds the lock"
                               f"{waited}; try again when it has finished") from None
        except OSError as err:
            raise ArchiveError(f"{self.root}: cannot lock the archive: {err}") from err
        self._lock = lock
        try:
            self.manifest = read_manifest(self.root)
            self.clean_orphans()
            self.game_ids = _load_ids(self.root, self.manifest, "games", "game_id")
            self.reject_ids = _load_ids(self.root, self.manifest, "rejects", "reject_id")
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Abandon anything uncommitted and release the lock."""
        if not self.committed:
            self._files.abandon()
            # this run's files, including shards helpers wrote but never handed over,
            # except what its checkpoints committed
            kept = {rel for name in TABLES for rel in self.manifest.files(name)}
            for name in TABLES:
                for path in (self.root / name).glob(f"part-{self.ingest_id}-*.parquet*"):
                    if f"{name}/{path.name}" not in kept:
                        with contextlib.suppress(OSError):
                            path.unlink()
        else:
            self._files.finish_all()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def clean_orphans(self) -> list[Path]:
        """Delete partition files and temporary manifests no commit refers to."""
        committed = {rel for name in TABLES for rel in self.manifest.files(name)}
        removed = []
        for name in TABLES:
            folder = self.root / name
            if not folder.is_dir():
                continue
            for path in folder.glob("*.parquet*"):
                if f"{name}/{path.name}" not in committed:
                    path.unlink(missing_ok=True)
                    removed.append(path)
        for path in self.root.glob(MANIFEST + ".tmp*"):
            path.unlink(missing_ok=True)
            removed.append(path)
        return removed

    # -- appending
    def _check_open(self) -> None:
        if self._lock is None:
            raise ArchiveError("the archive writer is not open")
        if self.committed:
            raise ArchiveError("this run is already committed")

    def write(self, table: str, data: pa.Table) -> None:
        """Write rows to ``table``'s partition of this run, as they are (no dedupe)."""
        self._check_open()
        if data.num_rows == 0:
            return
        self._files.write(table, fit_schema(table, data))

    def adopt(self, parts: Mapping[str, list[dict[str, Any]]]) -> None:
        """Take over partition files a helper wrote for this run (``PartitionFiles`` with
        this writer's ingest id, under this archive): :meth:`commit` makes them visible
        with the rest, :meth:`close` without a commit deletes them. No dedupe happens here:
        the helper filtered its rows against the archive's ids."""
        self._check_open()
        for table, entries in parts.items():
            if table not in TABLES:
                raise ArchiveError(f"unknown table {table!r}")
            for part in entries:
                rel = str(part["path"])
                folder, _, name = rel.partition("/")
                if (folder != table or not name.startswith(f"part-{self.ingest_id}-")
                        or not (self.root / rel).is_file()):
                    raise ArchiveError(f"{self.root / rel}: not a partition of this run")
                self._adopted[table].append(
                    {"path": rel, "rows": int(part["rows"]), "ingest_id": self.ingest_id})

    def append_games(self, tables: Mapping[str, pa.Table]) -> AppendCounts:
        """Append ``games`` (+ their ``tricks`` and ``auction``) rows, skipping known ids.

        Rows of ``tricks``/``auction`` are kept exactly for the games that are stored.
        """
        self._check_open()
        counts = AppendCounts()
        games = tables.get("games")
        if games is None or games.num_rows == 0:
            return counts
        ids = games.column("game_id").to_numpy().astype(np.int64)
        keep = self.game_ids.new_mask(ids)
        counts.stored = int(keep.sum())
        counts.duplicates = len(ids) - counts.stored
        if counts.stored == 0:
            return counts
        if counts.duplicates:
            tables = keep_game_rows(tables, keep, ids)
        self.write("games", tables["games"])
        for child in ("tricks", "auction"):
            rows = tables.get(child)
            if rows is None or rows.num_rows == 0:
                continue
            self.write(child, rows)
        self.batch_done()
        return counts

    def append_rejects(self, rejects: pa.Table) -> AppendCounts:
        """Append ``rejects`` rows, skipping reject ids already stored."""
        self._check_open()
        counts = AppendCounts()
        if rejects.num_rows == 0:
            return counts
        ids = rejects.column("reject_id").to_numpy().astype(np.int64)
        keep = self.reject_ids.new_mask(ids)
        counts.rejects_stored = int(keep.sum())
        counts.reject_duplicates = len(ids) - counts.rejects_stored
        if counts.rejects_stored:
            self.write("rejects", rejects.filter(pa.array(keep))
                       if counts.reject_duplicates else rejects)
        return counts

    def batch_done(self) -> None:
        """Mark the end of a batch (where the ``batch`` test pause of PAUSE_ENV happens)."""
        if (not self._paused_batch and self._files.open_tables
                and os.environ.get(PAUSE_ENV) == "batch"):
            self._paused_batch = True
            self._files.finish_all()  # make the partial files real on disk
            _pause("batch")

    # -- commit
    def commit(self, ingest_row: pa.Table | None = None) -> Manifest:
        """Make this run's partitions (and its ``ingests`` row) visible, atomically; the
        run is over (no write after it)."""
        return self._commit(ingest_row, final=True)

    def checkpoint(self, ingest_row: pa.Table | None = None) -> Manifest:
        """Commit what the run has written so far, atomically, and keep the run open.

        A long run calls this as it goes (between chunks or batches), so that a Ctrl-C or
        a kill loses only the work since its last checkpoint; a rerun dedupes (or skips)
        what is stored. ``ingest_row``: the run's ``ingests`` row as of now. The run has
        one such row: each checkpoint (and the final :meth:`commit`) replaces the one the
        previous checkpoint stored, so after an interruption the row says what the last
        commit stored."""
        return self._commit(ingest_row, final=False)

    def _commit(self, ingest_row: pa.Table | None, final: bool) -> Manifest:
        self._check_open()
        if ingest_row is not None:
            self.write("ingests", ingest_row)
        written = self._files.finish_all()
        new_parts = {name: self._adopted[name] + written[name] for name in TABLES}
        for parts in self._adopted.values():
            for part in parts:  # cheap when the helper already synced it
                _fsync_path(self.root / part["path"])
        for name in TABLES:
            if new_parts[name]:
                _fsync_path(self.root / name, directory=True)
        tables: dict[str, list[dict[str, Any]]] = {}
        replaced: list[str] = []  # the run's previous ingests row, superseded
        for name in TABLES:
            before = self.manifest.tables.get(name, [])
            mine = [p for p in before if p.get("ingest_id") == self.ingest_id]
            others = [p for p in before if p.get("ingest_id") != self.ingest_id]
            if name == "ingests" and new_parts[name]:
                replaced += [p["path"] for p in mine]
                mine = []
            run = mine + new_parts[name]
            if self.sort_parts:
                run.sort(key=lambda part: str(part["path"]))
            tables[name] = others + run
        manifest = Manifest(self.manifest.generation + 1, tables)
        tmp = self.root / f"{MANIFEST}.tmp-{self.ingest_id}"
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(manifest.to_json())
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:  # a full disk: no half-written manifest stays behind
            tmp.unlink(missing_ok=True)
            raise
        if not self._paused_commit:
            self._paused_commit = os.environ.get(PAUSE_ENV) == "commit"
            _pause("commit")
        # Block SIGINT/SIGTERM across the rename so a Ctrl-C cannot split the commit.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            os.replace(tmp, self.root / MANIFEST)
            self.committed = final
            self.manifest = manifest
            self._adopted = {name: [] for name in TABLES}
            self._files.parts = {name: [] for name in TABLES}
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        _fsync_path(self.root, directory=True)
        for rel in replaced:
            with contextlib.suppress(OSError):
                (self.root / rel).unlink()
        self.commits += 1
        if not final and os.environ.get(PAUSE_ENV) == "checkpoint" \
                and self.commits == int(os.environ.get(PAUSE_AT_ENV, "1")):
            _pause("checkpoint")
        return manifest
