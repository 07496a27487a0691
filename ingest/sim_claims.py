"""Claimed simulated hands matched by their text, in batches, before anything is parsed.

A log written by ``skatlog simulate --out`` (or ``export``) holds lines that claim to be
simulated hands (:mod:`.simulated`). Parsing and replaying each one only to find it equal to
the re-simulated hand costs far more than simulating it. So ingest first reads the claim
from the raw text (the tags ``seed``, ``bots``, ``hand``, ``sessions`` where the writers put
them), re-simulates every claimed stretch of a run with one ``simulate_batch`` call, builds
the lines the writers would give those hands (:mod:`.sim_text`, held byte for byte equal
to them by a test) and compares whole lines. A record that is exactly such a line becomes a
:class:`~.simulated.MatchedGame`, stored as the simulator's row without being parsed. Any
other record, a tampered one, one with other spacing or key order, one read under other
rules, is parsed and checked exactly as before (:func:`~.simulated.reproduce`), so what is
stored does not change, only how fast.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
import pyarrow as pa

from skatlog.engine.rules import ISKO, Rules

from .model import LogGame
from .simulated import (
    MAX_CLAIMED_INDEX,
    MAX_SPAN,
    MatchedGame,
    SimulatedSpan,
    _rows_of,
    _spans,
    position_bots,
)
from .sources import RawRecord, expand_paths, iter_records

#: Records matched per window: the re-simulated stretches of a window are held until the
#: pipeline stores them (a few MB per 10,000 hands).
WINDOW = 20_000
#: Where the ISS writer puts a simulated hand's tags (:func:`.sim_text.iss_program`).
_BOT = r"([a-z][a-z0-9:_+=.\-]{0,199})"  # a bot name: random, rules, rules:SETTING+...
ISS_CLAIM = re.compile(rf"\]seed\[(\d{{1,19}})\]bots\[{_BOT},{_BOT},{_BOT}\]"
                       r"hand\[(\d{1,16})\](sessions\[1\])?")
#: Where the skatlog/1 writer puts them: the last key of the object.
JSON_CLAIM = re.compile(rf',"tags":\{{"seed":"(\d{{1,19}})","bots":"{_BOT},{_BOT},{_BOT}",'
                        r'"hand":"(\d{1,16})"(,"sessions":"1")?\}\}\Z')

#: :data:`ISS_CLAIM` over bytes, for :func:`match_lines` (a claim never spans a newline).
ISS_CLAIM_BYTES = re.compile(ISS_CLAIM.pattern.encode())

_Run = tuple[str, int, tuple[str, str, str], bool]  # format, seed, bots by position, sessions


def _claim(raw: RawRecord, rules: Rules | None) -> tuple[_Run, int] | None:
    """The run and hand index ``raw``'s text claims where the writers put them, or None
    (then the record is parsed as any other)."""
    if raw.format == "iss":
        kind, found = "sgf", ISS_CLAIM.search(raw.text)
    elif raw.format == "jsonl" and rules in (None, ISKO):  # no "rules" key: read as isko
        kind, found = "jsonl", JSON_CLAIM.search(raw.text)
    else:
        return None
    if found is None:
        return None
    index = int(found.group(5))
    if index >= MAX_CLAIMED_INDEX:
        return None
    run = _run(kind, found.group(1), found.group(2), found.group(3), found.group(4),
               index % 3, found.group(6) is not None)
    return None if run is None else (run, index)


@lru_cache(maxsize=4096)
def _run(kind: str, seed_text: str, b0: str, b1: str, b2: str, dealer: int,
         sessions: bool) -> _Run | None:
    """The run of a claim's tags (bots by seat at ``dealer``), or None when they name none
    (cached: a file holds a few runs, in a million lines)."""
    from skatlog.engine.batch.games import UnknownBot, compiled_bot

    seed = int(seed_text)
    if seed >= 1 << 63:
        return None
    try:
        for bot in (b0, b1, b2):
            if not compiled_bot(bot):  # rules:SETTING+... is a bot too; pimc is not re-run
                return None
    except UnknownBot:
        return None
    return kind, seed, position_bots((b0, b1, b2), dealer), sessions


@lru_cache(maxsize=4096)
def _run_of_bytes(seed: bytes, b0: bytes, b1: bytes, b2: bytes, dealer: int,
                  sessions: bool) -> _Run | None:
    """:func:`_run` of an ISS claim's tags as bytes (cached by them)."""
    return _run("sgf", seed.decode(), b0.decode(), b1.decode(), b2.decode(), dealer, sessions)


def match_records(raws: Sequence[RawRecord], rules: Rules | None = None
                  ) -> dict[int, MatchedGame]:
    """The records of ``raws`` (by position) that are exactly the simulator's line of the
    hand they claim, each as a :class:`~.simulated.MatchedGame`; one ``simulate_batch``
    call per stretch of claimed hands of a run (:func:`~.simulated._spans`)."""
    from skatlog.engine.jit import HAVE_NUMBA

    if not HAVE_NUMBA:  # no simulator: every claim is checked the reference way
        return {}
    runs: dict[_Run, list[tuple[int, int]]] = defaultdict(list)
    for k, raw in enumerate(raws):
        claim = _claim(raw, rules)
        if claim is not None:
            runs[claim[0]].append((claim[1], k))
    out: dict[int, MatchedGame] = {}
    if not runs:  # no line claims a hand: the simulator is not even imported (0.3-0.6 s)
        return out
    from skatlog.engine.batch import simulate_batch

    from .sim_text import batch_lines, program

    for (kind, seed, bots, sessions), items in runs.items():
        items.sort()
        prog = program(kind, seed, bots, sessions)
        at = 0
        for begin, end in _spans(sorted({index for index, _ in items})):
            batch = simulate_batch(seed, begin, end - begin, bots)
            lines = batch_lines(batch, prog).decode("utf-8").split("\n")
            span = SimulatedSpan(batch, sessions)
            while at < len(items) and items[at][0] < end:
                index, k = items[at]
                at += 1
                raw = raws[k]
                if raw.text == lines[index - begin]:
                    out[k] = MatchedGame(source=raw.source, line=raw.line, raw="",
                                         format=raw.format, span=span, row=index - begin)
    return out


def match_lines(chunk: bytes, starts: np.ndarray, ends: np.ndarray, candidates: np.ndarray,
                ingest_id: str | None) -> tuple[np.ndarray, list[dict[str, pa.Table]]]:
    """The ISS lines of ``chunk`` (``chunk[starts[k]:ends[k]]``, one record each; only those
    of mask ``candidates`` are looked at) that are exactly the simulator's line of the hand
    they claim, found as :func:`match_records` finds them but without making a record of
    any line: one regex search in each candidate line, one ``simulate_batch`` call per
    stretch of claimed hands, whole lines compared as bytes. Returns the mask of matched
    lines and the simulator's tables of those hands (``games`` rows in line order per
    stretch, repeats kept, as :func:`~.simulated.reproduce` gives them)."""
    from skatlog.engine.jit import HAVE_NUMBA

    matched = np.zeros(len(starts), dtype=bool)
    if not HAVE_NUMBA or not candidates.any():
        return matched, []
    whole = _one_stretch(chunk, starts, ends, candidates, ingest_id)
    if whole is not None:
        return np.ones(len(starts), dtype=bool), [whole]
    begins, finish = starts.tolist(), ends.tolist()
    runs: dict[_Run, list[tuple[int, int]]] = defaultdict(list)
    # only the candidate lines are searched (a claim never spans a newline): a regex pass
    # over the whole chunk cost about 2 ms a chunk of mostly other programs' lines
    for k in np.flatnonzero(candidates).tolist():
        m = ISS_CLAIM_BYTES.search(chunk, begins[k], finish[k])
        if m is None:
            continue
        seed, b0, b1, b2, hand, sessions = m.groups()
        index = int(hand)
        if index >= MAX_CLAIMED_INDEX:
            continue
        run = _run_of_bytes(seed, b0, b1, b2, index % 3, sessions is not None)
        if run is not None:
            runs[run].append((index, k))
    if not runs:  # no claim: the simulator is not even imported (0.2-0.3 s a process)
        return matched, []
    from skatlog.engine.batch import simulate_batch

    from .sim_text import batch_lines, program

    tables: list[dict[str, pa.Table]] = []
    for (kind, seed, bots, sessions), items in runs.items():
        items.sort()
        prog = program(kind, seed, bots, sessions)
        at = 0
        for begin, end in _spans(sorted({index for index, _ in items})):
            batch = simulate_batch(seed, begin, end - begin, bots)
            lines = batch_lines(batch, prog).split(b"\n")
            rows: list[int] = []
            while at < len(items) and items[at][0] < end:
                index, k = items[at]
                at += 1
                line = chunk[begins[k]:finish[k]].strip()
                if line == lines[index - begin] and b"#" not in line:
                    matched[k] = True
                    rows.append(index - begin)
            if rows:
                tables.append(_rows_of(SimulatedSpan(batch, sessions).tables(ingest_id), rows))
    return matched, tables


def _one_stretch(chunk: bytes, starts: np.ndarray, ends: np.ndarray, candidates: np.ndarray,
                 ingest_id: str | None) -> dict[str, pa.Table] | None:
    """The common case of :func:`match_lines` at the cost of one comparison: every line of
    the chunk is a candidate, and the lines together are byte for byte the simulator's lines
    of consecutive hands of one run, from the hand the first line claims. Then each line is
    the simulator's line of the hand it claims itself (its claim is part of those bytes), the
    same verdict as line by line. Returns the simulator's tables of those hands, or None
    (then the lines are matched one by one)."""
    count = len(starts)
    if not count or count > MAX_SPAN or not candidates.all():
        return None
    begin, end = int(starts[0]), int(ends[-1])
    found = ISS_CLAIM_BYTES.search(chunk, begin, int(ends[0]))
    if found is None:
        return None
    seed, b0, b1, b2, hand, sessions = found.groups()
    first = int(hand)
    if first + count > MAX_CLAIMED_INDEX:
        return None
    run = _run_of_bytes(seed, b0, b1, b2, first % 3, sessions is not None)
    if run is None:
        return None
    from skatlog.engine.batch import simulate_batch

    from .sim_text import batch_lines, program

    kind, run_seed, bots, with_sessions = run
    batch = simulate_batch(run_seed, first, count, bots)
    lines = batch_lines(batch, program(kind, run_seed, bots, with_sessions))
    block = chunk[begin:end]
    if len(lines) != len(block) + 1 or lines[:-1] != block or b"#" in block:
        return None
    return dict(SimulatedSpan(batch, with_sessions).tables(ingest_id))


def warm_up_matching() -> None:
    """Load the simulator and the line writer (compiled) that :func:`match_lines` uses, so
    that worker processes forked afterwards have them loaded."""
    from skatlog.engine.batch import simulate_batch
    from skatlog.engine.jit import HAVE_NUMBA

    from .sim_text import batch_lines, program

    if HAVE_NUMBA:
        bots = ("rules", "random", "rules")
        SimulatedSpan(simulate_batch(1, 0, 3, bots), False).tables(None)
        batch_lines(simulate_batch(1, 0, 3, bots), program("sgf", 1, bots, False))


def presimulated(raws: Iterable[RawRecord], rules: Rules | None = None,
                 window: int = WINDOW) -> Iterator[LogGame]:
    """The records of ``raws`` as validated games, in order: the simulator's own lines as
    :class:`~.simulated.MatchedGame` (:func:`match_records`), every other one parsed and
    replayed as :func:`~.validate.iter_log_games` does."""
    from .validate import parse_raw, replay_parsed

    buffer: list[RawRecord] = []

    def drain() -> Iterator[LogGame]:
        matched = match_records(buffer, rules)
        for k, raw in enumerate(buffer):
            game = matched.get(k)
            yield game if game is not None else replay_parsed(parse_raw(raw, rules))
        buffer.clear()

    for raw in raws:
        buffer.append(raw)
        if len(buffer) >= window:
            yield from drain()
    if buffer:
        yield from drain()


def iter_ingest_games(paths: Iterable[str | Path] | str | Path, fmt: str = "auto",
                      rules: Rules | None = None) -> Iterator[LogGame]:
    """:func:`~.validate.iter_log_games` for ingest: the same games, with the records that
    are the simulator's own lines matched in batches (:func:`presimulated`). Only ingest
    reads :class:`~.simulated.MatchedGame` values; ``validate`` keeps the full replay."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    for path in expand_paths(paths):
        yield from presimulated(iter_records(path, fmt), rules)
