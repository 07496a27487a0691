"""Synthetic ISS corpora: random legal games played by the engine, written as ISS lines.

Used by ``bench/ingest.py`` (a million-game file) and the differential tests. Games are
played under the recorded-log rules (``GameState(rules=ISKO_ISS)``, so R17's early endings
apply exactly as when the lines are read back) by :class:`~skatlog.engine.RandomPlayer`;
with ``concessions`` the players also resign, show cards, time out and leave at random
moments (R17). Lines are written by the ISS writer (:func:`skatlog.ingest.iss.format_iss`)
with the result the engine computed, so every line is valid and its ``R[...]`` is right.
"""

from __future__ import annotations

import multiprocessing as mp
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from skatlog.engine import (
    ISKO_ISS,
    GameRecord,
    GameState,
    Leave,
    RandomPlayer,
    Resign,
    RuleError,
    ShowCards,
    TimeOut,
    deal_cards,
)
from skatlog.engine.moves import Move

from ..iss import format_iss, recorded_from_result
from ..model import GameMeta

NAMES = ("zoot", "kermit", "foo", "xskat", "xskat:2", "bernie", "theCount", "@9WScnU3",
         "bonsai", "Müller", "Grüße", "SkatAI")
EPOCH = datetime(2012, 1, 1, tzinfo=UTC)


def random_record(rng: random.Random, *, concessions: float = 0.0) -> GameRecord:
    """One random legal game under the recorded-log rules (R17).

    ``concessions`` is the chance, before each move, of a resign / show cards / time-out /
    leave instead (applied only when the rules allow it).
    """
    state = GameState(deal_cards(rng), rules=ISKO_ISS)
    player = RandomPlayer(step_bids=True)
    while not state.finished:
        if concessions and rng.random() < concessions:
            seat = rng.randrange(3)
            kind = rng.choice((Resign, Resign, ShowCards, TimeOut, Leave))
            special: Move = kind(state.declarer if kind is ShowCards and state.declarer
                                 is not None else seat)
            try:
                state.apply(special)
                continue
            except RuleError:
                pass
        state.apply_unchecked(player.choose(state, rng))
    return GameRecord.from_state(state)


def iss_line(record: GameRecord, index: int, rng: random.Random) -> str:
    """The ISS archive line of ``record`` as game number ``index`` (names, ids, date)."""
    players = rng.sample(NAMES, 3)
    meta = GameMeta(
        players=(players[0], players[1], players[2]),
        played_at=EPOCH + timedelta(seconds=97 * index),
        record_id=str(1_000_000 + index),
        session_id=str(50_000 + index // 12),
        dealer=2,
    )
    return format_iss(record, meta, recorded_from_result(record))


def iter_lines(start: int, count: int, seed: int, concessions: float = 0.0) -> Iterator[str]:
    """Lines ``start`` .. ``start + count - 1`` of the corpus of ``seed`` (reproducible)."""
    for index in range(start, start + count):
        rng = random.Random(seed * 1_000_003 + index)
        yield iss_line(random_record(rng, concessions=concessions), index, rng)


def _write_part(args: tuple[Path, int, int, int, float]) -> Path:
    path, start, count, seed, concessions = args
    with path.open("w", encoding="utf-8") as out:
        for line in iter_lines(start, count, seed, concessions):
            out.write(line + "\n")
    return path


def write_corpus(path: str | Path, games: int, *, seed: int = 1, workers: int = 2,
                 concessions: float = 0.0) -> Path:
    """Write ``games`` random games as an ISS file (in ``workers`` processes); returns it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    per = -(-games // workers)
    jobs = [(path.with_name(f"{path.name}.part{k}"), k * per, min(per, games - k * per),
             seed, concessions) for k in range(workers) if k * per < games]
    with mp.get_context("fork").Pool(len(jobs)) as pool:
        parts = pool.map(_write_part, jobs)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as out:
        for part in parts:
            with part.open("rb") as src:
                while block := src.read(1 << 24):
                    out.write(block)
            part.unlink()
    tmp.replace(path)
    return path
