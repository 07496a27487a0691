"""The deal (R1): three hands of ten and a skat of two, dealt 3 - skat 2 - 4 - 3."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import DECK, Card, format_cards, mask_of
from .errors import BadDeal


@dataclass(frozen=True, slots=True)
class Deal:
    """Forehand's, Middlehand's and Rearhand's ten cards and the two skat cards."""

    hands: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    skat: tuple[Card, Card]

    def __post_init__(self) -> None:
        if len(self.hands) != 3 or any(len(h) != 10 for h in self.hands) or len(self.skat) != 2:
            raise BadDeal("a deal is three hands of 10 cards and a skat of 2", rule="R1")
        if mask_of(self.cards) != (1 << 32) - 1:
            raise BadDeal("the deal does not hold each of the 32 cards exactly once", rule="R1")

    @classmethod
    def from_cards(cls, cards: Sequence[int]) -> Deal:
        """Build from 32 cards in ISS order: seat 0's ten, seat 1's, seat 2's, then the skat."""
        if len(cards) != 32:
            raise BadDeal(f"a deal has 32 cards, not {len(cards)}", rule="R1")
        c = [DECK[x] for x in cards]
        return cls((tuple(c[0:10]), tuple(c[10:20]), tuple(c[20:30])), (c[30], c[31]))

    def sorted(self) -> Deal:
        """The same deal with each hand and the skat in card order (index order, see
        :class:`Card`): the form of a deal whose dealing order is unknown or means nothing
        (simulated hands), which the archive stores without its list (only the masks)."""
        return Deal((tuple(sorted(self.hands[0])), tuple(sorted(self.hands[1])),
                     tuple(sorted(self.hands[2]))), (min(self.skat), max(self.skat)))

    @property
    def cards(self) -> tuple[Card, ...]:
        """All 32 cards in ISS order (the three hands, then the skat)."""
        return self.hands[0] + self.hands[1] + self.hands[2] + self.skat

    @property
    def iss(self) -> str:
        """The ISS deal text ``CJ.ST...`` (32 cards)."""
        return format_cards(self.cards)


def deal_cards(rng: random.Random) -> Deal:
    """Shuffle with ``rng`` and deal in the 3 - skat 2 - 4 - 3 rhythm, Forehand first (R1)."""
    pack = list(DECK)
    rng.shuffle(pack)
    hands: list[list[Card]] = [pack[0:3], pack[3:6], pack[6:9]]
    skat = (pack[9], pack[10])
    pos = 11
    for size in (4, 3):
        for seat in range(3):
            hands[seat] += pack[pos:pos + size]
            pos += size
    return Deal((tuple(hands[0]), tuple(hands[1]), tuple(hands[2])), skat)


def seeded_deal(seed: int) -> Deal:
    """The deal for ``seed`` (a fresh ``random.Random(seed)``), reproducible everywhere."""
    return deal_cards(random.Random(seed))
