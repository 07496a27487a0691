"""Trick rules (R8) and matadors (R12) as tables computed once from readable rule functions.

``effective_suit`` and ``card_power`` state the rules; the tables below (one row per contract)
are what the hot paths index. The batch simulator exports the same tables as arrays.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card, Rank, Suit
from .contract import Contract

#: Effective-suit index of trumps (suits are 0..3).
TRUMP = 4

#: Order of plain (non-trump) cards in suit and grand games: A 10 K Q 9 8 7 (R8).
_PLAIN_ORDER = (Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.QUEEN, Rank.KING, Rank.TEN, Rank.ACE)
#: Null order: A K Q J 10 9 8 7, the 10 below the jack (R8).
_NULL_ORDER = (
    Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE,
)
#: Jacks in trump order, highest first: clubs, spades, hearts, diamonds (R8).
JACK_ORDER = (Card.CJ, Card.SJ, Card.HJ, Card.DJ)


def effective_suit(card: Card, contract: Contract) -> int:
    """The suit a card belongs to when following (R8): jacks are trumps except in null."""
    if contract is Contract.NULL:
        return card.suit
    if card.rank is Rank.JACK:
        return TRUMP
    if contract.is_suit and card.suit == contract:
        return TRUMP
    return card.suit


def card_power(card: Card, contract: Contract) -> int:
    """A strength that orders cards of one effective suit; trumps beat every plain card."""
    if contract is Contract.NULL:
        return _NULL_ORDER.index(card.rank)
    if card.rank is Rank.JACK:
        return 200 - JACK_ORDER.index(card)
    plain = _PLAIN_ORDER.index(card.rank)
    return 100 + plain if effective_suit(card, contract) == TRUMP else plain


def trump_sequence(contract: Contract) -> tuple[Card, ...]:
    """Trumps from the highest down, the sequence matadors are counted along (R12)."""
    if contract is Contract.NULL:
        return ()
    if contract is Contract.GRAND:
        return JACK_ORDER
    suit = Suit(int(contract))
    rest = tuple(Card.of(suit, rank) for rank in reversed(_PLAIN_ORDER))
    return JACK_ORDER + rest


#: EFFECTIVE[contract][card] -> effective suit 0..4.
EFFECTIVE: tuple[tuple[int, ...], ...] = tuple(
    tuple(effective_suit(card, contract) for card in Card) for contract in Contract
)
#: POWER[contract][card] -> strength within its effective suit.
POWER: tuple[tuple[int, ...], ...] = tuple(
    tuple(card_power(card, contract) for card in Card) for contract in Contract
)
#: FOLLOW_MASK[contract][effective suit] -> mask of the cards of that effective suit.
FOLLOW_MASK: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << c for c in range(32) if EFFECTIVE[contract][c] == s) for s in range(5))
    for contract in Contract
)


def legal_mask(hand_mask: int, led: int | None, contract: Contract) -> int:
    """The cards of ``hand_mask`` that may be played to a trick led by ``led`` (R8)."""
    if led is None:
        return hand_mask
    follow = hand_mask & FOLLOW_MASK[contract][EFFECTIVE[contract][led]]
    return follow if follow else hand_mask


def trick_winner(cards: Sequence[int], contract: Contract) -> int:
    """Index (0..2, in play order) of the card that wins the trick (R8)."""
    effective = EFFECTIVE[contract]
    power = POWER[contract]
    led_suit = effective[cards[0]]
    best = 0
    best_key = (effective[cards[0]] == TRUMP, power[cards[0]])
    for i in (1, 2):
        card = cards[i]
        suit = effective[card]
        if suit != TRUMP and suit != led_suit:
            continue
        key = (suit == TRUMP, power[card])
        if key > best_key:
            best, best_key = i, key
    return best


def matadors(cards_mask: int, contract: Contract) -> int:
    """Signed matadors (R12): +n "with n", -n "without n", over dealt hand plus skat; 0 in null."""
    sequence = trump_sequence(contract)
    if not sequence:
        return 0
    holds_top = bool(cards_mask >> sequence[0] & 1)
    count = 0
    for card in sequence:
        if bool(cards_mask >> card & 1) != holds_top:
            break
        count += 1
    return count if holds_top else -count
