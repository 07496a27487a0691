"""Which of a run's hands the archive already holds, so that a rerun simulates and stores
nothing twice.

A run's ids are known before its hands are played (``base + index``,
:func:`skatlog.ingest.sim_ids.run_ids`), so chunks the archive holds are skipped whole
(:func:`split_stored`), their game and win counts read back from the archive
(:func:`stored_outcomes`); the hands of a chunk that is simulated are filtered against the
archive's ids and the task's own (:func:`fresh_ids`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from skatlog.ingest.sim_ids import run_ids

from .batches import chunk_ranges
from .options import SimulationOptions


@dataclass
class StoredIds:
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


def fresh_ids(ids: np.ndarray, stored: StoredIds, known: np.ndarray | None) -> np.ndarray:
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


def keep_games(tables: dict[str, pa.Table], ids: np.ndarray, keep: np.ndarray
               ) -> dict[str, pa.Table]:
    """The tables reduced to the games ``keep`` marks (with their tricks and calls, once
    each: :func:`~skatlog.ingest.archive.keep_game_rows`)."""
    from skatlog.ingest.archive import keep_game_rows

    return keep_game_rows(tables, keep, ids)


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
    before simulating (:func:`~skatlog.ingest.sim_ids.run_ids`), so the work is not done
    twice."""
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
