"""A run's hands in chunks: simulated (the next one on a prefetch thread while the caller
handles the current one) and, when asked, turned into the archive's tables."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pyarrow as pa

from skatlog.engine.batch import BatchGames, simulate_batch
from skatlog.ingest import sim_tables

from .options import SimulationError, SimulationOptions, current_workers

#: Hands simulated and written per chunk: big enough for fast columnar writes, small
#: enough that its arrays are reused from the allocator rather than fresh zeroed pages
#: (measured: 50,000 takes ~5% less CPU per hand than 100,000 or 200,000).
CHUNK = 50_000
#: Hands per chunk when a bot of the line-up is played by the engine's players (``pimc``,
#: about a second a hand): progress, commits and a stop come every few seconds, not every
#: 50,000 hands; 24 hands make a slice of 12 for each of two threads (the search runs
#: without the GIL, the players' Python between not).
REFERENCE_CHUNK = 24


def batch_tables(batch: BatchGames, options: SimulationOptions,
                 ingest_id: str | None = None) -> dict[str, pa.Table]:
    """The ``games``, ``tricks`` and ``auction`` tables of a batch of the run ``options``
    (:func:`skatlog.ingest.sim_tables.batch_tables`); SimulationError when the batch was
    simulated with another seed or other bots."""
    if (batch.seed, batch.bots, batch.rules) != (options.seed, options.bots, options.rules):
        raise SimulationError("the batch was not simulated with these options")
    base = options.resolved().id_base
    assert base is not None
    return sim_tables.batch_tables(batch, base, options.sessions, ingest_id)


def chunk_ranges(start: int, stop: int, chunk: int = CHUNK) -> list[tuple[int, int]]:
    """``[start, stop)`` cut into consecutive ``(begin, end)`` ranges of at most ``chunk``."""
    return [(b, min(b + chunk, stop)) for b in range(start, stop, chunk)]


def iter_batches(options: SimulationOptions, start: int = 0, stop: int | None = None,
                 chunk: int = CHUNK) -> Iterator[BatchGames]:
    """The run's hands ``[start, stop)`` as batches, the next one simulated while the caller
    handles the current one (numba releases the GIL)."""
    for batch, _ in _prefetched(options, start, stop, chunk, lambda b: None):
        yield batch


def iter_tables(options: SimulationOptions, start: int = 0, stop: int | None = None,
                chunk: int = CHUNK, ingest_id: str | None = None, prefetch: bool = True
                ) -> Generator[tuple[BatchGames, dict[str, pa.Table]], None, None]:
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
    if not options.compiled:
        chunk = min(chunk, REFERENCE_CHUNK)
    ranges = chunk_ranges(start, stop, chunk)
    threads = current_workers()  # numba's setting is per thread: read it here, pass it on

    def produce(begin: int, end: int) -> tuple[BatchGames, Any]:
        batch = simulate_batch(options.seed, begin, end - begin, options.bots, threads=threads,
                               rules=options.rules)
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
