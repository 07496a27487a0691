"""Re-check a stored archive: replay every game through the engine's validated path.

:func:`verify_archive` reads ``games`` in batches (deal, moves and the stored result
columns), replays each game with ``GameState.apply`` -- under the recorded-log rules (R17,
R7) and admitted off-ladder bids (R18) when the row says it was stored that way -- and
compares the engine's result with every stored result column. It works on logged and
simulated games alike, so ``skatlog verify`` proves that a simulated run (or an ingest)
holds nothing the rules engine would not produce.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

#: Stored result columns compared with the engine's replay.
CHECKED = ("value", "won", "overbid", "bid", "declarer", "matadors", "declarer_points",
           "defender_points", "declarer_tricks", "defender_tricks", "game_value",
           "multiplier", "schneider", "schwarz")
#: Columns read per game.
COLUMNS = ("game_id", "deal", "moves", "recorded_rules", "extra_bids", *CHECKED)

Progress = Callable[[int], None]


@dataclass
class VerifyReport:
    """What :func:`verify_archive` found: games checked, how many problems, and the
    problem lines kept (one per differing column or failed replay)."""

    checked: int = 0
    problem_count: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.problem_count == 0


def verify_rows(columns: dict[str, list[Any]]) -> tuple[int, list[str]]:
    """Replay the games of one batch (column name -> values) and compare their results.

    Returns (games checked, problems); a problem reads ``<game_id>: <what differs>``.
    """
    from skatlog.engine import Deal, GameState
    from skatlog.ingest.schema import decode_moves

    problems: list[str] = []
    count = len(columns["game_id"])
    recorded = columns.get("recorded_rules") or [False] * count
    extra = columns.get("extra_bids") or [None] * count
    for row in range(count):
        game_id = columns["game_id"][row]
        try:
            state = GameState(Deal.from_cards(columns["deal"][row]),
                              recorded=bool(recorded[row]),
                              extra_bids=tuple(extra[row] or ()))
            for move in decode_moves(columns["moves"][row]):
                state.apply(move)
            result = state.result()
        except ValueError as err:
            problems.append(f"{game_id}: {type(err).__name__}: {err}")
            continue
        score = result.score
        got = {"value": result.value, "bid": result.bid, "declarer": result.declarer,
               "won": score.won if score else None,
               "overbid": score.overbid if score else None,
               "game_value": score.game_value if score else None,
               "multiplier": score.multiplier if score else None,
               "schneider": score.schneider if score else None,
               "schwarz": score.schwarz if score else None}
        for name in ("matadors", "declarer_points", "defender_points", "declarer_tricks",
                     "defender_tricks"):
            got[name] = getattr(result, name) if score else None
        for name in CHECKED:
            if got[name] != columns[name][row]:
                problems.append(f"{game_id}: {name} stored {columns[name][row]!r}, "
                                f"engine {got[name]!r}")
    return count, problems


def verify_archive(archive: str | os.PathLike[str] | None, *, workers: int = 1,
                   batch_size: int = 20_000, on_progress: Progress | None = None,
                   max_problems: int | None = None) -> VerifyReport:
    """Replay every game of the archive's ``games`` table (see the module doc); ``workers``
    processes share the batches. Keeps at most ``max_problems`` problem lines (all when
    None) but always checks every game."""
    from multiprocessing import get_context

    from skatlog.ingest.archive import archive_path, committed_files
    from skatlog.ingest.archive import iter_batches as archive_batches

    root = archive_path(archive)
    committed_files(root, "games")  # raises ArchiveError for a broken manifest
    batches = (b.to_pydict() for b in archive_batches(root, "games", batch_size=batch_size,
                                                      columns=list(COLUMNS)))
    report = VerifyReport()

    def take(results: Iterator[tuple[int, list[str]]]) -> VerifyReport:
        for count, found in results:
            report.checked += count
            report.problem_count += len(found)
            if max_problems is None:
                report.problems += found
            else:
                report.problems += found[:max(0, max_problems - len(report.problems))]
            if on_progress is not None:
                on_progress(count)
        return report

    if workers <= 1:
        return take(map(verify_rows, batches))
    with get_context("spawn").Pool(workers) as pool:
        return take(pool.imap(verify_rows, batches))


def stored_games(archive: str | os.PathLike[str] | None) -> int:
    """Rows of the committed ``games`` table (from the Parquet footers, no data read)."""
    import pyarrow.parquet as pq

    from skatlog.ingest.archive import archive_path, committed_files

    return sum(pq.ParquetFile(path).metadata.num_rows
               for path in committed_files(archive_path(archive), "games"))
