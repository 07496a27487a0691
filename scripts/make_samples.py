"""Generate the sample club logs shipped in data/samples/ (every game played by skatlog).

    .venv/bin/python scripts/make_samples.py [--out data/samples]

Writes three files:
- ``skatfreunde-nord.sgf``: four 12-hand sessions in the ISS format, rules bots;
- ``club-am-markt.jsonl``: three 12-hand sessions in skatlog's own format with club and table;
- ``damaged.sgf``: real-looking ISS records each broken in one way (a revoke, an illegal bid,
  a card the player does not hold, a ``??`` card, a cut-off record, a wrong recorded value,
  a syntax error), to show how validation reports and quarantines bad games.
The output is deterministic: the same script gives the same files.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from skatlog.engine import RandomPlayer, play_session
from skatlog.engine.bots import RulesPlayer
from skatlog.engine.session import Session
from skatlog.ingest.iss import format_iss, recorded_from_result
from skatlog.ingest.jsonl import game_object
from skatlog.ingest.model import GameMeta

NORD = ("Heinz", "Monika", "Uwe")
MARKT = ("Jutta", "Karl-Heinz", "Sabine")


def session_metas(session: Session, session_id: str, start: datetime, club: str = "",
                  table: str = "") -> list[GameMeta]:
    """Meta data per hand: who sat Forehand/Middlehand/Rearhand as the deal rotated (R1, R2)."""
    metas = []
    for hand in session.hands:
        names = tuple(session.players[p] for p in hand.seats)
        metas.append(GameMeta(
            players=names,  # type: ignore[arg-type]
            played_at=start + timedelta(minutes=6 * (hand.number - 1)),
            record_id=f"{session_id}-{hand.number:02d}", session_id=session_id,
            hand_no=hand.number, club=club, table=table, dealer=2,
        ))
    return metas


def club_sessions(names: tuple[str, str, str], count: int, seed: int, prefix: str,
                  start: datetime, club: str = "", table: str = ""):
    bots = (RulesPlayer(), RulesPlayer(), RandomPlayer(step_bids=True))
    for n in range(count):
        session = play_session(names, bots, seed + n)
        day = start + timedelta(days=7 * n)
        yield session, session_metas(session, f"{prefix}{n + 1}", day, club, table)


def iss_lines(sessions) -> list[str]:
    lines = []
    for session, metas in sessions:
        for hand, meta in zip(session.hands, metas, strict=True):
            record = hand.record
            lines.append(format_iss(record, meta, recorded_from_result(record)))
    return lines


def damaged_lines(good: list[str]) -> list[str]:
    """One broken copy of a good record per error class, each with a comment saying how."""
    played = [line for line in good if "R[d:" in line and " loss " not in line]
    base = next(line for line in played if _find_revoke(_moves(line)) is not None)
    moves = _moves(base)
    broken: list[tuple[str, str]] = []

    def with_moves(new_moves: list[str], line: str = base) -> str:
        start = line.index("MV[") + 3
        return line[:start] + " ".join(new_moves) + line[line.index("]", start):]

    first_card = _first_card(moves)
    revoke = _find_revoke(moves)
    assert revoke is not None
    broken.append(("a revoke: a card that does not follow suit", with_moves(revoke)))
    bid = list(moves)
    first_bid = next(i for i in range(2, len(bid), 2) if bid[i + 1].isdigit())
    bid[first_bid + 1] = "19"
    broken.append(("an illegal bid: 19 is not on the ladder", with_moves(bid)))
    stolen = list(moves)
    seat = int(stolen[first_card])
    deal = moves[1].split(".")
    other = deal[((seat + 1) % 3) * 10]
    stolen[first_card + 1] = other
    broken.append(("a card the player does not hold", with_moves(stolen)))
    unknown = list(moves)
    unknown[first_card + 1] = "??"
    broken.append(("an unknown card '??'", with_moves(unknown)))
    broken.append(("a record cut off after three cards", with_moves(moves[:first_card + 6])))
    value_at = base.index(" v:") + 3
    value_end = base.index(" ", value_at)
    wrong = base[:value_at] + str(int(base[value_at:value_end]) + 10) + base[value_end:]
    broken.append(("a recorded value 10 points off", wrong))
    broken.append(("a syntax error: the move list is not closed", base.replace("]R[", " R[", 1)))
    lines = []
    for why, line in broken:
        lines.append(f"# damaged on purpose: {why}")
        lines.append(line)
    return lines


def _moves(line: str) -> list[str]:
    """The MV tokens: ``w``, the deal, then ``seat action`` pairs."""
    start = line.index("MV[") + 3
    return line[start:line.index("]", start)].split()


def _first_card(moves: list[str]) -> int:
    """Index of the seat token of the first card play."""
    return next(i for i in range(2, len(moves), 2)
                if moves[i] in "012" and len(moves[i + 1]) == 2
                and moves[i + 1][0] in "CSHD" and moves[i + 1][1] in "789TJQKA")


def _find_revoke(moves: list[str]) -> list[str] | None:
    """Swap the second card of the first trick for another card of that seat that revokes."""
    first_card = _first_card(moves)
    deal = moves[1].split(".")
    second = first_card + 2
    seat = int(moves[second])
    led = moves[first_card + 1]
    hand = deal[seat * 10:seat * 10 + 10]
    for card in hand:
        follows = moves[second + 1][0] == led[0] and moves[second + 1][1] != "J"
        if follows and card != moves[second + 1] and card[0] != led[0] and card[1] != "J":
            revoked = list(moves)
            revoked[second + 1] = card
            return revoked
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("data/samples"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    nord = list(club_sessions(NORD, 4, 1001, "nord-2026-", datetime(2026, 10, 2, 18, 30,
                                                                      tzinfo=UTC)))
    nord_lines = iss_lines(nord)
    (args.out / "skatfreunde-nord.sgf").write_text("\n".join(nord_lines) + "\n")
    markt = club_sessions(MARKT, 3, 2001, "markt-2026-", datetime(2026, 10, 6, 19, 0,
                                                                   tzinfo=UTC),
                          club="Club am Markt", table="Tisch 1")
    json_lines = []
    for session, metas in markt:
        for hand, meta in zip(session.hands, metas, strict=True):
            record = hand.record
            obj = game_object(record, meta, recorded_from_result(record))
            json_lines.append(json.dumps(obj, ensure_ascii=False))
    (args.out / "club-am-markt.jsonl").write_text("\n".join(json_lines) + "\n")
    (args.out / "damaged.sgf").write_text("\n".join(damaged_lines(nord_lines)) + "\n")
    print(f"wrote {len(nord_lines)} ISS games, {len(json_lines)} skatlog/1 games and "
          f"7 damaged records to {args.out}")


if __name__ == "__main__":
    main()
