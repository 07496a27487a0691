"""Export the archive's games back to log text: ISS lines or skatlog JSON Lines.

Each ``games`` row is turned back into the :class:`~.model.LogGame` it was stored from
(:func:`~.row_game.log_game_from_row` replays its moves through the engine) and written with
the format's writer (:func:`~.iss.write_iss`, :func:`~.jsonl.write_jsonl`). With the default
``result="recorded"`` a game keeps exactly the result its log claimed (none when it claimed
none), so export -> ingest gives the same game ids and the same rows. That holds for
simulated hands too: they are written with the tags that name them (seed, bots, hand index,
sessions), and ingest re-simulates them and stores the simulator's rows (:mod:`.simulated`).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import multiprocessing as mp
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

import pyarrow as pa

from .archive import ArchiveError, archive_path, check_committed, iter_batches
from .computed import DEAL_INPUTS, NotADeal, with_deals
from .model import LogGame
from .row_game import EXPORT_COLUMNS, log_game_from_row
from .simulated import export_identity

EXPORT_FORMATS = ("iss", "jsonl")
#: What export reads of ``games``: its columns and what a deal stored as null is rebuilt from.
_READ_COLUMNS = list(dict.fromkeys([*EXPORT_COLUMNS, *DEAL_INPUTS]))
RESULT_CHOICES = ("recorded", "computed", "auto", "none")


class ExportError(ValueError):
    """A bad export request (unknown format, unwritable output)."""


class StoredGameError(ArchiveError):
    """A stored game whose rows do not replay (an illegal stored move, a move list its rows
    cannot make): the archive reads, but its content is damaged."""


def iter_archive_games(archive: str | os.PathLike[str] | None = None,
                       where: Callable[[dict], bool] | None = None, *,
                       game_ids: Iterable[int] | None = None) -> Iterator[LogGame]:
    """The archive's games as :class:`LogGame` values, in commit order (streamed);
    ``where(row)`` filters on the row's :data:`~.row_game.EXPORT_COLUMNS`. ``game_ids``
    keeps only those games, before any row is built (a few games of a large archive are
    found without rebuilding every simulated hand's move list)."""
    import pyarrow.compute as pc

    root = archive_path(archive)
    wanted = None if game_ids is None else pa.array(
        [i for i in game_ids if -(1 << 63) <= i < 1 << 63], pa.int64())  # ids are int64
    with ChildRows(root) as children:
        for stored in iter_batches(root, "games", columns=_READ_COLUMNS, batch_size=8192):
            if wanted is not None:
                stored = stored.filter(pc.is_in(stored.column("game_id"), value_set=wanted))
                if not stored.num_rows:
                    continue
            batch = _export_columns(stored)
            for row in _rows(batch, children.of(batch)):
                if where is None or where(row):
                    yield _log_game(row)


class ChildRows:
    """The trick and call lists of games stored without ``moves`` (see :mod:`.rebuild`),
    fetched per batch of ``games`` rows from the committed ``tricks`` and ``auction``
    files. A batch's ids are looked up by their range, which Parquet statistics narrow to
    a few row groups for a simulated run (consecutive ids)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._con: Any = None
        self._sql: tuple[str, str] | None = None

    def __enter__(self) -> ChildRows:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._con is not None:
            self._con.close()

    def of(self, batch: pa.RecordBatch) -> dict[int, tuple[Any, Any]]:
        """``game_id -> (tricks, calls)`` for the batch's rows that have no ``moves``."""
        moves = batch.column(batch.schema.get_field_index("moves"))
        if moves.null_count == 0:
            return {}
        import pyarrow.compute as pc

        ids = pc.filter(batch.column(batch.schema.get_field_index("game_id")),
                        pc.is_null(moves))
        if self._con is None:
            import duckdb

            from .computed import table_sql
            from .rebuild import child_rows_sql
            from .verify import archive_files

            files = archive_files(self.root)

            def source(table: str) -> str | None:
                return table_sql(table, files[table]) if files[table] else None

            self._con = duckdb.connect()
            self._sql = child_rows_sql(source("tricks"), source("auction"),
                                       " WHERE game_id BETWEEN $lo AND $hi")
        assert self._sql is not None
        lo, hi = pc.min(ids).as_py(), pc.max(ids).as_py()
        wanted = set(ids.to_pylist())
        found: dict[int, tuple[Any, Any]] = {gid: (None, None) for gid in wanted}
        for slot, sql in enumerate(self._sql):
            for gid, rows in self._con.execute(sql, {"lo": lo, "hi": hi}).fetchall():
                if gid in wanted:
                    pair = found[gid]
                    found[gid] = (rows, pair[1]) if slot == 0 else (pair[0], rows)
        return found


def _rows(batch: pa.RecordBatch, children: dict[int, tuple[Any, Any]]) -> list[dict]:
    """The batch's rows as dicts, with ``tricks``/``calls`` where they rebuild the moves."""
    rows = batch.to_pylist()
    if children:
        for row in rows:
            pair = children.get(row["game_id"])
            if pair is not None:
                row["tricks"], row["calls"] = pair
    return rows


#: File name endings (before any compression suffix) and the format they hold.
FORMAT_SUFFIXES = {".sgf": "iss", ".iss": "iss", ".jsonl": "jsonl", ".ndjson": "jsonl",
                   ".skatlog": "jsonl"}
_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".zst")


def format_of_name(path: str | os.PathLike[str]) -> str | None:
    """``iss`` or ``jsonl`` from a file name (``games.sgf``, ``games.jsonl.gz``), or None
    when the name does not say."""
    name = Path(path).name.lower()
    for suffix in _COMPRESSION_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return FORMAT_SUFFIXES.get(Path(name).suffix)


def export_format(out: str | os.PathLike[str], fmt: str | None) -> str:
    """The format to write ``out`` in: ``fmt`` when given, else what the name says; an
    :class:`ExportError` when neither says or the two disagree (ISS text in a ``.jsonl``
    file would be read back as broken JSON)."""
    named = format_of_name(out)
    if fmt is not None:
        _writer(fmt)
        if named is not None and named != fmt:
            want = " or *".join(s for s, f in FORMAT_SUFFIXES.items() if f == fmt)
            raise ExportError(f"{out}: the name says {named}, but --format is {fmt}; name "
                              f"the file *{want}, or leave out --format")
        return fmt
    if named is None:
        raise ExportError(f"{out}: the name does not say which format to write (.sgf or .iss "
                          "for ISS, .jsonl for skatlog JSON Lines); pass --format iss or jsonl")
    return named


def _writer(fmt: str) -> Callable[..., str]:
    if fmt == "iss":
        from .iss import write_iss
        return write_iss
    if fmt == "jsonl":
        from .jsonl import write_jsonl
        return write_jsonl
    raise ExportError(f"unknown export format {fmt!r}: choose iss or jsonl")


def _open_out(path: Path, name: str) -> IO[str]:
    """Open ``path`` for text, compressed as the final file ``name`` says."""
    name = name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "wt", encoding="utf-8", newline="\n")
    if name.endswith(".bz2"):
        return bz2.open(path, "wt", encoding="utf-8", newline="\n")
    if name.endswith(".zst"):
        import zstandard

        raw = open(path, "wb")  # noqa: SIM115 - closed by the stream writer (closefd)
        stream = zstandard.ZstdCompressor().stream_writer(raw, closefd=True)
        return io.TextIOWrapper(stream, encoding="utf-8", newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")


#: Archives with fewer games are exported in-process (a worker pool costs ~0.1 s to start).
PARALLEL_MIN_GAMES = 20_000
BATCH_ROWS = 4096


#: A worker process's lookup of trick and call rows (see :func:`_start_worker`).
_WORKER_CHILDREN: ChildRows | None = None


def _start_worker(root: Path) -> None:
    """Pool initializer: each export worker looks up the child rows of its own batches, so
    rebuilding move lists runs in parallel too."""
    global _WORKER_CHILDREN
    _WORKER_CHILDREN = ChildRows(root)


def _format_batch(job: tuple[pa.RecordBatch, str, str], children: ChildRows | None = None
                  ) -> tuple[str, int]:
    """The text of one batch of ``games`` rows (in a worker process, or with the caller's
    ``children`` lookup)."""
    batch, fmt, result = job
    lookup = children if children is not None else _WORKER_CHILDREN
    write = _writer(fmt)
    rows = _rows(batch, lookup.of(batch) if lookup is not None else {})
    lines = []
    for row in rows:
        game = _log_game(row)
        try:
            lines.append(write(game, result=result) + "\n")
        except ValueError as err:  # a game the format cannot carry (ISS: Kontra, Foster, ...)
            raise ExportError(f"game {row['game_id']}: {err}") from None
    return "".join(lines), len(rows)


def _export_columns(stored: pa.RecordBatch) -> pa.RecordBatch:
    """A stored batch of ``games`` as export reads it: :data:`~.row_game.EXPORT_COLUMNS`,
    with every deal (a deal stored as null rebuilt from the masks)."""
    try:
        return with_deals(stored).select(list(EXPORT_COLUMNS))
    except NotADeal as err:  # a damaged archive: the content, like a stored illegal move
        raise StoredGameError(str(err)) from None


def _log_game(row: dict) -> LogGame:
    """:func:`log_game_from_row`, with a row that does not replay (a damaged archive: an
    illegal stored move, a move list its rows cannot make) named by its game id. A
    simulated hand gets the record id and tags ``skatlog simulate --out`` writes (seed,
    bots, hand index, sessions), so that ingest can re-simulate it and store it again
    under its simulator id (:mod:`.simulated`)."""
    try:
        game = log_game_from_row(row)
    except ValueError as err:  # RuleError, MovesError, RebuildError
        raise StoredGameError(f"game {row['game_id']}: {err}") from None
    identity = export_identity(row)
    if identity is None:
        return game
    record_id, tags = identity
    return replace(game, meta=replace(game.meta, record_id=record_id),
                   extra={**game.extra, "tags": tags})


def _in_order(pool: Any, jobs: Iterable[Any], window: int) -> Iterator[tuple[str, int]]:
    """``pool.imap`` with at most ``window`` jobs in flight (imap would read every batch)."""
    pending: deque[Any] = deque()
    for job in jobs:
        pending.append(pool.apply_async(_format_batch, (job,)))
        if len(pending) >= window:
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()


def export_archive(
    archive: str | os.PathLike[str] | None,
    out: str | os.PathLike[str],
    fmt: str,
    *,
    result: str = "recorded",
    workers: int | None = None,
) -> int:
    """Write every game of the archive to ``out`` (``.gz``/``.bz2``/``.zst`` compress), in
    commit order; returns the number of games written. The file appears complete or not at
    all. Large archives are formatted by ``workers`` processes (default: one per CPU)."""
    _writer(fmt)
    if result not in RESULT_CHOICES:
        raise ExportError(f"unknown result choice {result!r}: one of {', '.join(RESULT_CHOICES)}")
    root = archive_path(archive)
    out = Path(out)
    if out.is_dir():
        raise ExportError(f"{out}: is a directory")
    workers = workers or os.cpu_count() or 1
    if check_committed(root).rows("games") < PARALLEL_MIN_GAMES:
        workers = 1
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    count = 0
    try:
        with contextlib.ExitStack() as stack:
            jobs = ((_export_columns(batch), fmt, result)
                    for batch in iter_batches(root, "games", columns=_READ_COLUMNS,
                                              batch_size=BATCH_ROWS))
            handle = stack.enter_context(_open_out(tmp, out.name))
            if workers > 1:
                pool = stack.enter_context(mp.get_context("fork").Pool(
                    workers, initializer=_start_worker, initargs=(root,)))
                chunks: Iterable[tuple[str, int]] = _in_order(pool, jobs, 2 * workers)
            else:
                children = stack.enter_context(ChildRows(root))
                chunks = (_format_batch(job, children) for job in jobs)
            for text, n in chunks:
                handle.write(text)
                count += n
        os.replace(tmp, out)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise ExportError(f"{out}: cannot write: {err.strerror or err}") from err
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return count
