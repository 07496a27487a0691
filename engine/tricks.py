"""Trick rules (R8) and matadors (R12) for typed cards: a wrapper over the rules core.

The rules themselves are in :mod:`.core` (effective suits, card power, follow masks, the
trick winner, matadors); this module gives them :class:`~.cards.Card` and
:class:`~.contract.Contract` types, and the core's tables as tuples for Python callers.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import core
from .cards import DECK, Card
from .contract import Contract

#: Effective-suit index of trumps (suits are 0..3).
TRUMP = core.TRUMP
#: Jacks in trump order, highest first: clubs, spades, hearts, diamonds (R8).
JACK_ORDER: tuple[Card, ...] = tuple(DECK[c] for c in core.JACK_ORDER)

#: EFFECTIVE[contract][card] -> effective suit 0..4.
EFFECTIVE: tuple[tuple[int, ...], ...] = tuple(tuple(int(x) for x in row) for row in core.EFFECTIVE)
#: POWER[contract][card] -> strength within its effective suit.
POWER: tuple[tuple[int, ...], ...] = tuple(tuple(int(x) for x in row) for row in core.POWER)
#: FOLLOW_MASK[contract][effective suit] -> mask of the cards of that effective suit.
FOLLOW_MASK: tuple[tuple[int, ...], ...] = tuple(
    tuple(int(x) for x in row) for row in core.SUIT_MASK)


def effective_suit(card: Card, contract: Contract) -> int:
    """The suit a card belongs to when following (R8): jacks are trumps except in null."""
    return EFFECTIVE[contract][card]


def card_power(card: Card, contract: Contract) -> int:
    """A strength that orders cards of one effective suit; trumps beat every plain card."""
    return POWER[contract][card]


def trump_sequence(contract: Contract) -> tuple[Card, ...]:
    """Trumps from the highest down, the sequence matadors are counted along (R12)."""
    return tuple(DECK[c] for c in core.trump_sequence(int(contract)))


def legal_mask(hand_mask: int, led: int | None, contract: Contract) -> int:
    """The cards of ``hand_mask`` that may be played to a trick led by ``led`` (R8)."""
    follow = core.follow_mask(int(contract), -1 if led is None else int(led))
    return int(core.legal_cards(hand_mask, follow))


def trick_winner(cards: Sequence[int], contract: Contract) -> int:
    """Index (0..2, in play order) of the card that wins the trick (R8)."""
    return int(core.trick_winner(int(contract), int(cards[0]), int(cards[1]), int(cards[2])))


def matadors(cards_mask: int, contract: Contract) -> int:
    """Signed matadors (R12): +n "with n", -n "without n", over dealt hand plus skat; 0 in null."""
    return int(core.matadors(cards_mask, int(contract)))
