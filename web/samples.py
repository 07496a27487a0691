"""Sample club logs played by the engine, for trying the upload page and for its tests.

``python -m skatlog.web.samples --games 36 > club-night.sgf`` writes an ISS log of random legal
play; ``--format jsonl`` the skatlog format. The text comes from the ingest writers
(:func:`skatlog.ingest.iss.format_iss`, :func:`skatlog.ingest.jsonl.game_object`), so it is
exactly what the validator reads back.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from skatlog.engine import ISKO, ISKO_ISS, GameState, RandomPlayer, seeded_deal
from skatlog.engine.record import GameRecord
from skatlog.ingest.model import GameMeta

DEFAULT_PLAYERS = ("Anna", "Ben", "Clara")


def sample_records(games: int, seed: int, *, recorded: bool = True) -> list[GameRecord]:
    """``games`` hands of random legal play (sensible auctions), reproducible from ``seed``.

    ``recorded=True`` plays under the recorded-log rules (R17's early endings, R7) that the
    validator applies to ISS records; skatlog JSONL games are replayed under the plain rules.
    """
    rng = random.Random(seed)
    bot = RandomPlayer(step_bids=True)
    records = []
    for i in range(games):
        state = GameState(seeded_deal(seed * 1_000_003 + i), rules=ISKO_ISS if recorded else ISKO)
        while not state.finished:
            state.apply(bot.choose(state, rng))
        records.append(GameRecord.from_state(state))
    return records


def sample_log(
    games: int = 12,
    seed: int = 1,
    players: Sequence[str] = DEFAULT_PLAYERS,
    fmt: str = "iss",
    session: str = "",
) -> str:
    """A log of ``games`` engine-played hands in ``fmt`` (``iss`` or ``jsonl``), one per line.

    Seats rotate each hand as at a real table (R1); ids are unique per ``seed`` and ``session``,
    so the same call twice gives the same games (duplicates on a second upload).
    """
    from skatlog.ingest.iss import format_iss, recorded_from_result
    from skatlog.ingest.jsonl import game_object

    session = session or f"sample{seed}"
    start = datetime(2026, 11, 1, 19, 0, tzinfo=UTC)
    lines = []
    for number, record in enumerate(sample_records(games, seed, recorded=fmt == "iss")):
        shift = number % 3
        seated = tuple(players[(shift + k) % 3] for k in range(3))
        meta = GameMeta(players=seated, played_at=start + timedelta(minutes=4 * number),  # type: ignore[arg-type]
                        record_id=f"{session}-{number + 1}", session_id=session,
                        hand_no=number % 12 + 1)
        recorded = recorded_from_result(record)
        if fmt == "iss":
            lines.append(format_iss(record, meta, recorded))
        elif fmt == "jsonl":
            lines.append(json.dumps(game_object(record, meta, recorded), ensure_ascii=False))
        else:
            raise ValueError(f"unknown sample format {fmt!r}: iss or jsonl")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--format", choices=("iss", "jsonl"), default="iss")
    parser.add_argument("--players", default=",".join(DEFAULT_PLAYERS))
    args = parser.parse_args(argv)
    names = [p.strip() for p in args.players.split(",")]
    if len(names) != 3:
        parser.error("--players takes three comma-separated names")
    sys.stdout.write(sample_log(args.games, args.seed, names, args.format))


if __name__ == "__main__":
    main()
