"""Cards, suits and ranks (R1) as small immutable values, with ISS notation and bitmasks.

A card is an integer 0..31 (``suit * 8 + rank``) so that a hand is a 32-bit mask; the
:class:`Card` enum gives those integers names (``Card.CJ``) and the ISS round trip
(``Card.from_iss("ST") is Card.ST``, ``str(Card.ST) == "ST"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum

from . import core


class Suit(IntEnum):
    """The four suits, ordered by rank: clubs > spades > hearts > diamonds (R1)."""

    DIAMONDS = 0
    HEARTS = 1
    SPADES = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        """The ISS letter: ``D H S C``."""
        return SUIT_LETTERS[self]


class Rank(IntEnum):
    """The eight ranks in ISS notation order ``7 8 9 T J Q K A``."""

    SEVEN = 0
    EIGHT = 1
    NINE = 2
    TEN = 3
    JACK = 4
    QUEEN = 5
    KING = 6
    ACE = 7

    @property
    def letter(self) -> str:
        """The ISS letter: ``7 8 9 T J Q K A``."""
        return RANK_LETTERS[self]


SUIT_LETTERS = "DHSC"
RANK_LETTERS = "789TJQKA"

#: Card points per rank (R1): A 11, 10 10, K 4, Q 3, J 2, 9/8/7 0 (from the rules core).
RANK_POINTS = core.RANK_POINTS


class CardError(ValueError):
    """A card name that is not one of the 32 cards (e.g. ``??`` or ``X9``)."""


class Card(IntEnum):
    """One of the 32 cards; its value is ``suit * 8 + rank``, its name the ISS notation."""

    D7 = 0
    D8 = 1
    D9 = 2
    DT = 3
    DJ = 4
    DQ = 5
    DK = 6
    DA = 7
    H7 = 8
    H8 = 9
    H9 = 10
    HT = 11
    HJ = 12
    HQ = 13
    HK = 14
    HA = 15
    S7 = 16
    S8 = 17
    S9 = 18
    ST = 19
    SJ = 20
    SQ = 21
    SK = 22
    SA = 23
    C7 = 24
    C8 = 25
    C9 = 26
    CT = 27
    CJ = 28
    CQ = 29
    CK = 30
    CA = 31

    @classmethod
    def of(cls, suit: Suit, rank: Rank) -> Card:
        """The card of ``suit`` and ``rank``."""
        return cls(suit * 8 + rank)

    @classmethod
    def from_iss(cls, text: str) -> Card:
        """Parse ISS notation (``CJ``, ``ST``, ``D7``); raises :class:`CardError` otherwise."""
        card = _BY_NAME.get(text)
        if card is None:
            raise CardError(f"not a card: {text!r}")
        return card

    @property
    def suit(self) -> Suit:
        """The printed suit (a jack's effective suit depends on the contract, see tricks)."""
        return Suit(self >> 3)

    @property
    def rank(self) -> Rank:
        return Rank(self & 7)

    @property
    def points(self) -> int:
        """Card points (R1)."""
        return CARD_POINTS[self]

    @property
    def mask(self) -> int:
        """This card's bit in a 32-bit hand mask."""
        return 1 << self

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Card.{self.name}"


_BY_NAME: dict[str, Card] = {card.name: card for card in Card}

#: All 32 cards in index order.
DECK: tuple[Card, ...] = tuple(Card)
#: Card points by card index; they total 120 (R1).
CARD_POINTS: tuple[int, ...] = tuple(int(p) for p in core.POINTS)


def mask_of(cards: Iterable[int]) -> int:
    """The 32-bit mask of ``cards``."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> list[Card]:
    """The cards in ``mask``, lowest index first."""
    return [DECK[i] for i in iter_bits(mask)]


def iter_bits(mask: int) -> Iterator[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def points_of(mask: int) -> int:
    """The card points in ``mask`` (R1)."""
    return int(core.mask_points(mask))


def parse_cards(text: str, sep: str = ".") -> list[Card]:
    """Parse ``CJ.ST.D7`` into cards; raises :class:`CardError` on an unknown card."""
    if not text:
        return []
    return [Card.from_iss(part) for part in text.split(sep)]


def format_cards(cards: Iterable[int], sep: str = ".") -> str:
    """Format cards as ISS notation joined by ``sep``."""
    return sep.join(DECK[c].name for c in cards)
