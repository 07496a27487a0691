"""Scale-out on Dask distributed (the optional ``skatlog[cluster]`` extra).

The work is sharded -- simulation by hand-index range of one seed, ingest by file -- and
every Dask task writes its rows as Parquet partitions under a shared staging path (a local
directory or any fsspec/pyarrow URL such as ``s3://bucket/run``). When all tasks are done
the client commits the partitions into the archive in shard order through the archive's one
atomic, deduplicating writer (:class:`skatlog.ingest.archive.ArchiveWriter`), so a crash
before the commit leaves the archive untouched and the result never depends on how many
workers there were or in which order they finished.
"""

from __future__ import annotations

import os
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from skatlog import __version__
from skatlog.ingest.archive import (
    ArchiveWriter,
    archive_path,
    committed_game_ids,
    new_ingest_id,
)
from skatlog.ingest.pipeline import file_digest
from skatlog.ingest.rows import GameRowsBuilder, RejectRowsBuilder, ingest_table
from skatlog.ingest.simulated import claims_simulation, reproduce
from skatlog.ingest.sniff import find_logs
from skatlog.ingest.sources import FORMATS, SourceError
from skatlog.ingest.validate import iter_log_games

from .batches import CHUNK, chunk_ranges, iter_tables
from .options import SimulationOptions, SimulationSummary
from .stored import merged_ranges, split_stored, stored_outcomes

#: Hands per Dask task.
SHARD = 1_000_000
_CHILD_TABLES = ("games", "tricks", "auction", "rejects")


class ClusterError(RuntimeError):
    """The scheduler cannot be reached or a shard failed."""


def _client(scheduler: Any, timeout: float = 20.0) -> tuple[Any, bool]:
    """A ``distributed.Client`` for an address (owned, closed by us) or the one given."""
    try:
        from distributed import Client
    except ImportError as err:  # pragma: no cover - the extra is installed in CI
        raise ClusterError("Dask is not installed: pip install 'skatlog[cluster]'") from err
    if isinstance(scheduler, Client):
        return scheduler, False
    try:
        return Client(scheduler, timeout=f"{timeout}s"), True
    except (OSError, TimeoutError, ValueError) as err:  # ValueError: not an address
        raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from err


def _fs(url: str) -> tuple[pafs.FileSystem, str]:
    """The pyarrow filesystem and path of a local directory or URL: pyarrow's own
    filesystems (``file://``, ``s3://``, ``gs://``, ``hdfs://``), else any fsspec one."""
    if "://" not in url:
        return pafs.LocalFileSystem(), str(Path(url).resolve())
    try:
        return pafs.FileSystem.from_uri(url)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
        import fsspec

        fs, path = fsspec.core.url_to_fs(url)
        return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path.rstrip("/")


def _write_part(url: str, table: str, name: str, data: pa.Table) -> None:
    fs, root = _fs(url)
    folder = f"{root}/{table}"
    fs.create_dir(folder, recursive=True)
    pq.write_table(data, f"{folder}/{name}.parquet", filesystem=fs, compression="zstd",
                   row_group_size=max(1, data.num_rows))


def _read_part(url: str, table: str, name: str) -> pa.Table | None:
    """A staged partition, or None when the task wrote no such table."""
    fs, root = _fs(url)
    path = f"{root}/{table}/{name}.parquet"
    if fs.get_file_info(path).type == pafs.FileType.NotFound:
        return None
    return pq.read_table(path, filesystem=fs)


def _staged(staging: str, name: str) -> dict[str, pa.Table]:
    """A staged part's games with their tricks and auction rows."""
    out = {}
    for table in ("games", "tricks", "auction"):
        data = _read_part(staging, table, name)
        if data is not None:
            out[table] = data
    return out


def _remove(url: str) -> None:
    fs, root = _fs(url)
    if fs.get_file_info(root).type != pafs.FileType.NotFound:
        fs.delete_dir(root)


# ------------------------------------------------------------------ simulation
def simulate_shard(options: SimulationOptions, start: int, stop: int, staging: str,
                   ingest_id: str, chunk: int = CHUNK) -> tuple[int, int, int]:
    """Dask task: simulate hands ``[start, stop)`` and stage each chunk's tables as Parquet
    files named after the chunk's first hand. Returns (start, stop, hands)."""
    for batch, tables in iter_tables(options, start, stop, chunk, ingest_id):
        for table, data in tables.items():
            _write_part(staging, table, _part_name(batch.start), data)
    return start, stop, stop - start


def _part_name(start: int) -> str:
    return f"part-{start:015d}"


def simulate_on_cluster(
    scheduler: Any,
    archive: str | os.PathLike[str] | None,
    options: SimulationOptions,
    *,
    staging: str | None = None,
    shard: int = SHARD,
    chunk: int = CHUNK,
    on_progress: Callable[[int], None] | None = None,
    connect_timeout: float = 20.0,
) -> SimulationSummary:
    """Simulate the run on a Dask cluster and commit it into the archive atomically.

    ``scheduler`` is an address (``tcp://host:8786``) or a ``distributed.Client``;
    ``staging`` is the shared path the workers write to (default: a hidden directory inside
    the archive, which suits a shared file system). The archive gets exactly the rows a
    single-process :func:`~.to_archive.simulate_to_archive` run would give.
    """
    options = options.resolved()  # one id base for every shard, whatever the workers run
    started = datetime.now(UTC)
    clock = time.perf_counter()
    ingest_id = new_ingest_id()
    root = archive_path(archive)
    staging = staging or str(root / ".staging" / ingest_id)
    # chunks the archive already holds (a re-run) are not simulated again
    todo, skipped = split_stored(options, 0, options.hands, chunk, committed_game_ids(root))
    client, owned = _client(scheduler, connect_timeout)
    ranges = [r for b, e in todo for r in chunk_ranges(b, e, max(1, shard))]
    summary = SimulationSummary(options.hands, 0.0, ingest_id=ingest_id, skipped=skipped)
    summary.duplicates = summary.skipped_hands
    if on_progress is not None and skipped:
        on_progress(summary.skipped_hands)
    try:
        from distributed import as_completed

        futures = [client.submit(simulate_shard, options, b, e, staging, ingest_id, chunk,
                                 key=f"skatlog-sim-{ingest_id}-{b}", pure=False)
                   for b, e in ranges]
        for future in as_completed(futures):
            try:
                _, _, hands = future.result()
            except Exception as err:  # a worker's failure, re-raised with context
                raise ClusterError(f"a simulation shard failed: {err}") from err
            if on_progress is not None:
                on_progress(hands)
        with ArchiveWriter(root, ingest_id=ingest_id) as writer:
            summary.target = str(writer.root)
            parts = [cb for b, e in ranges for cb, _ in chunk_ranges(b, e, chunk)]
            for part in parts:
                tables = _staged(staging, _part_name(part))
                if "games" in tables:
                    counts = writer.append_games(tables)
                    summary.stored += counts.stored
                    summary.duplicates += counts.duplicates
                    games = tables["games"]
                    summary.played += games.num_rows - int(pc.sum(games.column("passed"))
                                                           .as_py() or 0)
                    summary.declarer_won += int(pc.sum(games.column("won")).as_py() or 0)
            if skipped:
                assert options.id_base is not None
                played, won = stored_outcomes(writer, options.id_base,
                                              merged_ranges(skipped))
                summary.played += played
                summary.declarer_won += won
            writer.commit(ingest_table(
                ingest_id=ingest_id, kind="simulate", started_at=started,
                finished_at=datetime.now(UTC), fmt=None, files=(), seen=options.hands,
                stored=summary.stored, duplicates=summary.duplicates, rejected=0,
                rejects_stored=0, rejected_by_code={}, skatlog_version=__version__))
    finally:
        _remove(staging)
        if owned:
            client.close()
    summary.seconds = time.perf_counter() - clock
    return summary


# ------------------------------------------------------------------ ingest
def ingest_shard(path: str, fmt: str, staging: str, name: str, ingest_id: str
                 ) -> dict[str, Any]:
    """Dask task: read and validate one log file and stage its rows (games, tricks,
    auction, rejects) as Parquet partitions. Returns the file's counters."""
    rows = GameRowsBuilder(ingest_id)
    rejects = RejectRowsBuilder(ingest_id)
    by_code: Counter[str] = Counter()
    claims = []  # records that claim to be simulated hands: re-simulated below
    seen = 0
    for game in iter_log_games([path], fmt):
        seen += 1
        if game.ok and claims_simulation(game):
            claims.append(game)
        elif game.ok:
            rows.add_log_game(game)
        else:
            by_code[game.errors[0].code if game.errors else "syntax"] += 1
            rejects.add(game)
    outcome = reproduce(claims, ingest_id)
    for game in outcome.logged:
        rows.add_log_game(game)
    # logged rows and re-simulated rows, whichever exist (a file of rejects only has none)
    parts = ([rows.tables()] if len(rows) else []) + (
        [outcome.tables] if outcome.tables is not None else [])
    if parts:
        for table in parts[0]:
            _write_part(staging, table, name, pa.concat_tables([p[table] for p in parts]))
    _write_part(staging, "rejects", name, rejects.table())
    return {"file": file_digest(Path(path)), "seen": seen, "rejected": sum(by_code.values()),
            "by_code": dict(by_code)}


def ingest_files_on_cluster(
    scheduler: Any,
    paths: Iterable[str | os.PathLike[str]],
    archive: str | os.PathLike[str] | None = None,
    fmt: str = "auto",
    *,
    staging: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    connect_timeout: float = 20.0,
) -> dict[str, Any]:
    """Ingest many log files on a Dask cluster, one task per file, committed atomically.

    Returns the run's counters (``seen``, ``stored``, ``duplicates``, ``rejected``,
    ``rejects_stored``, ``rejected_by_code``, ``ingest_id``, ``seconds``). Games stored
    before, or found in several files, are stored once (the writer deduplicates by id).
    """
    if fmt not in FORMATS:
        raise SourceError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    inputs = find_logs(paths, fmt)  # as ingest_paths: a named non-log file is refused whole
    files = [str(p) for p in inputs.files]
    started = datetime.now(UTC)
    clock = time.perf_counter()
    ingest_id = new_ingest_id()
    root = archive_path(archive)
    staging = staging or str(root / ".staging" / ingest_id)
    client, owned = _client(scheduler, connect_timeout)
    names = [f"part-{k:06d}-{uuid.uuid5(uuid.NAMESPACE_URL, f).hex[:8]}"
             for k, f in enumerate(files)]
    out: dict[str, Any] = {"ingest_id": ingest_id, "files": len(files), "seen": 0,
                           "stored": 0, "duplicates": 0, "rejected": 0, "rejects_stored": 0,
                           "skipped": inputs.skipped_lines()}
    by_code: Counter[str] = Counter()
    digests: list[tuple[str, str, int]] = []
    try:
        futures = [client.submit(ingest_shard, f, fmt, staging, n, ingest_id,
                                 key=f"skatlog-ingest-{ingest_id}-{n}", pure=False)
                   for f, n in zip(files, names, strict=True)]
        results = []
        for future in futures:
            try:
                results.append(future.result())
            except Exception as err:
                raise ClusterError(f"an ingest shard failed: {err}") from err
            if on_progress is not None:
                on_progress(results[-1]["seen"])
        for result in results:
            out["seen"] += result["seen"]
            out["rejected"] += result["rejected"]
            by_code.update(result["by_code"])
            digests.append(tuple(result["file"]))  # type: ignore[arg-type]
        with ArchiveWriter(root, ingest_id=ingest_id) as writer:
            for name in names:
                tables = _staged(staging, name)
                if "games" in tables:
                    counts = writer.append_games(tables)
                    out["stored"] += counts.stored
                    out["duplicates"] += counts.duplicates
                rejects = _read_part(staging, "rejects", name)
                if rejects is not None:
                    out["rejects_stored"] += writer.append_rejects(rejects).rejects_stored
            writer.commit(ingest_table(
                ingest_id=ingest_id, kind="ingest", started_at=started,
                finished_at=datetime.now(UTC), fmt=fmt, files=digests, seen=out["seen"],
                stored=out["stored"], duplicates=out["duplicates"], rejected=out["rejected"],
                rejects_stored=out["rejects_stored"], rejected_by_code=dict(by_code),
                skatlog_version=__version__))
    finally:
        _remove(staging)
        if owned:
            client.close()
    out["rejected_by_code"] = dict(by_code)
    out["seconds"] = time.perf_counter() - clock
    return out
