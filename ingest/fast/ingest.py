"""Ingest ISS files into the archive through the fast path, as one atomic run.

Accepted games go in as the kernel's columnar tables; the records it hands to the slow path
are validated by the reference validator and stored as games or rejects exactly as
:func:`skatlog.ingest.pipeline.ingest_paths` would. Files that are not ISS (skatlog JSON
Lines) go through the reference path entirely. Same archive, same rows, same game ids.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

from skatlog import __version__

from ..archive import ArchiveWriter
from ..model import LogGame
from ..pipeline import IngestSummary, file_digest
from ..schema import GameRowsBuilder, RejectRowsBuilder, ingest_table
from ..sources import detect_format, expand_paths
from .runner import fast_validate_iss
from .stream import CHUNK_BYTES, open_binary

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
    """Rows for the games the slow path validated, written in batches."""

    def __init__(self, writer: ArchiveWriter, summary: IngestSummary, by_code: Counter[str]):
        self.writer = writer
        self.summary = summary
        self.by_code = by_code
        self.rows = GameRowsBuilder(writer.ingest_id)
        self.rejects = RejectRowsBuilder(writer.ingest_id)

    def add(self, game: LogGame) -> None:
        self.summary.seen += 1
        if game.ok:
            self.rows.add_log_game(game)
        else:
            self.summary.rejected += 1
            self.by_code[game.errors[0].code if game.errors else "syntax"] += 1
            self.rejects.add(game)
        if len(self.rows) + len(self.rejects) >= 5000:
            self.flush()

    def flush(self) -> None:
        if len(self.rows):
            counts = self.writer.append_games(self.rows.tables())
            self.summary.stored += counts.stored
            self.summary.duplicates += counts.duplicates
            self.rows.clear()
        if len(self.rejects):
            rc = self.writer.append_rejects(self.rejects.table())
            self.summary.rejects_stored += rc.rejects_stored
            self.summary.reject_duplicates += rc.reject_duplicates
            self.rejects.clear()


def ingest_iss_fast(
    paths: Iterable[str | os.PathLike[str]],
    archive: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    on_progress: Callable[[int], None] | None = None,
    hash_files: bool = True,
    fast_parquet: bool = True,
) -> IngestSummary:
    """Ingest ISS files (or directories; plain, .gz, .bz2, .zst) with the fast path.

    Returns the same :class:`~skatlog.ingest.pipeline.IngestSummary` as the reference
    ingest. ``on_progress(games seen so far)`` is called after every chunk. ``hash_files``
    records each file's SHA-256 in the ``ingests`` row (one extra read of each file).
    """
    from ..validate import iter_log_games

    expanded = expand_paths([Path(p) for p in paths])
    digests = [file_digest(p) if hash_files else (str(p), "", p.stat().st_size)
               for p in expanded]
    started = datetime.now(UTC)
    clock = time.perf_counter()
    by_code: Counter[str] = Counter()
    with ArchiveWriter(archive, fast=fast_parquet) as writer:
        summary = IngestSummary(writer.ingest_id, writer.root, files=len(expanded))
        sink = _SlowSink(writer, summary, by_code)
        for path in expanded:
            if file_format(path) != "iss":
                for game in iter_log_games([path]):
                    sink.add(game)
                sink.flush()
                continue
            for batch in fast_validate_iss(path, workers=workers, chunk_bytes=chunk_bytes,
                                           ingest_id=writer.ingest_id):
                assert batch.tables is not None
                summary.seen += batch.accepted
                counts = writer.append_games(batch.tables)
                summary.stored += counts.stored
                summary.duplicates += counts.duplicates
                for game in batch.slow_games():
                    sink.add(game)
                sink.flush()
                writer.batch_done()
                if on_progress is not None:
                    on_progress(summary.seen)
        summary.rejected_by_code = dict(by_code)
        summary.seconds = time.perf_counter() - clock
        writer.commit(ingest_table(
            ingest_id=writer.ingest_id, kind="ingest", started_at=started,
            finished_at=datetime.now(UTC), fmt="iss", files=digests, seen=summary.seen,
            stored=summary.stored, duplicates=summary.duplicates, rejected=summary.rejected,
            rejects_stored=summary.rejects_stored, rejected_by_code=summary.rejected_by_code,
            skatlog_version=__version__,
        ))
    return summary
