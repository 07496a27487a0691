"""Ingest ISS files into the archive through the fast path, committing as it goes.

Accepted games go in as the kernel's columnar tables; the records it hands to the slow path
are validated by the reference validator in the same worker process (:mod:`.parts`) and
stored as games or rejects exactly as :func:`skatlog.ingest.pipeline.ingest_paths` would.
Files that are not ISS (skatlog JSON Lines) go through the reference path entirely. Same
archive, same rows, same game ids.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from skatlog import __version__
from skatlog.engine.rules import ISKO_ISS, Rules

from ..archive import ArchiveWriter
from ..interrupt import RunInterrupted, commit_interval, graceful_stop, stop_requested
from ..model import LogGame
from ..pipeline import EXAMPLES, IngestSummary, file_digest, interrupted_message, tally_reject
from ..rows import GameRowsBuilder, RejectRowsBuilder, ingest_table
from ..schema import TABLES
from ..simulated import claims_simulation, reproduce
from ..sniff import find_logs
from ..sources import detect_format
from .pages import without_huge_pages
from .parts import TaskRejects, iter_part_batches
from .runner import warm_up
from .stream import CHUNK_BYTES, is_compressed_name, open_binary

FastIngestSummary = IngestSummary


def file_format(path: Path) -> str:
    """``iss``, ``jsonl`` or ``unknown``, from the first line that is not blank or a comment."""
    with open_binary(path) as stream:
        for raw in stream:
            line = raw.decode("utf-8", "replace")
            if line.strip() and not line.lstrip().startswith("#"):
                return detect_format(line)
    return "iss"


class _SlowSink:
    """Rows for the games the slow path validated, written in batches.

    Records that claim to be simulated hands (tags ``seed``, ``bots``, ``hand``) always
    come here: the kernel takes only upper-case tag names and hands any other record over
    (and a skatlog-rules record carries ``RU``, which it never decides either). They are
    re-simulated as in the reference path (:func:`~skatlog.ingest.simulated.reproduce`)."""

    def __init__(self, writer: ArchiveWriter, summary: IngestSummary, by_code: Counter[str]):
        self.writer = writer
        self.summary = summary
        self.by_code = by_code
        self.rows = GameRowsBuilder(writer.ingest_id)
        self.rejects = RejectRowsBuilder(writer.ingest_id)
        #: rejects rows that came ready (a worker task's), before ``rejects``' rows
        self.reject_tables: list[pa.Table] = []
        self.pending_rejects = 0
        self.claims: list[LogGame] = []

    def add(self, game: LogGame) -> None:
        if self.summary.not_a_record(game):  # prose between records: reported, not stored
            return
        self.summary.seen += 1
        if game.ok and claims_simulation(game):
            self.claims.append(game)
        elif game.ok:
            self.rows.add_log_game(game)
        else:
            tally_reject(game, self.summary, self.by_code, self.rejects)
        if self._pending() >= 5000:
            self.flush()

    def add_rejects(self, rejects: TaskRejects) -> None:
        """A worker task's rejects: its rows and its share of the summary."""
        summary = self.summary
        summary.seen += rejects.rejected
        summary.rejected += rejects.rejected
        summary.examples += rejects.examples[:max(0, EXAMPLES - len(summary.examples))]
        summary.not_records += rejects.not_records
        summary.not_record_examples += rejects.not_record_examples[
            :max(0, EXAMPLES - len(summary.not_record_examples))]
        self.by_code.update(rejects.by_code)
        if rejects.table is not None:
            if len(self.rejects):  # keep file order: the rows added before go first
                self.reject_tables.append(self.rejects.table())
                self.rejects.clear()
            self.reject_tables.append(rejects.table)
            self.pending_rejects += rejects.table.num_rows
        if self._pending() >= 5000:
            self.flush()

    def _pending(self) -> int:
        return len(self.rows) + len(self.rejects) + self.pending_rejects + len(self.claims)

    def flush(self) -> None:
        if self.claims:
            outcome = reproduce(self.claims, self.writer.ingest_id)
            self.claims.clear()
            for game in outcome.logged:
                self.rows.add_log_game(game)
            if outcome.tables is not None:
                counts = self.writer.append_games(outcome.tables)
                self.summary.stored += counts.stored
                self.summary.duplicates += counts.duplicates
        if len(self.rows):
            counts = self.writer.append_games(self.rows.tables())
            self.summary.stored += counts.stored
            self.summary.duplicates += counts.duplicates
            self.rows.clear()
        if len(self.rejects):
            self.reject_tables.append(self.rejects.table())
            self.rejects.clear()
        if self.reject_tables:
            rc = self.writer.append_rejects(pa.concat_tables(self.reject_tables))
            self.summary.rejects_stored += rc.rejects_stored
            self.summary.reject_duplicates += rc.reject_duplicates
            self.reject_tables.clear()
            self.pending_rejects = 0


def ingest_iss_fast(
    paths: Iterable[str | os.PathLike[str]],
    archive: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    on_progress: Callable[[int], None] | None = None,
    hash_files: bool = True,
    fast_parquet: bool = True,
    rules: Rules | None = None,
) -> IngestSummary:
    """Ingest ISS files (or directories; plain, .gz, .bz2, .zst) with the fast path.

    Returns the same :class:`~skatlog.ingest.pipeline.IngestSummary` as the reference
    ingest. ``on_progress(games seen so far)`` is called after every task. ``hash_files``
    records each file's SHA-256 in the ``ingests`` row (plain files are hashed as they are
    read; compressed ones, whose stored bytes are hashed, take one extra read).

    The worker processes validate (the kernel, and the reference validator for the records
    it hands over) and write the partition files of the valid games (:mod:`.parts`); this
    process dedupes their game ids in file order, stores the rejects, and commits what is done
    at a task boundary every few seconds and at the end, each commit atomic (a Ctrl-C lets
    the running tasks finish, commits them and raises
    :class:`~skatlog.ingest.interrupt.RunInterrupted`). ``rules``: the rule set of records
    that do not name one (None: each format's own, see
    :func:`skatlog.ingest.validate.parse_raw`).
    """
    from ..sim_claims import iter_ingest_games  # the simulator's lines matched in batches

    inputs = find_logs(paths)  # refuses a named file that is not a log, skips others
    expanded = inputs.files
    started = datetime.now(UTC)
    clock = time.perf_counter()
    by_code: Counter[str] = Counter()
    digests: list[tuple[str, str, int]] = []
    exits: list[threading.Thread] = []  # each file's workers, exiting while the run goes on
    with (without_huge_pages(), _joined(exits),
          ArchiveWriter(archive, fast=fast_parquet) as writer, graceful_stop()):
        summary = IngestSummary(writer.ingest_id, writer.root, files=len(expanded),
                                skipped=[(str(p), why) for p, why in inputs.skipped])
        sink = _SlowSink(writer, summary, by_code)
        commits = _Checkpoints(writer, summary, by_code, started, digests, sink.flush)
        for index, path in enumerate(expanded):
            if stop_requested():
                break
            if file_format(path) != "iss":
                for game in iter_ingest_games([path], rules=rules):
                    sink.add(game)
                    if stop_requested():
                        break
                sink.flush()
                digests.append(_digest(path, hash_files) if not stop_requested()
                               else (str(path), "", path.stat().st_size))
                commits.maybe()
                continue
            if not summary.load_seconds:  # the compiled code, loaded before any worker forks
                loading = time.perf_counter()
                warm_up(slow_path=True)
                summary.load_seconds = time.perf_counter() - loading
            if not hash_files or is_compressed_name(path):  # the stored bytes are hashed
                digests.append(_digest(path, hash_files))
                hasher = None
            else:
                hasher = hashlib.sha256()
            commits.current = (str(path), "", path.stat().st_size)
            _ingest_one(path, writer, sink, summary, workers=workers, chunk_bytes=chunk_bytes,
                        fast=fast_parquet, hasher=hasher, rules=rules or ISKO_ISS,
                        prefix=f"{writer.ingest_id}-f{index:04d}", on_progress=on_progress,
                        after_batch=commits.maybe, exits=exits)
            commits.current = None
            if hasher is not None:  # a file read in part (Ctrl-C) has no digest
                digests.append((str(path), hasher.hexdigest() if not stop_requested()
                                else "", path.stat().st_size))
        summary.seconds = time.perf_counter() - clock
        writer.commit(commits.row())
        if stop_requested():
            raise RunInterrupted(interrupted_message(summary))
    return summary


class _Checkpoints:
    """The run's commits as it goes: one at a task boundary every
    :func:`~skatlog.ingest.interrupt.commit_interval` seconds, with the run's ``ingests``
    row as of then (the files read so far; the one being read listed without a digest)."""

    def __init__(self, writer: ArchiveWriter, summary: IngestSummary, by_code: Counter[str],
                 started: datetime, digests: list[tuple[str, str, int]],
                 before: Callable[[], None] | None = None) -> None:
        self.writer = writer
        self.before = before  # writes what is held back (the rejects) before a commit
        self.summary = summary
        self.by_code = by_code
        self.started = started
        self.digests = digests
        self.current: tuple[str, str, int] | None = None
        self.interval = commit_interval()
        self.since = time.monotonic()

    def row(self) -> pa.Table:
        summary = self.summary
        summary.rejected_by_code = dict(self.by_code)
        files = self.digests + ([self.current] if self.current is not None else [])
        return ingest_table(
            ingest_id=self.writer.ingest_id, kind="ingest", started_at=self.started,
            finished_at=datetime.now(UTC), fmt="iss", files=files, seen=summary.seen,
            stored=summary.stored, duplicates=summary.duplicates, rejected=summary.rejected,
            rejects_stored=summary.rejects_stored, rejected_by_code=summary.rejected_by_code,
            skatlog_version=__version__)

    def maybe(self) -> None:
        """Commit if the interval has passed (never after a Ctrl-C: the run's end commits)."""
        if time.monotonic() - self.since >= self.interval and not stop_requested():
            if self.before is not None:
                self.before()
            self.writer.checkpoint(self.row())
            self.since = time.monotonic()


@contextlib.contextmanager
def _joined(threads: list[threading.Thread]) -> Iterator[None]:
    """Join ``threads`` (the worker pools exiting, :func:`.parts.iter_part_batches`'s
    ``exits``) when the block ends, however it ends: no worker outlives the run."""
    try:
        yield
    finally:
        for thread in threads:
            thread.join()


def _digest(path: Path, hash_files: bool) -> tuple[str, str, int]:
    return file_digest(path) if hash_files else (str(path), "", path.stat().st_size)


def _ingest_one(path: Path, writer: ArchiveWriter, sink: _SlowSink, summary: IngestSummary,
                *, workers: int | None, chunk_bytes: int, fast: bool, hasher: Any,
                rules: Rules, prefix: str, on_progress: Callable[[int], None] | None,
                after_batch: Callable[[], None] | None = None,
                exits: list[threading.Thread] | None = None) -> None:
    """One ISS file: workers write the accepted games' partitions, this process adopts them
    (or rewrites a task's files without the games an earlier task of the run stored)."""
    # workers drop ids the run already stored (forked: as of this file's start)
    for batch in iter_part_batches(path, writer.root, writer.ingest_id, writer.game_ids,
                                   workers=workers, chunk_bytes=chunk_bytes, fast=fast,
                                   prefix=prefix, hasher=hasher, rules=rules,
                                   stop=stop_requested, exits=exits):
        summary.seen += batch.accepted
        keep = writer.game_ids.new_mask(batch.ids)
        stored = int(keep.sum())
        summary.stored += stored
        summary.duplicates += batch.accepted - stored
        if stored == len(batch.ids):
            writer.adopt(batch.parts)
        else:
            _rewrite_without(writer, batch.parts, batch.ids[keep])
        for game in batch.games:  # the task's claims that did not match
            sink.add(game)  # written at 5,000 rows, before a commit and at the file's end
        if batch.rejects is not None:
            sink.add_rejects(batch.rejects)
        writer.batch_done()
        if on_progress is not None:
            on_progress(summary.seen)
        if after_batch is not None:
            after_batch()
    sink.flush()


def _rewrite_without(writer: ArchiveWriter, parts: dict[str, list[dict[str, Any]]],
                     kept: np.ndarray) -> None:
    """Copy the rows of the games ``kept`` from a task's partition files into the writer's
    own partitions, then delete the task's files (the rare path: a game repeated across
    tasks)."""
    value_set = pa.array(kept, pa.int64())
    for table, entries in parts.items():
        for part in entries:
            path = writer.root / part["path"]
            if len(kept):
                data = pq.read_table(path, schema=TABLES[table])
                writer.write(table, data.filter(
                    pc.is_in(data.column("game_id"), value_set=value_set)))
            path.unlink(missing_ok=True)
