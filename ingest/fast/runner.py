"""Validate (and ingest) ISS files with the compiled kernel on all cores, chunk by chunk.

:func:`fast_validate_iss` streams a file in chunks to a process pool; each worker runs the
kernel over its chunk and builds the archive tables of the games it accepted. Every line the
kernel did not accept (an error, ``??``, a value that differs from the record, anything it is
not sure about) comes back as a :class:`~skatlog.ingest.sources.RawRecord` for the slow path,
the reference validator (:func:`skatlog.ingest.validate.replay_parsed`), which gives the
precise diagnosis; except the records the kernel settles itself (a revoke, a card not held, a
``??`` card, a played game whose recorded value no rule explains, :mod:`.verdicts`), whose
verdicts come back ready. Batches come back in file order.
"""

from __future__ import annotations

import heapq
import multiprocessing as mp
import os
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa

from skatlog.engine.rules import ISKO_ISS, Rules

from ..model import LogGame
from ..sources import RawRecord, iter_lines_records
from . import iss_kernel as K
from .columns import ChunkScan, archive_tables, scan
from .pages import without_huge_pages
from .stream import CHUNK_BYTES, iter_chunks, open_binary
from .verdicts import decided_game, differing_game, differing_rows, settled_rows

#: Names of the kernel's status codes (0 = accepted; 1-12 = model.ERROR_CODES).
STATUS_NAMES = {
    K.OK: "ok", K.SYNTAX: "syntax", K.TRUNCATED: "truncated", K.BAD_DEAL: "bad_deal",
    K.ILLEGAL_BID: "illegal_bid", K.WRONG_PLAYER: "wrong_player", K.WRONG_PHASE: "wrong_phase",
    K.ILLEGAL_DECLARATION: "illegal_declaration", K.CARD_NOT_IN_HAND: "card_not_in_hand",
    K.REVOKE: "revoke", K.PLAY_AFTER_END: "play_after_end", K.CORRUPT_CARD: "corrupt_card",
    K.SCORE_MISMATCH: "score_mismatch", K.RESULT_DIFFERS: "result_differs",
    K.UNSURE: "unsure", K.FRAGMENT: "fragment",
}

#: The per-game numpy columns of :meth:`FastBatch.columns` and the kernel field they come from.
COLUMN_FIELDS = {
    "status": K.F_STATUS, "error_move": K.F_ERR_MOVE, "outcome": K.F_OUTCOME,
    "ending": K.F_ENDING, "declarer": K.F_DECLARER, "contract": K.F_CONTRACT,
    "hand": K.F_HAND, "schneider_announced": K.F_SCHN_ANN,
    "schwarz_announced": K.F_SCHW_ANN, "ouvert": K.F_OUVERT, "skat_taken": K.F_SKAT_TAKEN,
    "bid": K.F_BID, "matadors": K.F_MATADORS, "declarer_points": K.F_DPOINTS,
    "declarer_tricks": K.F_DTRICKS, "defender_points": K.F_DEFPOINTS,
    "defender_tricks": K.F_DEFTRICKS, "schneider": K.F_SCHNEIDER, "schwarz": K.F_SCHWARZ,
    "won": K.F_WON, "overbid": K.F_OVERBID, "value": K.F_VALUE,
    "game_value": K.F_GAME_VALUE, "multiplier": K.F_MULT, "recorded_value": K.F_REC_V,
    "tricks_played": K.F_NTRICKS, "moves": K.F_NMOVES,
}


_JSON_COLUMNS = (
    "source_line", "record_id", "outcome", "declarer", "contract", "hand",
    "schneider_announced", "schwarz_announced", "ouvert", "bid", "matadors",
    "declarer_points", "declarer_tricks", "schneider", "schwarz", "won", "overbid", "value",
    "recorded_value", "value_check",
)


@dataclass
class FastBatch:
    """The result of one chunk.

    ``rows`` is the kernel's per-record matrix (one row per record line, ``F_*`` columns of
    :mod:`.iss_kernel`); :meth:`columns` gives it as a dict of named numpy arrays (plus
    ``line``, ``deal`` (n x 32 card indices) and ``tricks`` (n x 10 x 5: three cards in play
    order, leader, winner)). ``tables`` holds the archive tables (``games``, ``tricks``,
    ``auction``, schemas of :mod:`skatlog.ingest.schema`) of the accepted games when they
    were asked for. ``slow`` holds the records for the reference validator, with their
    1-based lines.
    """

    source: str
    first_line: int
    rows: np.ndarray
    deals: np.ndarray
    tricks: np.ndarray
    slow: list[RawRecord] = field(default_factory=list)
    tables: dict[str, pa.Table] | None = None
    #: the rule set of the records (``slow`` is validated under it too)
    rules: Rules = ISKO_ISS
    #: with ``claims``: how many lines were the simulator's own lines of the hands they
    #: claim, and the simulator's tables of those hands (not in ``slow``)
    matched: int = 0
    claimed: list[dict[str, pa.Table]] = field(default_factory=list)
    #: ``slow`` already validated by the reference validator (in the worker that scanned the
    #: chunk), in the same order; None when the caller validates them (:meth:`slow_games`)
    settled: list[LogGame] | None = None
    #: the rejects the kernel settled itself (:mod:`.verdicts`), in file order
    decided: list[LogGame] = field(default_factory=list)

    @property
    def accepted(self) -> int:
        """Games the kernel validated (status ok)."""
        return int((self.rows[:, K.F_STATUS] == K.OK).sum())

    @property
    def seen(self) -> int:
        """Records in the chunk: accepted, settled by the kernel, and for the slow path."""
        return self.accepted + len(self.decided) + len(self.slow)

    @property
    def lines(self) -> np.ndarray:
        return self.rows[:, K.F_LINE].astype(np.int64) + self.first_line

    def columns(self) -> dict[str, np.ndarray]:
        """Named per-record numpy columns (every record line, accepted or not)."""
        out = {name: self.rows[:, f] for name, f in COLUMN_FIELDS.items()}
        out["line"] = self.lines
        out["deal"] = self.deals
        out["tricks"] = self.tricks
        return out

    def json_objects(self) -> list[dict[str, Any]]:
        """``skatlog validate --json`` objects (:func:`skatlog.ingest.validate.game_json`
        form) of the accepted games, in file order; needs ``tables``."""
        if self.tables is None:
            raise ValueError("json_objects needs the batch's tables (tables=True)")
        games = self.tables["games"]
        columns = {name: games.column(name).to_pylist() for name in _JSON_COLUMNS}
        out = []
        for i in range(games.num_rows):
            outcome = columns["outcome"][i]
            obj: dict[str, Any] = {  # the keys in game_json's order, so both print alike
                "source": self.source, "line": columns["source_line"][i], "format": "iss",
                "id": columns["record_id"][i] or "", "ok": True, "errors": [],
                "warnings": [], "outcome": outcome, "passed": outcome == "passed",
            }
            for name in _JSON_COLUMNS[3:]:
                obj[name] = columns[name][i]
            out.append(obj)
        return out

    def slow_games(self) -> Iterator[LogGame]:
        """Every record the kernel did not accept, validated, in file order: the rejects it
        settled itself (``decided``) and the slow path's records, by the reference validator
        (the worker's verdicts when it settled them, else validated here)."""
        slow = self.settled if self.settled is not None else _settle(self.slow, self.rules)
        if not self.decided:
            yield from slow
            return
        yield from heapq.merge(self.decided, slow, key=_line)


def _settle(records: list[RawRecord], rules: Rules) -> Iterator[LogGame]:
    """The reference validator's verdict on each record, in order."""
    from ..validate import parse_raw, replay_parsed

    for raw in records:
        yield replay_parsed(parse_raw(raw, rules), checked=not raw.replayed)


def iter_validation_json(path_or_stream: str | os.PathLike[str] | BinaryIO, *,
                         workers: int | None = None, source: str | None = None,
                         rules: Rules = ISKO_ISS) -> Iterator[dict[str, Any]]:
    """Every game of an ISS file as its ``skatlog validate --json`` object, in file order:
    the fast path's accepted games and the reference validator's verdict on the rest."""
    from ..validate import game_json

    for batch in fast_validate_iss(path_or_stream, workers=workers, source=source,
                                   rules=rules):
        fast = batch.json_objects()
        slow = [game_json(game) for game in batch.slow_games()]
        i = j = 0
        while i < len(fast) or j < len(slow):
            if j >= len(slow) or (i < len(fast) and fast[i]["line"] < slow[j]["line"]):
                yield fast[i]
                i += 1
            else:
                yield slow[j]
                j += 1


def _line(game: LogGame) -> int:
    return game.line


def _decided_games(scan_: ChunkScan, source: str) -> tuple[list[LogGame], np.ndarray]:
    """The verdicts of the rejects the kernel settled and of the played games whose recorded
    result differs (:mod:`.verdicts`), in file order, and the mask of their rows; a row whose
    text the record splitter would cut otherwise (a comment, a byte-order mark), or that the
    reader sees otherwise, stays for the slow path."""
    rows = scan_.rows
    done = np.zeros(len(rows), dtype=bool)
    games: list[LogGame] = []
    settled = settled_rows(rows)
    differing = differing_rows(rows)
    for r in np.union1d(settled, differing) if len(differing) else settled:
        row = rows[r]
        text = scan_.chunk[row[K.F_START]:row[K.F_END]].decode("utf-8", "replace")
        if not _whole_record(text):
            continue
        line = int(row[K.F_LINE]) + scan_.first_line
        if row[K.F_STATUS] == K.RESULT_DIFFERS:
            moves = scan_.keys[row[K.F_MOVES_S]:row[K.F_MOVES_E]].tobytes().decode("ascii")
            game = differing_game(text.strip(), source, line, scan_.rules, row,
                                  scan_.deals[r], moves)
        else:
            game = decided_game(text.strip(), source, line, scan_.rules, row)
        if game is not None:
            games.append(game)
            done[r] = True
    return games, done


def _slow_records(scan_: ChunkScan, source: str, settled: np.ndarray | None = None
                  ) -> list[RawRecord]:
    """RawRecords of every line the kernel did not accept (nor ``settled`` marks), cut as the
    reference reader cuts.

    A complete one-line record is one record; consecutive fragments (a multi-line record, or
    junk) are handed to the reference record splitter together.
    """
    rows = scan_.rows
    status = rows[:, K.F_STATUS]
    todo = np.flatnonzero((status != K.OK) if settled is None
                          else (status != K.OK) & ~settled)
    out: list[RawRecord] = []
    chunk = scan_.chunk
    i = 0
    while i < len(todo):
        r = todo[i]
        j = i
        if status[r] == K.FRAGMENT:
            while j + 1 < len(todo) and todo[j + 1] == todo[j] + 1 \
                    and status[todo[j + 1]] == K.FRAGMENT:
                j += 1
        last = todo[j]
        text = chunk[rows[r, K.F_START]:rows[last, K.F_END]].decode("utf-8", "replace")
        first = int(rows[r, K.F_LINE]) + scan_.first_line
        if j == i and _whole_record(text):  # what the record splitter makes of it, directly
            out.append(RawRecord(source, first, text.strip(), "iss",
                                 replayed=bool(status[r] == K.RESULT_DIFFERS)))
            i += 1
            continue
        for raw in iter_lines_records(text.split("\n"), source, "iss"):
            out.append(RawRecord(raw.source, raw.line + first - 1, raw.text, raw.format,
                                 raw.complete))
        i = j + 1
    return out


def _whole_record(line: str) -> bool:
    """Whether :func:`~skatlog.ingest.sources.iter_lines_records` makes one complete record
    of this one line (with or without its newline), its text stripped: no comment to cut,
    no byte-order mark, ``;)`` at the end (the common case)."""
    return "#" not in line and "\n" not in line.rstrip("\n") \
        and not line.startswith("\ufeff") and line.rstrip().endswith(";)")


def process_chunk(first_line: int, chunk: bytes, source: str, build_tables: bool,
                  ingest_id: str | None, rules: Rules = ISKO_ISS, claims: bool = False,
                  settle: bool = False) -> FastBatch:
    """Scan one chunk (in a worker) under ``rules``: kernel, archive tables, slow-path
    records. ``claims`` (ingest): lines that are the simulator's own lines of the hands they
    claim are settled here (:func:`~skatlog.ingest.sim_claims.match_lines`), not handed
    over. ``settle``: the slow-path records are validated here too (``FastBatch.settled``),
    so that the workers, not the process reading the batches, run the reference
    validator."""
    scan_ = scan(chunk, first_line, rules)
    tables = archive_tables(scan_, source, ingest_id) if build_tables else None
    decided, done = _decided_games(scan_, source)
    matched = 0
    claimed: list[dict[str, pa.Table]] = []
    if claims:
        from ..sim_claims import match_lines

        rows = scan_.rows
        claims_matched, claimed = match_lines(chunk, rows[:, K.F_START], rows[:, K.F_END],
                                              rows[:, K.F_STATUS] == K.UNSURE, ingest_id)
        matched = int(claims_matched.sum())
        done |= claims_matched
    slow = _slow_records(scan_, source, done)
    return FastBatch(source, first_line, scan_.rows, scan_.deals, scan_.tricks, slow, tables,
                     rules, matched, claimed, list(_settle(slow, rules)) if settle else None,
                     decided)


def warm_up(slow_path: bool = False) -> None:
    """Load (or compile, once: numba caches it) the kernel before worker processes fork;
    ``slow_path``: the reference validator's compiled rules too (the workers of an ingest
    run it), so that each forked worker does not load them again. Once per process (a
    forked child inherits what its parent loaded): a later call costs nothing."""
    if "kernel" not in _WARM:
        process_chunk(1, b"(;GM[Skat]MV[w]R[];)\n", "<warm-up>", True, None)
        _WARM.add("kernel")
    if slow_path and "reference" not in _WARM:
        _warm_reference()
        _WARM.add("reference")


#: What :func:`warm_up` has loaded in this process.
_WARM: set[str] = set()


def _warm_reference() -> None:
    """Validate one played game the reference way (ISS text, parse, replay, score)."""
    import random

    from ..validate import parse_raw, replay_parsed
    from .synth import iss_line, random_record

    for seed in range(20):  # the first of these that is not passed in
        rng = random.Random(seed)
        record = random_record(rng)
        if record.result.declarer is not None:
            raw = RawRecord("<warm-up>", 1, iss_line(record, 0, rng), "iss")
            replay_parsed(parse_raw(raw, ISKO_ISS))
            return


def fast_validate_iss(
    path_or_stream: str | os.PathLike[str] | BinaryIO,
    *,
    workers: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    tables: bool = True,
    source: str | None = None,
    ingest_id: str | None = None,
    pool: bool | None = None,
    rules: Rules = ISKO_ISS,
    settle: bool | None = None,
) -> Iterator[FastBatch]:
    """Validate an ISS file chunk by chunk; yields one :class:`FastBatch` per chunk, in order.

    ``path_or_stream``: a path (plain, .gz, .bz2, .zst) or a binary stream. ``workers``: the
    processes to use (default: every core; 1 runs in this process). ``tables``: build the
    archive tables of the accepted games. ``pool``: use worker processes (default: when
    ``workers`` > 1; ``pool=True`` with one worker leaves this process free, e.g. to write
    Parquet). At most ``2 x workers`` chunks are in flight, so memory stays bounded
    whatever the file size. ``rules``: the rule set of records that do not name one.
    ``settle``: the workers also validate the records they hand over (the reference
    validator, ``FastBatch.settled``); default: when worker processes are used, since this
    process would otherwise replay them one after the other (about three quarters of the
    wall time of a file with 3 % damaged records).
    """
    if isinstance(path_or_stream, (str, os.PathLike)):
        name = source if source is not None else str(path_or_stream)
        stream: BinaryIO = open_binary(Path(path_or_stream))
        close = True
    else:
        name = source if source is not None else getattr(path_or_stream, "name", "<stream>")
        stream = path_or_stream
        close = False
    workers = workers or os.cpu_count() or 1
    try:
        chunks = iter_chunks(stream, chunk_bytes)
        if not (pool if pool is not None else workers > 1):
            for first, chunk in chunks:
                yield process_chunk(first, chunk, name, tables, ingest_id, rules, False,
                                    bool(settle))
            return
        settle = True if settle is None else settle
        warm_up(slow_path=settle)
        with without_huge_pages(), mp.get_context("fork").Pool(workers) as procs:
            pending: deque[Any] = deque()
            for first, chunk in chunks:
                pending.append(procs.apply_async(
                    process_chunk, (first, chunk, name, tables, ingest_id, rules, False,
                                    settle)))
                while len(pending) >= 2 * workers:
                    yield pending.popleft().get()
            while pending:
                yield pending.popleft().get()
    finally:
        if close:
            stream.close()
