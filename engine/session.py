"""Sessions (R2): exactly 12 hands, the deal moving one seat left each hand, ties shared;
under the option ``bock`` the Bock rounds that notable hands earn (R21)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from . import core
from .deal import deal_cards
from .game import GameResult
from .players import Player, play_hand
from .record import GameRecord
from .rules import ISKO, Rules

HANDS_PER_SESSION = 12
#: R21: a Bock round is one hand per player at the table (the core's).
BOCK_ROUND_HANDS = core.BOCK_ROUND_HANDS


def seat_players(dealer: int) -> tuple[int, int, int]:
    """Table positions (0-2, clockwise) sitting Forehand, Middlehand, Rearhand (R1).

    Forehand sits left of the dealer; the dealer is Rearhand.
    """
    return ((dealer + 1) % 3, (dealer + 2) % 3, dealer)


def earns_bock(result: GameResult, rules: Rules) -> bool:
    """R21: whether a hand's result earns a Bock round (by the core's rule)."""
    score, declaration = result.score, result.declaration
    if score is None or declaration is None:
        return False
    plain = score.value // 2 if result.bock else score.value  # Kontra/Re counted, Bock not
    return bool(core.bock_earned(int(declaration.contract), result.declarer_points, score.won,
                                 result.kontra is not None, plain, rules.flags))


def bock_hands(results: Iterable[GameResult], rules: Rules) -> list[bool]:
    """R21: for each hand of a session in order, whether it is (and so must be) a Bock hand,
    followed by whether the next hand would be. A hand that earns a round adds
    :data:`BOCK_ROUND_HANDS` Bock hands after those already owed (rounds queue)."""
    owed = 0
    out = []
    for result in results:
        bock, owed = core.bock_step(owed, earns_bock(result, rules))
        out.append(bool(bock))
    out.append(owed > 0)
    return out


@dataclass(frozen=True, slots=True)
class SessionHand:
    """One hand of a session: its number (1-12), dealer and the hand's record."""

    number: int
    dealer: int
    record: GameRecord

    @property
    def seats(self) -> tuple[int, int, int]:
        return seat_players(self.dealer)

    @property
    def declarer_position(self) -> int | None:
        """The table position of the declarer, or None for a skipped hand."""
        seat = self.record.result.declarer
        return None if seat is None else self.seats[seat]

    @property
    def position_values(self) -> tuple[int, int, int]:
        """The list value of each table position in this hand (R16, R20)."""
        values = [0, 0, 0]
        for seat, value in enumerate(self.record.result.seat_values):
            values[self.seats[seat]] = value
        return (values[0], values[1], values[2])


@dataclass
class Session:
    """A 12-hand session among three players at table positions 0, 1, 2 (R2), played under
    ``rules`` (with ``bock``, the session decides which hands are Bock hands, R21)."""

    players: tuple[str, str, str]
    first_dealer: int = 0
    hands: list[SessionHand] = field(default_factory=list)
    rules: Rules = ISKO

    @property
    def complete(self) -> bool:
        return len(self.hands) == HANDS_PER_SESSION

    @property
    def next_dealer(self) -> int:
        """The deal moves one seat to the left each hand, skipped hands included (R2)."""
        return (self.first_dealer + len(self.hands)) % 3

    @property
    def next_bock(self) -> bool:
        """R21: whether the next hand is played in a Bock round."""
        if not self.rules.bock:
            return False
        return bock_hands((h.record.result for h in self.hands), self.rules)[-1]

    def add(self, record: GameRecord) -> SessionHand:
        """Add the next hand's record (its seats follow :attr:`next_dealer`); under ``bock``
        the record must be a Bock hand exactly when the session owes one (R21)."""
        if self.complete:
            raise ValueError("a session has exactly 12 hands (R2)")
        due = self.next_bock
        if record.bock != due:
            raise ValueError(f"hand {len(self.hands) + 1} is {'' if due else 'not '}a Bock"
                             f" hand of this session, but its record says"
                             f" {'bock' if record.bock else 'no bock'} (R21)")
        hand = SessionHand(len(self.hands) + 1, self.next_dealer, record)
        self.hands.append(hand)
        return hand

    def totals(self) -> tuple[int, int, int]:
        """Sum of list values per player (R2): the declarer's (R16), every player's in a
        Ramsch (R20)."""
        totals = [0, 0, 0]
        for hand in self.hands:
            for position, value in enumerate(hand.position_values):
                totals[position] += value
        return (totals[0], totals[1], totals[2])

    def winners(self) -> list[str]:
        """Every player with the highest total (ties shared, R2)."""
        totals = self.totals()
        best = max(totals)
        return [name for name, total in zip(self.players, totals, strict=False) if total == best]


def play_session(
    players: Sequence[str],
    bots: tuple[Player, Player, Player],
    seed: int,
    *,
    checked: bool = True,
    rules: Rules = ISKO,
) -> Session:
    """Play a full 12-hand session under ``rules``; ``bots[i]`` plays for table position
    ``i``."""
    rng = random.Random(seed)
    session = Session((players[0], players[1], players[2]), rules=rules)
    while not session.complete:
        seats = seat_players(session.next_dealer)
        deal = deal_cards(rng)
        record = play_hand(deal, (bots[seats[0]], bots[seats[1]], bots[seats[2]]), rng,
                           checked=checked, rules=rules, bock=session.next_bock)
        session.add(record)
    return session
