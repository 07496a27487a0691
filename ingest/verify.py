"""Re-check a stored archive: replay every game through the engine's validated path.

:func:`verify_archive` streams each ``games`` row joined with its ``tricks`` and ``auction``
rows (DuckDB over the committed Parquet files), replays the game with
:func:`~skatlog.engine.replay` -- under the recorded-log rules (R17, R7) and with the
admitted off-ladder bids (R18) when the row says it was stored that way -- and rebuilds its
rows with the archive's own :class:`~skatlog.ingest.rows.GameRowsBuilder`. A game
stored without ``moves`` (a simulated hand) is replayed from the move list its rows make
(:func:`.rebuild.moves_from_rows`), so its trick and auction rows are the record. Every column
the rules decide is compared: the result columns of ``games`` (outcome, ending, declarer,
contract and announcements, skat and discard, bid, points, tricks, matadors, value, the
move list) and its card masks, every ``tricks`` row and every ``auction`` row, including
the columns the views compute (:mod:`.computed`: the engine's own seats, card points and
skat against the views' formulas). It also
reports game ids stored twice and trick or auction rows without their game. It works on
logged and simulated games alike, so ``skatlog verify`` proves that a simulated run (or
an ingest) holds nothing the rules engine would not produce.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .computed import table_sql
from .rebuild import (
    REBUILD_COLUMNS,
    TRICK_FIELDS,
    child_rows_sql,
    moves_from_rows,
)

#: ``games`` columns the replay recomputes and :func:`verify_rows` compares.
CHECKED = (
    "passed", "outcome", "ending", "declarer", "declarer_name", "skat_taken", "discard",
    "bid", "contract", "hand", "schneider_announced", "schwarz_announced", "ouvert",
    "matadors", "declarer_points", "defender_points", "declarer_tricks", "defender_tricks",
    "schneider", "schwarz", "won", "overbid", "game_value", "multiplier", "value", "moves",
    "forehand_cards", "middlehand_cards", "rearhand_cards", "skat_cards",
)
#: ``games`` columns read besides :data:`CHECKED` (the replay's inputs).
INPUTS = ("game_id", "deal", "rules", "recorded_rules", "extra_bids", "forehand", "middlehand",
          "rearhand", "bock")
#: Problem lines kept per check of the whole archive (duplicates, orphans).
LISTED = 50
#: Games joined with their tricks and calls per pass: a large archive is checked in
#: passes split by game_id, so DuckDB's lists stay within :data:`MEMORY_LIMIT`.
GAMES_PER_PASS = 400_000
#: DuckDB's memory cap while it joins the tables.
MEMORY_LIMIT = "2GB"

Progress = Callable[[int], None]


@dataclass
class VerifyReport:
    """What :func:`verify_archive` found: games checked, problem lines (one per differing
    column, table or failed replay), the games they concern, and the lines kept."""

    checked: int = 0
    problem_count: int = 0
    bad_games: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.problem_count == 0


def _expected_rows(columns: dict[str, list[Any]], rows: list[int], records: list[Any]
                   ) -> tuple[dict[str, list[Any]], dict[int, list[list[int]]],
                              dict[int, list[list[int]]]]:
    """The rows the archive's builder makes for the replayed ``records``: games columns,
    and trick and auction rows by game id (as the lists :func:`_stored_query` yields)."""
    from skatlog.ingest.rows import GameRowsBuilder, SimulatedMeta
    from skatlog.ingest.schema import CALL_KINDS

    builder = GameRowsBuilder()
    for row, record in zip(rows, records, strict=True):
        players = tuple(columns[seat][row] or "" for seat in ("forehand", "middlehand",
                                                               "rearhand"))
        builder.add_simulated(record, SimulatedMeta(players=players),  # type: ignore[arg-type]
                              game_id=columns["game_id"][row])
    tables = builder.tables(computed=True)
    games = {name: tables["games"].column(name).to_pylist() for name in CHECKED}
    tricks: dict[int, list[list[int]]] = {}
    for trick in tables["tricks"].to_pylist():
        tricks.setdefault(trick["game_id"], []).append([trick[f] for f in TRICK_FIELDS])
    calls: dict[int, list[list[int]]] = {}
    for call in tables["auction"].to_pylist():
        value = -1 if call["value"] is None else call["value"]
        calls.setdefault(call["game_id"], []).append(
            [call["call_no"], call["seat"], CALL_KINDS.index(call["kind"]), value])
    return games, tricks, calls


def _first_difference(stored: list[list[int]], engine: list[list[int]], what: str) -> str:
    copies = len(stored) // len(engine) if engine else 0
    if copies > 1 and sorted(stored) == sorted(engine * copies):
        return (f"{what}: every row stored {copies} times (skatlog before 2026-12-03 kept"
                " the rows of every copy of a game repeated inside one ingest batch);"
                " ingest the logs again into a new archive")
    for k, (a, b) in enumerate(zip(stored, engine, strict=False)):
        if a != b:
            return f"{what} row {k + 1} stored {a}, engine {b}"
    return f"{what}: {len(stored)} rows stored, engine {len(engine)}"


def verify_rows(columns: dict[str, list[Any]]) -> tuple[int, list[str]]:
    """Replay the games of one batch (column name -> values, as :func:`verify_archive`
    reads them; ``tricks`` and ``calls`` may be absent) and compare their rows.

    Returns (games checked, problems); a problem reads ``<game_id>: <what differs>``.
    """
    from skatlog.engine import Deal, replay
    from skatlog.ingest.moves_codec import decode_moves
    from skatlog.ingest.row_game import rules_of_row

    problems: list[str] = []
    count = len(columns["game_id"])
    rules = columns.get("rules") or [None] * count
    recorded = columns.get("recorded_rules") or [False] * count
    bock = columns.get("bock") or [None] * count  # R21: a Bock hand doubles its value
    rows: list[int] = []
    records: list[Any] = []
    for row in range(count):
        try:
            text = columns["moves"][row]
            if text is None:  # stored without a move list: its rows hold the moves
                game = {name: columns[name][row] for name in REBUILD_COLUMNS}
                moves = moves_from_rows(game, _child(columns, "tricks", row),
                                        _child(columns, "calls", row))
            else:
                moves = decode_moves(text)
            played_under = rules_of_row({"rules": rules[row], "recorded_rules": recorded[row]})
            records.append(replay(Deal.from_cards(columns["deal"][row]), moves,
                                  rules=played_under, bock=bool(bock[row])))
            rows.append(row)
        except Exception as err:  # a bad row is a finding, not the end of the check
            source = " (moves rebuilt from its rows)" if columns["moves"][row] is None else ""
            problems.append(f"{columns['game_id'][row]}: {type(err).__name__}: {err}{source}")
    if not rows:
        return count, problems
    games, tricks, calls = _expected_rows(columns, rows, records)
    for k, row in enumerate(rows):
        game_id = columns["game_id"][row]
        for name in CHECKED:
            if name == "moves" and columns[name][row] is None:
                continue  # the moves came from the rows compared below
            if name in columns and games[name][k] != columns[name][row]:
                problems.append(f"{game_id}: {name} stored {columns[name][row]!r}, "
                                f"engine {games[name][k]!r}")
        for key, expected, what in (("tricks", tricks, "tricks"), ("calls", calls, "auction")):
            if key in columns:
                stored = columns[key][row] or []
                engine = expected.get(game_id, [])
                if stored != engine:
                    problems.append(f"{game_id}: {_first_difference(stored, engine, what)}")
    return count, problems


def _child(columns: dict[str, list[Any]], key: str, row: int) -> list[list[int]]:
    """A game's trick or call lists, which a row stored without moves cannot do without."""
    if key not in columns:
        raise ValueError(f"no move list stored and no {key} to rebuild it from")
    return columns[key][row] or []


def _stored_query(files: dict[str, list[Path]], part: int = 0, parts: int = 1) -> str:
    """SQL giving the games rows of ``part`` (of ``parts``, split by game_id) with their
    trick and auction rows as lists of int lists."""
    where = f" WHERE abs(game_id % {parts}) = {part}" if parts > 1 else ""
    games = ", ".join(f'g."{c}"' for c in (*INPUTS, *CHECKED))
    tricks, calls = child_rows_sql(
        table_sql("tricks", files["tricks"]) if files["tricks"] else None,
        table_sql("auction", files["auction"]) if files["auction"] else None, where)
    return (f"SELECT {games}, t.tricks, a.calls "
            f"FROM (SELECT * FROM {table_sql('games', files['games'])}{where}) g "
            f"LEFT JOIN ({tricks}) t USING (game_id) LEFT JOIN ({calls}) a USING (game_id)")


def _archive_problems(con: Any, files: dict[str, list[Path]]) -> list[str]:
    """Game ids stored twice, and trick or auction rows whose game is not stored."""
    games = table_sql("games", files["games"])
    problems = [f"{gid}: game stored {n} times" for gid, n in con.execute(
        f"SELECT game_id, count(*) FROM {games} GROUP BY game_id HAVING count(*) > 1 "
        f"ORDER BY game_id LIMIT {LISTED}").fetchall()]
    for table in ("tricks", "auction"):
        if files[table]:
            problems += [f"{gid}: {n} {table} rows without a game" for gid, n in con.execute(
                f"SELECT game_id, count(*) FROM {table_sql(table, files[table])} "
                f"WHERE game_id NOT IN (SELECT game_id FROM {games}) GROUP BY game_id "
                f"ORDER BY game_id LIMIT {LISTED}").fetchall()]
    return problems


def verify_archive(archive: str | os.PathLike[str] | None, *, workers: int = 1,
                   batch_size: int = 20_000, on_progress: Progress | None = None,
                   max_problems: int | None = None) -> VerifyReport:
    """Replay and compare every game of the archive (see the module doc); ``workers``
    processes share the batches. Keeps at most ``max_problems`` problem lines (all when
    None) but always checks every game. Raises ArchiveError (a broken manifest, a listed
    file that is missing), OSError or duckdb.Error when the archive cannot be read."""
    from multiprocessing import get_context

    import duckdb
    import pyarrow.parquet as pq

    from skatlog.ingest.archive import archive_path

    root = archive_path(archive)
    files = archive_files(root)
    report = VerifyReport()

    def keep(found: list[str]) -> None:
        report.problem_count += len(found)
        report.bad_games += len({line.split(":", 1)[0] for line in found})
        room = len(found) if max_problems is None else max(0, max_problems - len(report.problems))
        report.problems += found[:room]

    if not files["games"]:
        return report
    con = duckdb.connect()
    # Rows may come in any order; the cap keeps a failure to split enough a clear error.
    con.execute("SET preserve_insertion_order = false")
    con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    try:
        keep(_archive_problems(con, files))
        total = sum(pq.ParquetFile(path).metadata.num_rows for path in files["games"])
        parts = max(1, -(-total // GAMES_PER_PASS))
        batches = (batch.to_pydict() for part in range(parts)
                   for batch in con.sql(_stored_query(files, part, parts))
                   .to_arrow_reader(batch_size))

        def take(results: Iterator[tuple[int, list[str]]]) -> VerifyReport:
            for count, found in results:
                report.checked += count
                keep(found)
                if on_progress is not None:
                    on_progress(count)
            return report

        if workers <= 1:
            return take(map(verify_rows, batches))
        with get_context("spawn").Pool(workers) as pool:
            return take(pool.imap(verify_rows, batches))
    finally:
        con.close()


def archive_files(archive: str | os.PathLike[str] | None) -> dict[str, list[Path]]:
    """The committed files of ``games``, ``tricks`` and ``auction``; UnusableArchive when
    the manifest lists a file that is not there."""
    from skatlog.ingest.archive import UnusableArchive, archive_path, committed_files

    root = archive_path(archive)
    files = {table: committed_files(root, table) for table in ("games", "tricks", "auction")}
    missing = [str(p) for paths in files.values() for p in paths if not p.is_file()]
    if missing:
        raise UnusableArchive(f"{root}: the manifest lists {len(missing)} missing file(s), "
                              f"e.g. {missing[0]}")
    return files


def stored_games(archive: str | os.PathLike[str] | None) -> int:
    """Rows of the committed ``games`` table (from the Parquet footers, no data read)."""
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(path).metadata.num_rows
               for path in archive_files(archive)["games"])
