"""Benchmark: where the archive's bytes and the Parquet writer's time go, per table and
per column, for simulated hands (and the CPU of each stage before the writer).

Simulates one batch, builds its ``games``/``tricks``/``auction`` tables with the
simulator's own row builder, and writes them into memory with the options the simulator
uses (:func:`skatlog.ingest.archive.parquet_options`, ``fast=True``). For every table and
for every column alone it prints bytes a hand and single-thread encode time a hand (the
best of ``--repeats`` writes, so other work on the machine matters less). It also prints
the same for the columns issue 3 names as the archive's contract (``games`` without the
move list, the card masks and the other extra columns), which shows what the extra
columns cost.

    .venv/bin/python bench/writer.py                     # 50,000 random-bot hands
    .venv/bin/python bench/writer.py --bots rules --hands 20000
"""

from __future__ import annotations

import argparse
import io
import time
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from skatlog.engine.batch import simulate_batch
from skatlog.ingest.archive import parquet_options
from skatlog.ingest.computed import storage_form
from skatlog.ingest.sim_ids import run_ids
from skatlog.ingest.sim_rows import batch_rows, needs_moves_text
from skatlog.simulation import SimulationOptions, parse_bots
from skatlog.simulation.batches import batch_tables

#: The ``games`` columns the archive issue spells out (the rest are skatlog's additions).
CONTRACT_GAMES = (
    "game_id", "source", "source_line", "record_id", "session_id", "hand_no", "played_at",
    "forehand", "middlehand", "rearhand", "dealer", "deal", "passed", "outcome", "declarer",
    "declarer_name", "contract", "hand", "schneider_announced", "schwarz_announced", "ouvert",
    "bid", "matadors", "declarer_points", "declarer_tricks", "schneider", "schwarz", "won",
    "overbid", "value", "recorded_value", "value_check", "origin", "seed", "bots",
)


def _options_for(table: pa.Table, full: pa.Schema) -> dict[str, Any]:
    """The fast writer options of ``full``'s table, narrowed to ``table``'s columns."""
    names = set(table.schema.names)

    def keep(column: str) -> bool:
        return column.split(".")[0] in names

    out: dict[str, Any] = {}
    for key, value in parquet_options(full, fast=True, sequential_ids=True).items():
        if isinstance(value, dict):
            value = {c: v for c, v in value.items() if keep(c)} or None
        elif isinstance(value, list):
            value = [c for c in value if keep(c)]
        out[key] = value
    return out


def encode(tables: list[tuple[pa.Table, pa.Schema]], repeats: int) -> tuple[float, int]:
    """Best-of-``repeats`` seconds to write ``tables`` to memory, and their bytes."""
    best, size = float("inf"), 0
    for _ in range(repeats):
        start, size = time.perf_counter(), 0
        for table, full in tables:
            sink = io.BytesIO()
            with pq.ParquetWriter(sink, table.schema, **_options_for(table, full)) as writer:
                writer.write_table(table, row_group_size=max(1, table.num_rows))
            size += sink.getbuffer().nbytes
        best = min(best, time.perf_counter() - start)
    return best, size


def _stored(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    return {name: storage_form(name, table) for name, table in tables.items()}


def stages(options: SimulationOptions, n: int, repeats: int) -> None:
    """CPU per hand of each stage of a simulated batch on its way to the archive: the
    compiled kernel, the compiled row pass, the Arrow tables (row pass included), the
    storage form (a deal in card order stored as null) and the Parquet writer (into
    memory)."""
    best: dict[str, float] = {}

    def timed(stage: str, work: Any, *args: Any) -> Any:
        start = time.perf_counter()
        out = work(*args)
        best[stage] = min(best.get(stage, float("inf")), time.perf_counter() - start)
        return out

    assert options.id_base is not None
    ids = run_ids(options.id_base, 0, n)
    for _ in range(repeats):
        batch = timed("kernel", simulate_batch, 1, 0, n, options.bots, 1)
        timed("row pass", batch_rows, batch, ids, needs_moves_text(batch))
        tables = timed("Arrow tables", batch_tables, batch, options)
        stored = timed("storage form", _stored, tables)
        timed("Parquet writer", encode, [(t, t.schema) for t in stored.values()], 1)
    for stage, seconds in best.items():
        print(f"stage: {stage:25s} {seconds / n * 1e6:7.3f} us/hand")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=50_000)
    parser.add_argument("--bots", default="random")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    options = SimulationOptions(hands=args.hands, seed=1, bots=parse_bots(args.bots)).resolved()
    built = batch_tables(simulate_batch(1, 0, args.hands, options.bots, threads=1), options)
    tables = {name: storage_form(name, table) for name, table in built.items()}  # as written
    n = args.hands

    def show(label: str, parts: list[tuple[pa.Table, pa.Schema]]) -> None:
        seconds, size = encode(parts, args.repeats)
        print(f"{label:32s} {size / n:7.1f} bytes/hand {seconds / n * 1e6:7.3f} us/hand")

    print(f"{n:,} hands, bots {','.join(options.bots)}; one thread, best of {args.repeats}")
    stages(options, n, args.repeats)
    everything = [(t, t.schema) for t in tables.values()]
    show("all tables", everything)
    games = tables["games"]
    show("contract columns only", [(games.select(CONTRACT_GAMES), games.schema),
                                   (tables["tricks"], tables["tricks"].schema),
                                   (tables["auction"], tables["auction"].schema)])
    for name, table in tables.items():
        print()
        show(f"{name} ({table.num_rows / n:.1f} rows/hand)", [(table, table.schema)])
        for column in table.schema.names:
            show(f"  {column}", [(table.select([column]), table.schema)])


if __name__ == "__main__":
    main()
