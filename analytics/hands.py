"""The declarer's cards as 32-bit masks in SQL, for questions about the hand that was bid on.

:func:`register_hands` defines the temporary view ``declarer_hands``: every game with a
declarer plus ``hand_mask`` (the declarer's ten dealt cards) and ``skat_mask`` (the two skat
cards); the helpers below build SQL conditions on those masks from the engine's card
numbering, so no card arithmetic is written by hand twice.
"""

from __future__ import annotations

import duckdb

from skatlog.engine import Card, Rank, Suit

SUITS = (Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES, Suit.CLUBS)
#: Contract labels of the four suit games, by suit number (diamonds=0 .. clubs=3).
SUIT_LABELS = ("diamonds", "hearts", "spades", "clubs")


def mask(*cards: Card) -> int:
    """The 32-bit mask of ``cards``."""
    out = 0
    for card in cards:
        out |= 1 << int(card)
    return out


JACKS = mask(*(Card.of(s, Rank.JACK) for s in SUITS))
ACES = mask(*(Card.of(s, Rank.ACE) for s in SUITS))
SEVENS = mask(*(Card.of(s, Rank.SEVEN) for s in SUITS))


def suit_mask(suit: Suit, *, with_jack: bool = False) -> int:
    """The cards of ``suit``; its jack only when ``with_jack`` (null keeps jacks in suit, R8)."""
    return mask(*(Card.of(suit, r) for r in Rank if with_jack or r is not Rank.JACK))


def count(column: str, bits: int) -> str:
    """SQL: how many of the cards in ``bits`` the mask ``column`` holds."""
    return f"bit_count({column} & {bits}::BIGINT)"


def holds(column: str, card: Card) -> str:
    """SQL: the mask ``column`` holds ``card``."""
    return f"({column} & {1 << int(card)}::BIGINT) <> 0"


def register_hands(con: duckdb.DuckDBPyConnection) -> None:
    """Define the temporary view ``declarer_hands`` (games with a declarer, plus masks).

    The ``games`` view has each seat's dealt cards as a 32-bit mask (``forehand_cards`` ...
    ``rearhand_cards`` stored, ``skat_cards`` computed); the declarer's is picked by seat
    (0 Forehand, 1 Middlehand, 2 Rearhand).
    """
    con.execute("""
        CREATE OR REPLACE TEMP VIEW declarer_hands AS
        SELECT *,
            (CASE declarer WHEN 0 THEN forehand_cards WHEN 1 THEN middlehand_cards
                           ELSE rearhand_cards END)::BIGINT AS hand_mask,
            skat_cards::BIGINT AS skat_mask
        FROM games WHERE declarer IS NOT NULL
    """)
