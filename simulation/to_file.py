"""Simulation runs into a log file: ISS (``.sgf``) or skatlog JSON Lines (``.jsonl``).

Every hand is replayed through the engine's validated path and written with the record id
and tags that name it (:mod:`skatlog.ingest.simulated`), so that ingest re-simulates it and
stores it under the id ``simulate --archive`` gives it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

from skatlog.engine import replay
from skatlog.engine.batch import BatchGames
from skatlog.ingest.iss import write_iss
from skatlog.ingest.jsonl import write_jsonl
from skatlog.ingest.model import LogGame
from skatlog.ingest.simulated import Claim, simulated_meta, simulated_tags

from .batches import CHUNK, iter_batches
from .options import Progress, SimulationError, SimulationOptions, SimulationSummary, tally

FILE_FORMATS = ("sgf", "jsonl")


def log_games(batch: BatchGames, options: SimulationOptions) -> Iterator[LogGame]:
    """The batch's hands as validated :class:`~skatlog.ingest.model.LogGame` values: each
    one replayed through the engine's validated path (``GameState.apply``), with the
    record id and tags that name it (:mod:`skatlog.ingest.simulated`: seed, bots, hand
    index, sessions), from which ingest re-simulates it and stores it under the id
    ``simulate --archive`` gives it."""
    for row in range(len(batch)):
        claim = Claim(options.seed, options.bots, batch.start + row, options.sessions)
        record = replay(batch.deal_of(row), batch.moves(row))
        yield LogGame(source="simulated", line=0, raw="", format="simulated",
                      meta=simulated_meta(claim), record=record,
                      extra={"tags": simulated_tags(claim)})


def file_format(path: str | os.PathLike[str]) -> str:
    """``sgf`` (ISS) or ``jsonl`` from the output file's name; SimulationError otherwise."""
    target = Path(path)
    suffix = target.suffix.lower().lstrip(".")
    if suffix not in FILE_FORMATS:
        raise SimulationError(f"--out must end in .sgf or .jsonl, not {target.name!r}")
    return suffix


def simulate_to_file(
    path: str | os.PathLike[str],
    options: SimulationOptions,
    *,
    chunk: int = CHUNK,
    on_progress: Progress | None = None,
) -> SimulationSummary:
    """Simulate the run into an ISS (``.sgf``) or skatlog JSONL (``.jsonl``) log file,
    written to a temporary name and renamed when complete."""
    target = Path(path)
    writer = write_iss if file_format(target) == "sgf" else write_jsonl
    clock = time.perf_counter()
    summary = SimulationSummary(options.hands, 0.0, target=str(target))
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as out:
            for batch in iter_batches(options, chunk=min(chunk, 20_000)):
                for game in log_games(batch, options):
                    out.write(writer(game, result="computed"))
                    out.write("\n")
                summary.stored += len(batch)
                tally(summary, batch)
                if on_progress is not None:
                    on_progress(len(batch))
        os.replace(tmp, target)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise SimulationError(f"cannot write {target}: {err.strerror}") from err
    except BaseException:  # Ctrl-C, a failed hand: no half-written file is left behind
        tmp.unlink(missing_ok=True)
        raise
    summary.seconds = time.perf_counter() - clock
    return summary
