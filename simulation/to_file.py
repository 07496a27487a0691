"""Simulation runs into a log file: ISS (``.sgf``) or skatlog JSON Lines (``.jsonl``).

Every hand is written with the record id and tags that name it
(:mod:`skatlog.ingest.simulated`), so that ingest re-simulates it and stores it under the id
``simulate --archive`` gives it. The lines are built straight from the batch simulator's
arrays in one compiled pass (:mod:`skatlog.ingest.sim_text`); :func:`reference_lines`
makes the same bytes the slow way, replaying every hand through the engine's validated path
and its writers, and a test holds the two equal byte for byte.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

from skatlog.engine import ISKO, replay
from skatlog.engine.batch import BatchGames
from skatlog.ingest.iss import write_iss
from skatlog.ingest.jsonl import write_jsonl
from skatlog.ingest.model import LogGame
from skatlog.ingest.sim_text import batch_lines, program
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


def reference_lines(batch: BatchGames, options: SimulationOptions, kind: str) -> bytes:
    """The batch's lines (``kind`` ``sgf`` or ``jsonl``) the reference way: every hand
    replayed (:func:`log_games`) and written by :func:`~skatlog.ingest.iss.write_iss` or
    :func:`~skatlog.ingest.jsonl.write_jsonl` with the computed result."""
    writer = write_iss if kind == "sgf" else write_jsonl
    return "".join(writer(game, result="computed") + "\n"
                   for game in log_games(batch, options)).encode("utf-8")


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
    written to a temporary name and renamed when complete. The writers are the modern
    game's: a run under another rule set goes to an archive (:func:`.simulate_to_archive`),
    and ``skatlog export`` writes it as skatlog/1."""
    if options.rules != ISKO:
        raise SimulationError(f"a log file takes {ISKO} hands only; simulate {options.rules} "
                              "into an archive, and skatlog export writes them as skatlog/1")
    target = Path(path)
    lines = program(file_format(target), options.seed, options.bots, options.sessions)
    clock = time.perf_counter()
    summary = SimulationSummary(options.hands, 0.0, target=str(target))
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as out:
            for batch in iter_batches(options, chunk=chunk):
                out.write(batch_lines(batch, lines))
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
