"""``skatlog analyze``: fill the archive's ``analysis`` table with best-play results.

Every played game the ``--where`` filter selects and the table does not hold yet is
replayed and solved with every card known (:func:`skatlog.ingest.analysis_rows.
analyse_record`): its best-play result after the discard and the first card that changed
it. Games already analysed are skipped, so a rerun does only what is missing.

Writing goes through the archive's writer (:class:`~skatlog.ingest.archive.ArchiveWriter`)
as ingest does: the lock is taken before the games are chosen, finished work is committed
every ``checkpoint_seconds`` (each commit atomic), and a crash or a kill leaves the archive
as of the last commit -- nothing half-written; a Ctrl-C commits what is finished. The work
runs in this process, in ``workers`` local processes, or on a Dask cluster
(``scheduler``), in batches of games; only this process writes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from skatlog.engine import GameRecord
from skatlog.ingest.analysis_rows import analyse_record, analysis_table
from skatlog.ingest.archive import ArchiveWriter, archive_path
from skatlog.ingest.export import iter_archive_games

from .connect import check_where, where_clause
from .views import open_archive

#: Games per task handed to a worker.
BATCH = 8
#: The rule set whose games the solver does not analyse: Foster's (his games are won by
#: his own objectives and values, which :func:`skatlog.engine.solver.target` does not ask).
UNSOLVED_RULES = "foster"


@dataclass
class AnalysisSummary:
    """What a run did: games chosen, analysed now, already there, without card play."""

    selected: int = 0
    analysed: int = 0
    already: int = 0
    seconds: float = 0.0
    workers: int = 1
    commits: int = 0
    #: Played games the condition chose under a rule set the solver does not play (Foster's
    #: games, F5: his own objectives and values), left out.
    unsupported: int = 0

    def line(self) -> str:
        rate = self.analysed / self.seconds if self.seconds > 0 else 0.0
        text = (f"analysed {self.analysed:,} games in {self.seconds:.1f} s ({rate:,.2f}/s, "
                f"{self.workers} workers); {self.already:,} were analysed before")
        if self.unsupported:
            text += (f"; {self.unsupported:,} games under foster were left out (the solver "
                     "plays the modern game's contracts)")
        return text


def analyse_batch(batch: list[tuple[int, GameRecord]], ingest_id: str | None = None
                  ) -> pa.Table:
    """The ``analysis`` rows of a batch of games (a worker's task)."""
    rows = [row for gid, record in batch if (row := analyse_record(gid, record)) is not None]
    return analysis_table(rows, ingest_id)


def _games(root: Path, wanted: set[int]) -> Iterator[tuple[int, GameRecord]]:
    """``(game_id, record)`` of the wanted games, as the archive stores them."""
    last: list[int] = []

    def pick(row: dict) -> bool:
        if row["game_id"] in wanted:
            last.append(row["game_id"])
            return True
        return False

    for game in iter_archive_games(root, where=pick, game_ids=wanted):
        if game.record is not None:
            yield last[-1], game.record


def _batches(games: Iterator[tuple[int, GameRecord]], size: int
             ) -> Iterator[list[tuple[int, GameRecord]]]:
    batch: list[tuple[int, GameRecord]] = []
    for game in games:
        batch.append(game)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def analyse_archive(archive: str | os.PathLike[str] | None = None, *,
                    where: str | None = None, workers: int = 1, scheduler: Any = None,
                    checkpoint_seconds: float = 10.0, batch: int = BATCH,
                    on_progress: Callable[[int], None] | None = None,
                    select_only: bool = False) -> AnalysisSummary:
    """Analyse the chosen games not yet in ``analysis`` (see the module docstring)."""
    root = archive_path(archive)
    summary = AnalysisSummary(workers=workers)
    start = time.perf_counter()
    with ArchiveWriter(root) as writer:
        con = open_archive(root)
        check_where(con, where)
        condition = f"outcome = 'played' AND contract IS NOT NULL AND {where_clause(where)}"
        chosen = f"{condition} AND rules IS DISTINCT FROM '{UNSOLVED_RULES}'"
        summary.unsupported = con.execute(
            f"SELECT count(*) FROM games WHERE {condition} AND rules = '{UNSOLVED_RULES}'"
        ).fetchone()[0]  # type: ignore[index]
        ids = [r[0] for r in con.execute(
            f"SELECT game_id FROM games WHERE {chosen} AND game_id NOT IN "
            f"(SELECT game_id FROM analysis)").fetchall()]
        summary.already = con.execute(
            f"SELECT count(*) FROM games WHERE {chosen} AND game_id IN "
            f"(SELECT game_id FROM analysis)").fetchone()[0]  # type: ignore[index]
        con.close()
        summary.selected = len(ids)
        if not ids or select_only:
            summary.seconds = time.perf_counter() - start
            return summary
        tasks = _batches(_games(root, set(ids)), batch)
        last = time.monotonic()

        def store(table: pa.Table) -> None:
            nonlocal last
            summary.analysed += table.num_rows
            writer.write("analysis", table)
            if on_progress is not None:
                on_progress(table.num_rows)
            if time.monotonic() - last >= checkpoint_seconds:
                writer.checkpoint()
                last = time.monotonic()

        try:
            for table in _run(tasks, workers, scheduler, writer.ingest_id):
                store(table)
        except KeyboardInterrupt:
            writer.commit()  # what is finished is kept; a rerun does the rest
            summary.commits = writer.commits
            raise
        writer.commit()
        summary.commits = writer.commits
    summary.seconds = time.perf_counter() - start
    return summary


def _run(tasks: Iterator[list[tuple[int, GameRecord]]], workers: int, scheduler: Any,
         ingest_id: str) -> Iterator[pa.Table]:
    """The tasks' tables as they finish: here, in local processes, or on Dask."""
    if scheduler is not None:
        yield from _on_cluster(tasks, scheduler, ingest_id)
        return
    if workers <= 1:
        for task in tasks:
            yield analyse_batch(task, ingest_id)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        running: set[Future[pa.Table]] = set()
        for task in tasks:
            running.add(pool.submit(analyse_batch, task, ingest_id))
            if len(running) >= 2 * workers:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        for future in running:
            yield future.result()


def _on_cluster(tasks: Iterator[list[tuple[int, GameRecord]]], scheduler: Any,
                ingest_id: str) -> Iterator[pa.Table]:
    """Run the tasks on a Dask cluster (``tcp://host:8786`` or a ``distributed.Client``),
    a window of them at a time, yielding each table as it arrives."""
    from distributed import Client, as_completed

    owned = not isinstance(scheduler, Client)
    client = Client(scheduler, timeout="20s") if owned else scheduler
    try:
        window = max(2, 2 * sum(client.nthreads().values()))
        pending = as_completed()
        for task in tasks:
            pending.add(client.submit(analyse_batch, task, ingest_id, pure=False))
            if pending.count() >= window:
                yield next(pending).result()
        for future in pending:
            yield future.result()
    finally:
        if owned:
            client.close()


__all__ = ["AnalysisSummary", "analyse_archive", "analyse_batch"]
