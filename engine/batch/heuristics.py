"""The ``rules`` bot's decisions as compiled functions over card masks.

One implementation serves both paths: the batch kernel calls these functions directly and
:class:`skatlog.engine.bots.RulesPlayer` calls them from Python with masks read off a
:class:`~skatlog.engine.game.GameState`, so the engine bot and the batch bot play the same
games (a test holds them equal). The advice comes from the user's rule texts: the "Strategy"
section of the modern rules and Foster's "Suggestions for good play".

Every decision is deterministic (ties go to the lowest card index), so a hand's play depends
only on its deal. Two deliberate sources of variety let the strategy report test the advice
on comparable hands: null is declared with one risky card kept (:data:`NULL_RISK`), and half
the hands, by a hash of the cards, bid a "without" hand to its full value (:func:`bold`).
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..jit import njit
from .tables import (
    BASE_T,
    DECL_T,
    EFFECTIVE_T,
    FOLLOW_T,
    LADDER_T,
    N_DECL,
    NULL,
    NULL_ORDER_T,
    POINTS_T,
    POWER_T,
    TRUMP_LEN_T,
    TRUMP_SEQ_T,
)

FULL = (1 << 32) - 1
TRUMP = 4
GRAND = 4

#: Strength (estimated tricks' worth, see :func:`strength`) a game needs after the skat.
THRESHOLD = np.array([4.0, 4.0, 4.0, 4.0, 4.8], dtype=np.float64)
#: What the skat adds on average, when judging a hand before seeing it, by contract: a suit
#: game gains a trump or lays away a bare ten; a grand "needs jacks and aces" (modern rules
#: "Strategy") and is bid only on what the hand already holds. The suit figure is generous:
#: "a certain amount of risk must be taken in all bids ... the player who offers the most
#: games will usually win the most" (Foster).
SKAT_BONUS = np.array([1.0, 1.0, 1.0, 1.0, 0.0], dtype=np.float64)
#: Extra strength needed to play without the skat (hand game, one more multiplier).
HAND_MARGIN = 1.5
#: Extra strength needed to announce schneider in a hand game.
SCHNEIDER_MARGIN = 3.5
#: Forehand leads the first trick: worth something in grand (Foster).
GRAND_LEAD_BONUS = 0.5
#: Risky cards (see :func:`null_danger`) a null may keep: "a certain amount of risk must be
#: taken in all bids, and a player who never offers a game that is not perfectly safe is
#: called a Maurer" (Foster) -- one hole the defenders may or may not find.
NULL_RISK = 1


# ------------------------------------------------------------------ bit helpers
@njit
def popcount(x: int) -> int:
    """Number of set bits of a 32-bit mask."""
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@njit
def lowest_bit(x: int) -> int:
    """Index of the lowest set bit (x != 0)."""
    return popcount((x & -x) - 1)


@njit
def has(mask: int, card: int) -> bool:
    return (mask >> card) & 1 == 1


@njit
def decl_index(contract: int, hand: int, schneider: int, schwarz: int, ouvert: int) -> int:
    """Index into :data:`~.tables.DECL_T` of a legal declaration, -1 if there is none."""
    for i in range(N_DECL):
        row = DECL_T[i]
        if (row[0] == contract and row[1] == hand and row[2] == schneider
                and row[3] == schwarz and row[4] == ouvert):
            return i
    return -1


#: Signed matadors (R12), the rules core's count.
matadors = core.matadors


# ------------------------------------------------------------- hand evaluation
@njit
def strength(hand: int, contract: int) -> float:
    """Estimated winning power of a 10-card hand in a suit or grand game.

    Trumps count by how many higher trumps are missing (the jacks first: "count jacks
    first"); long trump suits win more tricks once the defenders are drawn. Side suits count
    aces, tens guarded by their ace and solid long suits (in grand "jacks and aces, not
    length" plus long A-10 suits); a bare ten is a gift to the defenders, a void lets a suit
    declarer trump (Foster, modern rules "Strategy").
    """
    w = 0.0
    missing = 0
    n_trumps = 0
    for i in range(TRUMP_LEN_T[contract]):
        card = TRUMP_SEQ_T[contract, i]
        if has(hand, card):
            n_trumps += 1
            if missing == 0:
                w += 1.0
            elif missing == 1:
                w += 0.6
            elif missing == 2:
                w += 0.35
            else:
                w += 0.2
        else:
            missing += 1
    if contract != GRAND:
        if n_trumps > 4:
            w += 0.3 * (n_trumps - 4)
        else:
            w -= 1.2 * (5 - n_trumps)  # a suit game wants five trumps or more
    else:
        if n_trumps < 2:
            w -= 1.5 * (2 - n_trumps)  # "grand needs jacks"
    for suit in range(4):
        if contract != GRAND and suit == contract:
            continue
        cards = hand & FOLLOW_T[contract, suit]
        n = popcount(cards)
        if n == 0:
            if contract != GRAND and n_trumps >= 5:
                w += 0.3
            continue
        ace = has(cards, suit * 8 + 7)
        ten = has(cards, suit * 8 + 3)
        king = has(cards, suit * 8 + 6)
        if ace:
            w += 1.0
        if ten:
            if ace:
                w += 0.8
            elif n >= 3 or (n == 2 and king):
                w += 0.3
            else:
                w -= 0.4
        if ace and ten and king:
            w += 0.4
        if contract == GRAND and ace and ten and n >= 4:
            w += 0.6 * (n - 3)
    return w


@njit
def null_danger(hand: int, ouvert: bool) -> int:
    """How many cards can be forced to take a trick in null (R8's null order).

    "Null wants sevens": the i-th lowest card held in a suit (0-based) is safe when its
    null rank is at most 2i (7; then up to the 9; ...). Ouvert is judged stricter, since the
    defenders see the hand: rank at most 3i/2.
    """
    danger = 0
    for suit in range(4):
        i = 0
        for rank in range(8):
            if has(hand, NULL_ORDER_T[suit, rank]):
                limit = (3 * i) // 2 if ouvert else 2 * i
                if rank > limit:
                    danger += 1
                i += 1
    return danger


@njit
def bidding_multiplier(hand: int, contract: int) -> int:
    """Multiplier the declarer can count on before seeing the skat: "bid below your
    matadors" -- a "without" count may shrink when a top trump lies in the skat."""
    mats = matadors(hand, contract)
    if mats >= 0:
        return mats + 1
    return max(2, -mats)


@njit
def bold(hand: int) -> bool:
    """The bot's temperament for this hand: bold or cautious, half and half by a hash of the
    dealt cards (deterministic, independent of the hand's strength).

    The modern rules advise "bid below your matadors ... leave one multiplier of slack" for
    a "without" hand, since a jack in the skat can shrink the count; Foster warns that "a
    certain amount of risk must be taken in all bids, and a player who never offers a game
    that is not perfectly safe is called a Maurer". The cautious bot follows the first, the
    bold one bids the full value; mixing them on equal terms lets the strategy report compare
    both styles on comparable hands.
    """
    return ((hand * 0x9E3779B1) & 0xFFFFFFFF) >> 31 == 1


@njit
def bid_limit(hand: int, seat: int) -> int:
    """The highest value this 10-card hand bids to (0: it does not bid at all)."""
    best = 0
    for contract in range(5):
        s = strength(hand, contract)
        if contract == GRAND and seat == 0:
            s += GRAND_LEAD_BONUS
        if s + SKAT_BONUS[contract] < THRESHOLD[contract]:
            continue
        mult = bidding_multiplier(hand, contract)
        mats = matadors(hand, contract)
        if mats < 0 and bold(hand):
            mult = 1 - mats  # the bold temperament bids a "without" hand to its full value
        if s >= THRESHOLD[contract] + HAND_MARGIN:
            mult += 1  # worth a hand game
        best = max(best, BASE_T[contract] * mult)
    danger = null_danger(hand, False)
    if danger <= NULL_RISK + 1:
        best = max(best, 23)  # the two discards can lay away one more risky card
    if danger == 0:
        best = max(best, 35)  # a hand null must be safe: lost, it costs 70
    if null_danger(hand, True) == 0:
        best = max(best, 59)
    return best


@njit
def auction_call(hand: int, seat: int, bid: int, listening: bool, forehand_alone: bool) -> int:
    """The rules bot's call: a bid value, 1 to hold, 0 to pass (R3, R4).

    It bids the next value on the ladder, holds while the bid is within its limit and passes
    beyond it; Forehand alone (both others passed) takes the game at 18 when it can.
    """
    limit = bid_limit(hand, seat)
    if forehand_alone:
        return 18 if limit >= 18 else 0
    if listening:
        return 1 if bid <= limit else 0
    for value in LADDER_T:
        if value > bid:
            return value if value <= limit else 0
    return 0


@njit
def hand_game(hand: int, bid: int, seat: int) -> int:
    """A hand declaration (index into DECL_T) worth playing without the skat, or -1."""
    best_value = 0
    best = -1
    for contract in range(5):
        s = strength(hand, contract)
        if contract == GRAND and seat == 0:
            s += GRAND_LEAD_BONUS
        if s < THRESHOLD[contract] + HAND_MARGIN:
            continue
        mult = bidding_multiplier(hand, contract) + 1
        schneider = s >= THRESHOLD[contract] + SCHNEIDER_MARGIN
        if schneider:
            mult += 2  # schneider announced and reached (R13)
        value = BASE_T[contract] * mult
        if value >= bid and value > best_value:
            best_value = value
            best = decl_index(contract, 1, 1 if schneider else 0, 0, 0)
    if null_danger(hand, True) == 0 and bid <= 59 and best_value < 59:
        best_value = 59
        best = decl_index(NULL, 1, 0, 0, 1)
    elif null_danger(hand, False) == 0 and bid <= 35 and best_value < 35:
        best_value = 35
        best = decl_index(NULL, 1, 0, 0, 0)
    return best


@njit
def discard_and_declare(held: int, bid: int, seat: int) -> tuple[int, int, int]:
    """After picking up the skat: the two discards and the declaration (index into DECL_T).

    Tries every contract with every sensible discard and keeps the best margin over the
    contract's threshold among games worth the bid; discarded points count for the declarer
    (R10, "lay out unguarded tens", "get rid of one suit entirely"). A null is only chosen
    when it is worth the bid (R7) and the hand is null-safe after the discard.
    """
    best_score = -1e9
    best_a = -1
    best_b = -1
    best_decl = -1
    for contract in range(5):
        value = BASE_T[contract] * (abs(matadors(held, contract)) + 1)
        trumps = FOLLOW_T[contract, TRUMP]
        candidates = held & ~trumps
        if popcount(candidates) < 2:
            candidates = held
        rest = candidates
        while rest:
            a = lowest_bit(rest)
            rest &= rest - 1
            rest2 = rest
            while rest2:
                b = lowest_bit(rest2)
                rest2 &= rest2 - 1
                ten = held & ~(1 << a) & ~(1 << b)
                s = strength(ten, contract) - THRESHOLD[contract]
                if contract == GRAND and seat == 0:
                    s += GRAND_LEAD_BONUS
                s += (POINTS_T[a] + POINTS_T[b]) / 15.0
                if value < bid:
                    s -= 1000.0  # an overbid is lost whatever happens (R15)
                if s > best_score:
                    best_score = s
                    best_a = a
                    best_b = b
                    best_decl = decl_index(contract, 0, 0, 0, 0)
    if bid <= 46:
        rest = held
        while rest:
            a = lowest_bit(rest)
            rest &= rest - 1
            rest2 = rest
            while rest2:
                b = lowest_bit(rest2)
                rest2 &= rest2 - 1
                ten = held & ~(1 << a) & ~(1 << b)
                danger = null_danger(ten, False)
                if danger > NULL_RISK:
                    continue
                ouvert = null_danger(ten, True) == 0
                if not ouvert and bid > 23:
                    continue
                # Fewest risky cards kept; among equal discards lay away the highest.
                s = (0.5 if ouvert else 0.2) - 0.3 * danger
                s += (POWER_T[NULL, a] + POWER_T[NULL, b]) / 100.0
                if s > best_score:
                    best_score = s
                    best_a = a
                    best_b = b
                    best_decl = decl_index(NULL, 0, 0, 0, 1 if ouvert else 0)
    return best_a, best_b, best_decl


# ------------------------------------------------------------------- card play
@njit
def beats(card: int, best: int, contract: int) -> bool:
    """Whether ``card`` beats the trick's current best card (R8, :func:`core.beats`)."""
    return core.beats(contract, card, best)


@njit
def is_top(card: int, unseen: int, contract: int) -> bool:
    """No unseen card of the same effective suit ranks higher."""
    rest = unseen & core.follow_mask(contract, card)
    while rest:
        other = lowest_bit(rest)
        rest &= rest - 1
        if POWER_T[contract, other] > POWER_T[contract, card]:
            return False
    return True


@njit
def _pick(mask: int, contract: int, mode: int) -> int:
    """A card of ``mask`` by a key: 0 cheapest (no trump, fewest points, lowest), 1 highest
    power, 2 lowest power."""
    best = -1
    best_key = -1e18
    rest = mask
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        power = POWER_T[contract, card]
        points = POINTS_T[card]
        trump = EFFECTIVE_T[contract, card] == TRUMP and contract != NULL
        if mode == 0:
            key = -((1000.0 if trump else 0.0) + 10.0 * points + power)
        elif mode == 1:
            key = 1.0 * power
        else:
            key = -1.0 * power
        if key > best_key:
            best_key = key
            best = card
    return best


@njit
def _smear(legal: int, hand: int, contract: int) -> int:
    """Fatten the partner's trick: tens first, aces only with their ten (Foster)."""
    best = -1
    best_key = -1e18
    rest = legal
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        if EFFECTIVE_T[contract, card] == TRUMP and (card & 7) == 4:
            key = -50.0  # keep the jacks
        else:
            key = 1.0 * POINTS_T[card]
            if card & 7 == 3:
                key += 2.0
            if card & 7 == 7 and not has(hand, card - 4):
                key = 1.0  # an ace without its ten guards the partner's tens
        key -= POWER_T[contract, card] / 1000
        if key > best_key:
            best_key = key
            best = card
    return best


@njit
def _winners(legal: int, best: int, contract: int) -> int:
    out = 0
    rest = legal
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        if beats(card, best, contract):
            out |= 1 << card
    return out


@njit
def _lead_suit(hand: int, contract: int, longest: bool) -> int:
    """The plain suit (0-3) with the most (longest) or fewest cards held, -1 if none."""
    best = -1
    best_n = 0
    for suit in range(4):
        n = popcount(hand & FOLLOW_T[contract, suit])
        if n == 0:
            continue
        if best < 0 or (n > best_n if longest else n < best_n):
            best = suit
            best_n = n
    return best


@njit
def choose_card(
    seat: int, hand: int, legal: int, contract: int, declarer: int, leader: int,
    trick0: int, trick1: int, in_trick: int, played: int, known: int, voids: int,
) -> int:
    """The rules bot's card.

    ``played`` holds every card played so far (the current trick included), ``known`` the
    cards the player knows are out of play (the declarer's discards), ``voids`` the suits
    each seat has shown void in (bit ``seat * 5 + effective suit``).
    """
    unseen = FULL & ~hand & ~played & ~known
    if contract == NULL:
        return _null_card(seat, hand, legal, declarer, trick0, trick1, in_trick, leader,
                          unseen, voids)
    is_declarer = seat == declarer
    if in_trick == 0:
        if is_declarer:
            return _declarer_lead(hand, legal, contract, unseen, voids, declarer)
        return _defender_lead(seat, hand, legal, contract, declarer, unseen, voids)
    best = trick0
    best_seat = leader
    if in_trick == 2 and beats(trick1, trick0, contract):
        best = trick1
        best_seat = (leader + 1) % 3
    points = POINTS_T[trick0] + (POINTS_T[trick1] if in_trick == 2 else 0)
    winners = _winners(legal, best, contract)
    last = in_trick == 2
    if is_declarer:
        if winners:
            if last:
                if points > 0 or popcount(winners & ~FOLLOW_T[contract, TRUMP]) > 0:
                    return _pick(winners, contract, 2)
                return _pick(legal, contract, 0)
            sure = 0
            rest = winners
            while rest:
                card = lowest_bit(rest)
                rest &= rest - 1
                if is_top(card, unseen, contract):
                    sure |= 1 << card
            if sure:
                return _pick(sure, contract, 2)
            # Take a fat trick with a high trump even when not sure of it.
            if points >= 10:
                return _pick(winners, contract, 1)
        return _pick(legal, contract, 0)
    partner_winning = best_seat != declarer
    if last:
        if partner_winning:
            return _smear(legal, hand, contract)
        if winners:
            return _pick(winners, contract, 2)
        return _pick(legal, contract, 0)
    # Second to play.
    if leader == declarer:
        led_suit = EFFECTIVE_T[contract, trick0]
        if winners:
            # Keep aces behind the declarer's tens; cover a led jack (Foster).
            if led_suit == TRUMP or POINTS_T[trick0] >= 10:
                return _pick(winners, contract, 2)
            sure = 0
            rest = winners
            while rest:
                card = lowest_bit(rest)
                rest &= rest - 1
                if is_top(card, unseen, contract):
                    sure |= 1 << card
            if sure and points + POINTS_T[_pick(sure, contract, 2)] >= 10:
                return _pick(sure, contract, 2)
        return _pick(legal, contract, 0)
    # The partner led and the declarer plays last: fatten a trick the declarer cannot take.
    led_suit = EFFECTIVE_T[contract, trick0]
    declarer_void = (voids >> (declarer * 5 + led_suit)) & 1
    declarer_trumps = unseen & FOLLOW_T[contract, TRUMP]
    if is_top(trick0, unseen, contract) and (declarer_void == 0 or declarer_trumps == 0):
        return _smear(legal, hand, contract)
    return _pick(legal, contract, 0)


@njit
def _declarer_lead(hand: int, legal: int, contract: int, unseen: int, voids: int,
                   declarer: int) -> int:
    """Draw trumps while the defenders hold any, then cash aces ("the single player should
    almost always begin with the trumps"), then lead from the shortest suit."""
    trumps = FOLLOW_T[contract, TRUMP]
    mine = hand & trumps
    theirs = unseen & trumps
    if mine and theirs:
        top = _pick(mine, contract, 1)
        if is_top(top, unseen, contract):
            return top
        if popcount(mine) > popcount(theirs):
            return _pick(mine, contract, 2)
    side = hand & ~trumps
    rest = side
    best = -1
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        if is_top(card, unseen, contract) and POINTS_T[card] >= 10:
            suit = EFFECTIVE_T[contract, card]
            ruffable = False
            for other in range(3):
                if other != declarer and (voids >> (other * 5 + suit)) & 1 and theirs:
                    ruffable = True
            if not ruffable and (best < 0 or POINTS_T[card] > POINTS_T[best]):
                best = card
    if best >= 0:
        return best
    if side:
        suit = _lead_suit(side, contract, False)
        return _pick(hand & FOLLOW_T[contract, suit], contract, 2)
    return _pick(mine, contract, 1)


@njit
def _defender_lead(seat: int, hand: int, legal: int, contract: int, declarer: int,
                   unseen: int, voids: int) -> int:
    """Cash sure aces, keep leading a suit the declarer is void in (force his trumps), lead
    short suits up to the declarer and long suits through him (Foster)."""
    trumps = FOLLOW_T[contract, TRUMP]
    side = hand & ~trumps
    declarer_trumps = unseen & trumps
    rest = side
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        suit = EFFECTIVE_T[contract, card]
        void = (voids >> (declarer * 5 + suit)) & 1
        if POINTS_T[card] >= 10 and is_top(card, unseen, contract) and not void:
            return card
    for suit in range(4):
        cards = side & FOLLOW_T[contract, suit]
        if cards and (voids >> (declarer * 5 + suit)) & 1 and declarer_trumps:
            return _pick(cards, contract, 0)
    if side:
        through = seat == (declarer + 2) % 3  # the declarer plays second: lead through him
        suit = _lead_suit(side, contract, through)
        return _pick(hand & FOLLOW_T[contract, suit], contract, 0)
    return _pick(hand, contract, 2)


@njit
def _null_lead(seat: int, legal: int, declarer: int, unseen: int, voids: int) -> int:
    """A null defender's lead: the lowest card of the suit where the fewest unseen cards lie
    below it, so a declarer holding that suit must go over it ("a suit whose lowest card is a
    9 is a hole the defenders will find"); prefer a suit the partner has discarded from --
    "give your partner discards ... if you then have the small card of the discarded suit,
    you may defeat the Nullo at once" (Foster) -- and never a suit the declarer is void in."""
    partner = 3 - seat - declarer
    best = -1
    best_key = -1e18
    for suit in range(4):
        cards = legal & FOLLOW_T[NULL, suit]
        out = unseen & FOLLOW_T[NULL, suit]
        if cards == 0 or out == 0 or (voids >> (declarer * 5 + suit)) & 1:
            continue
        low = _pick(cards, NULL, 2)
        below = 0
        rest = out
        while rest:
            card = lowest_bit(rest)
            rest &= rest - 1
            if POWER_T[NULL, card] < POWER_T[NULL, low]:
                below += 1
        key = -10.0 * below + 0.5 * popcount(cards)
        if (voids >> (partner * 5 + suit)) & 1:
            key += 3.0
        if key > best_key:
            best_key = key
            best = low
    if best >= 0:
        return best
    return _pick(legal, NULL, 2)


@njit
def _null_card(seat: int, hand: int, legal: int, declarer: int, trick0: int, trick1: int,
               in_trick: int, leader: int, unseen: int, voids: int) -> int:
    """Null: the declarer ducks under the trick and sheds high cards when void; the
    defenders attack with low leads (:func:`_null_lead`), duck under the declarer's card
    with their highest safe card, keep their low cards while the declarer is still to play
    and shed high cards once the trick cannot catch him (Foster, modern rules "Strategy")."""
    contract = NULL
    if in_trick == 0:
        if seat == declarer:
            return _pick(legal, contract, 2)
        return _null_lead(seat, legal, declarer, unseen, voids)
    best = trick0
    best_seat = leader
    if in_trick == 2 and beats(trick1, trick0, contract):
        best = trick1
        best_seat = (leader + 1) % 3
    led_suit = EFFECTIVE_T[contract, trick0]
    following = (legal & FOLLOW_T[contract, led_suit]) != 0
    under = legal & ~_winners(legal, best, contract)
    if seat == declarer:
        if not following:
            return _pick(legal, contract, 1)
        if under:
            return _pick(under, contract, 1)
        return _pick(legal, contract, 2)
    if not following:
        return _pick(legal, contract, 1)
    declarer_to_play = in_trick == 1 and leader != declarer
    if declarer_to_play:
        # The partner led and the declarer plays last: stay below the lead if possible,
        # so the declarer has the least room to duck.
        if under:
            return _pick(under, contract, 1)
        return _pick(legal, contract, 2)
    if best_seat == declarer and under:
        return _pick(under, contract, 1)
    return _pick(legal, contract, 1)  # the trick cannot catch the declarer: shed high
