"""Sessions (R2): exactly 12 hands, the deal moving one seat left each hand, ties shared."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from .deal import deal_cards
from .players import Player, play_hand
from .record import GameRecord

HANDS_PER_SESSION = 12


def seat_players(dealer: int) -> tuple[int, int, int]:
    """Table positions (0-2, clockwise) sitting Forehand, Middlehand, Rearhand (R1).

    Forehand sits left of the dealer; the dealer is Rearhand.
    """
    return ((dealer + 1) % 3, (dealer + 2) % 3, dealer)


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


@dataclass
class Session:
    """A 12-hand session among three players at table positions 0, 1, 2 (R2)."""

    players: tuple[str, str, str]
    first_dealer: int = 0
    hands: list[SessionHand] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return len(self.hands) == HANDS_PER_SESSION

    @property
    def next_dealer(self) -> int:
        """The deal moves one seat to the left each hand, skipped hands included (R2)."""
        return (self.first_dealer + len(self.hands)) % 3

    def add(self, record: GameRecord) -> SessionHand:
        """Add the next hand's record (its seats follow :attr:`next_dealer`)."""
        if self.complete:
            raise ValueError("a session has exactly 12 hands (R2)")
        hand = SessionHand(len(self.hands) + 1, self.next_dealer, record)
        self.hands.append(hand)
        return hand

    def totals(self) -> tuple[int, int, int]:
        """Sum of list values per player (R2); only the declarer scores (R16)."""
        totals = [0, 0, 0]
        for hand in self.hands:
            position = hand.declarer_position
            if position is not None:
                totals[position] += hand.record.result.value
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
) -> Session:
    """Play a full 12-hand session; ``bots[i]`` plays for table position ``i``."""
    rng = random.Random(seed)
    session = Session((players[0], players[1], players[2]))
    while not session.complete:
        seats = seat_players(session.next_dealer)
        deal = deal_cards(rng)
        record = play_hand(deal, (bots[seats[0]], bots[seats[1]], bots[seats[2]]), rng,
                           checked=checked)
        session.add(record)
    return session
