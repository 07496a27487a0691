"""The ``rules`` bot's decisions as compiled functions over card masks.

One implementation serves both paths: the batch kernel calls these functions directly and
:class:`skatlog.engine.bots.RulesPlayer` calls them from Python with masks read off a
:class:`~skatlog.engine.game.GameState`, so the engine bot and the batch bot play the same
games (a test holds them equal). The advice comes from the user's rule texts: the "Strategy"
section of the modern rules and Foster's "Suggestions for good play"; each piece of it is a
switch of the configuration vector ``cfg`` (:mod:`.config`), so experiments can play the
same deals with and without it.

Every decision is deterministic (ties go to the lowest card index), so a hand's play depends
only on its deal and the configuration. Hand evaluation counts in hundredths of a trick
(integers, so every sum is exact) and reads lookup tables built here once from the rules
core's card layout (card ``8 * suit + rank``, ranks ``7 8 9 T J Q K A``): a side suit's worth
is a table entry for its eight-bit pattern, the trumps' worth one for the jacks' four bits
and the trump suit's pattern. That keeps the discard search (every contract with every pair
of discards) at a few table lookups per pair.
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..bits import ctpop, cttz
from ..jit import njit
from . import config as c
from .tables import (
    BASE_T,
    BEATERS_T,
    DECL_T,
    EFFECTIVE_T,
    FOLLOW_T,
    HIGHER_T,
    LADDER_T,
    N_DECL,
    NULL,
    POINTS_T,
    POWER_T,
)

FULL = (1 << 32) - 1
TRUMP = 4
GRAND = 4
RAMSCH = core.RAMSCH
_ACE, _TEN, _KING, _JACK = 7, 3, 6, 4

#: Strength (hundredths of a trick, see :func:`strength`) a game needs after the skat.
THRESHOLD = np.array([400, 400, 400, 400, 500], dtype=np.int64)
#: Extra strength needed to play without the skat (hand game, one more multiplier).
HAND_MARGIN = 150
#: Extra strength needed to announce schneider in a hand game.
SCHNEIDER_MARGIN = 350
#: What each trump past the fourth adds in a suit game.
SUIT_LENGTH = 60
#: Forehand leads the first trick: worth something in grand (Foster).
GRAND_LEAD_BONUS = 50


# ------------------------------------------------------------------ evaluation tables
def _side_value(byte: int, grand: bool, by_aces: bool) -> int:
    if grand and by_aces:
        return -100 * _grand_losers(byte)
    return _plain_side_value(byte, grand, by_aces)


def _plain_side_value(byte: int, grand: bool, by_aces: bool) -> int:
    """A side suit's worth (hundredths of a trick) from its cards (``byte``: bit r is rank
    r, jack excluded): aces, tens guarded by their ace or by length, solid A-10-K; a bare
    ten is a gift to the defenders. In grand long A-10 suits run (by aces: "jacks and aces,
    not length"); judged by length instead, every card past the third counts."""
    n = bin(byte).count("1")
    if n == 0:
        return 0
    ace, ten, king = (byte >> _ACE) & 1, (byte >> _TEN) & 1, (byte >> _KING) & 1
    w = 0
    if ace:
        w += 100 if by_aces or not grand else 60
    if ten:
        if ace:
            w += 80
        elif n >= 3 or (n == 2 and king):
            w += 30
        else:
            w -= 40
    if ace and ten and king:
        w += 40
    if grand:
        if by_aces and ace and ten and n >= 4:
            w += 60 * (n - 3)
        elif not by_aces and n >= 4:
            w += 50 * (n - 3)
    return w


#: Plain ranks from the top: A 10 K Q 9 8 7 (R8).
_PLAIN_DOWN = (_ACE, _TEN, _KING, 5, 2, 1, 0)


def _grand_losers(byte: int) -> int:
    """Tricks a side suit loses in grand: of its first three rounds, those its top run
    (A, A-10, A-10-K ...) does not win; a suit of four or more headed by A-10 runs once the
    jacks are drawn. A bare ten is a loser, a bare ace none."""
    ranks = [r for r in _PLAIN_DOWN if (byte >> r) & 1]
    run = 0
    for r in _PLAIN_DOWN:
        if not (byte >> r) & 1:
            break
        run += 1
    if len(ranks) >= 4 and run >= 2:
        return 0
    return max(0, min(len(ranks), 3) - run)


#: Losers a grand may have, by the jacks held (grand "needs jacks": measured on the bot's
#: own grands, three jacks win with four losers, two with one, one jack hardly ever).
_GRAND_ALLOWANCE = (-3, -2, 1, 4, 4)


def _grand_jacks(jacks: int, by_rank: bool) -> int:
    """A grand's worth from its jacks: the threshold plus a trick per loser the jacks allow
    (the J-clubs a little more, it "anchors the count"); counted flat (``by_rank`` off) a
    straight line in the number of jacks."""
    n = bin(jacks).count("1")
    if by_rank:
        return 500 + 100 * _GRAND_ALLOWANCE[n] + (20 if jacks & 1 else 0)
    return 500 + 125 * n - 150


def _ladder(i_missing: int) -> int:
    """A trump's worth by how many higher trumps are missing: the top trumps count most."""
    return (100, 60, 35)[i_missing] if i_missing < 3 else 20


def _trump_value(jacks: int, suit: int, grand: bool, by_rank: bool) -> int:
    """The trumps' worth: ``jacks`` bit k for the k-th highest jack (clubs first), ``suit``
    the trump suit's pattern (suit games). Counted jacks first by the higher trumps missing,
    or (``by_rank`` off) a flat worth per trump; a suit game wants five trumps, a grand two
    jacks."""
    seq = [(jacks >> k) & 1 for k in range(4)]
    if not grand:
        seq += [(suit >> r) & 1 for r in (_ACE, _TEN, _KING, 5, 2, 1, 0)]
    w = 0
    missing = 0
    n = 0
    for held in seq:
        if held:
            n += 1
            w += _ladder(missing) if by_rank else 50
        else:
            missing += 1
    if grand:
        if n < 2:
            w -= 150 * (2 - n)
    elif n > 4:
        w += SUIT_LENGTH * (n - 4)  # measured: a sixth trump wins more than a side ace
    else:
        w -= 120 * (5 - n)
    return w


def _null_holes(byte: int, rule: int) -> int:
    """Cards of one suit that can be forced to take a null trick (the null order is the
    card order: 7 8 9 T J Q K A). Rule 0, "null wants sevens": the i-th lowest card held is
    safe when its rank is at most 2i; rule 1, the same for an open hand, stricter (3i/2);
    rule 2 (the advice off): every queen, king and ace is a risk, nothing else."""
    holes = 0
    i = 0
    for rank in range(8):
        if (byte >> rank) & 1:
            if rule == 2:
                holes += rank >= 5
            elif rank > ((3 * i) // 2 if rule == 1 else 2 * i):
                holes += 1
            i += 1
    return holes


#: SIDE_T[k, byte]: a side suit's worth; k 0 suit game, 1 grand by aces, 2 grand by length.
SIDE_T = np.array([[_side_value(b & ~(1 << _JACK), g, a) for b in range(256)]
                   for g, a in ((False, True), (True, True), (True, False))], dtype=np.int64)
#: TRUMP_T[k, jacks, suit byte]: the trumps' worth; k 0 suit by rank, 1 suit flat, 2 grand
#: by jacks and aces (losers allowed), 3 the same counted flat, 4 and 5 grand by length
#: (by rank, flat); the suit byte is ignored in grand.
TRUMP_T = np.array([[[_trump_value(j, s, False, r) for s in range(256)] for j in range(16)]
                    for r in (True, False)]
                   + [[[_grand_jacks(j, r)] * 256 for j in range(16)] for r in (True, False)]
                   + [[[_trump_value(j, s, True, r) for s in range(256)] for j in range(16)]
                      for r in (True, False)], dtype=np.int64)
def _best_after_discards(byte: int, k: int) -> int:
    """The most a side suit can be worth once up to two of its cards are laid away (a void
    counted at the suit game's 30): an upper bound for :func:`discard_and_declare`."""
    cards = [r for r in range(8) if (byte >> r) & 1 and r != _JACK]
    options = [byte]
    options += [byte & ~(1 << r) for r in cards]
    options += [byte & ~(1 << r) & ~(1 << q) for r in cards for q in cards if r < q]
    return max(int(SIDE_T[k, o & 0xEF]) if o & 0xEF else 30 for o in options)


#: SIDE_BEST_T[k, byte]: :func:`_best_after_discards`.
SIDE_BEST_T = np.array([[_best_after_discards(b & 0xEF, k) for b in range(256)]
                        for k in range(3)], dtype=np.int64)
#: The most two discards' points add to a game's score (an ace and a ten: 21 x 20 / 3).
DISCARD_POINTS_MAX = (20 * 21) // 3
#: The highest score a null discard can reach (ouvert, no risky card, the two highest
#: cards laid away): a suit game already above it leaves nothing for the null search.
NULL_SCORE_MAX = 50 + 2 * int(POWER_T[NULL].max())
def _hole_mask(byte: int, rule: int) -> int:
    """The ranks :func:`_null_holes` counts as holes, as a pattern."""
    mask = 0
    i = 0
    for rank in range(8):
        if (byte >> rank) & 1:
            if rule == 2:
                hole = rank >= 5
            else:
                hole = rank > ((3 * i) // 2 if rule == 1 else 2 * i)
            mask |= int(hole) << rank
            i += 1
    return mask


#: HOLE_MASK_T[rule, byte]: :func:`_hole_mask`.
HOLE_MASK_T = np.array([[_hole_mask(b, r) for b in range(256)] for r in range(3)],
                       dtype=np.int64)
#: HOLES_T[rule, byte]: :func:`_null_holes`.
HOLES_T = np.array([[_null_holes(b, r) for b in range(256)] for r in range(3)], dtype=np.int64)
#: POPCOUNT8_T[byte]: cards in a suit pattern.
POPCOUNT8_T = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)
#: Whether a side suit pattern is "good" for a grand on two jacks (Foster): ace and ten, or
#: the ace with three more.
GOOD_T = np.array([int((b >> _ACE) & 1 == 1 and ((b >> _TEN) & 1 == 1
                                                 or bin(b & ~(1 << _JACK)).count("1") >= 4))
                   for b in range(256)], dtype=np.int64)
#: Strength a grand on two jacks and two good side suits gains (Foster: "safe").
WENZEL_BONUS = 200


# ------------------------------------------------------------------ bit helpers
@njit(inline="always")
def popcount(x: int) -> int:
    """Number of set bits of a 32-bit mask."""
    return ctpop(x)  # type: ignore[no-any-return]


@njit(inline="always")
def lowest_bit(x: int) -> int:
    """Index of the lowest set bit (x != 0)."""
    return cttz(x)  # type: ignore[no-any-return]


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


@njit(inline="always")
def _jacks(hand: int) -> int:
    """The jacks held as four bits, the highest (clubs) first."""
    return ((hand >> 28) & 1) | ((hand >> 19) & 2) | ((hand >> 10) & 4) | ((hand >> 1) & 8)


@njit(inline="always")
def _byte(hand: int, suit: int) -> int:
    return (hand >> (8 * suit)) & 0xFF


# ------------------------------------------------------------- hand evaluation
@njit
def threshold(contract: int, cfg: np.ndarray) -> int:
    """The strength a game of ``contract`` needs after the skat (the margins of ``cfg``)."""
    margin = cfg[c.GRAND_MARGIN] if contract == GRAND else cfg[c.SUIT_MARGIN]
    return THRESHOLD[contract] + int(100.0 * margin)


@njit
def _trump_part(hand: int, contract: int, cfg: np.ndarray) -> int:
    """The trumps' worth (:data:`TRUMP_T`) for ``cfg``'s way of counting them."""
    flat = 0 if cfg[c.COUNT_JACKS] else 1
    if contract == GRAND:
        return TRUMP_T[2 + flat + (0 if cfg[c.GRAND_JACKS_ACES] else 2), _jacks(hand), 0]
    return TRUMP_T[flat, _jacks(hand), _byte(hand, contract)]


@njit
def _side_part(hand: int, contract: int, n_trumps: int, cfg: np.ndarray) -> int:
    """The side suits' worth (:data:`SIDE_T`); in a suit game a void lets the declarer
    trump when he has five trumps; in grand two jacks and two good suits make a safe game
    (Foster, when ``cfg`` follows that advice)."""
    w = 0
    if contract == GRAND:
        k = 1 if cfg[c.GRAND_JACKS_ACES] else 2
        good = 0
        for suit in range(4):
            b = _byte(hand, suit) & 0xEF
            w += SIDE_T[k, b]
            good += GOOD_T[b]
        if good >= 2 and cfg[c.GRAND_TWO_WENZELS] and popcount(_jacks(hand)) >= 2:
            w += WENZEL_BONUS
        return w
    for suit in range(4):
        if suit != contract:
            b = _byte(hand, suit) & 0xEF
            if b == 0:
                w += 30 if n_trumps >= 5 else 0
            else:
                w += SIDE_T[0, b]
    return w


@njit
def strength(hand: int, contract: int, cfg: np.ndarray) -> int:
    """Estimated winning power of a 10-card hand in a suit or grand game, in hundredths of
    a trick: the trumps (jacks first, "count jacks first"; a suit game wants five trumps, a
    grand two jacks) plus the side suits (aces, guarded tens, long A-10 suits in grand: "jacks
    and aces, not length"; a bare ten is a gift, a void lets a suit declarer trump)."""
    n_trumps = popcount(hand & FOLLOW_T[contract, TRUMP])
    return _trump_part(hand, contract, cfg) + _side_part(hand, contract, n_trumps, cfg)


@njit
def null_danger(hand: int, ouvert: bool, cfg: np.ndarray) -> int:
    """How many cards can be forced to take a trick in null (:data:`HOLES_T`): "null wants
    sevens" (``cfg``), judged stricter for an open hand. Without the seven of its longest
    suit a hand counts as hopeless (10) when ``cfg`` follows Foster's "never bid a nullo
    without the seven of the long suit"."""
    rule = (1 if ouvert else 0) if cfg[c.NULL_SEVENS] else 2
    return _holes(hand, rule, cfg[c.NULL_LONG_SEVEN] != 0.0)


@njit(inline="always")
def _holes(hand: int, rule: int, long_seven: bool) -> int:
    """:func:`null_danger` for a :data:`HOLES_T` rule, ``long_seven`` for Foster's check."""
    danger = 0
    longest = 0
    sevenless = 0
    for suit in range(4):
        b = _byte(hand, suit)
        danger += HOLES_T[rule, b]
        n = POPCOUNT8_T[b]
        if n > longest:
            longest = n
            sevenless = 1 - (b & 1)
        elif n == longest:
            sevenless |= 1 - (b & 1)
    if long_seven and sevenless:
        danger += 10
    return danger


@njit
def bidding_multiplier(hand: int, contract: int, cfg: np.ndarray) -> int:
    """Multiplier the declarer counts on before seeing the skat: "bid below your matadors"
    -- a "without" count may shrink when a top trump lies in the skat, so ``cfg`` leaves
    that many multipliers of slack (never below 2: "with 1" or "without 1")."""
    mats = matadors(hand, contract)
    if mats >= 0:
        return mats + 1
    return max(2, 1 - mats - int(cfg[c.BID_SLACK]))


@njit
def bid_limit(hand: int, seat: int, cfg: np.ndarray) -> int:
    """The highest value this 10-card hand bids to (0: it does not bid at all)."""
    best = 0
    hand_margin = HAND_MARGIN + int(100.0 * cfg[c.HAND_MARGIN])
    skat_bonus = int(100.0 * cfg[c.SKAT_BONUS])
    # The side suits' table entries once for the four suit games (:func:`strength`).
    flat = 0 if cfg[c.COUNT_JACKS] else 1
    jacks = _jacks(hand)
    n_jacks = popcount(jacks)
    sides = 0
    voids = 0
    for suit in range(4):
        b = _byte(hand, suit) & 0xEF
        sides += SIDE_T[0, b]
        voids += b == 0
    for contract in range(5):
        if contract == GRAND:
            s = strength(hand, contract, cfg)
            if seat == 0:
                s += GRAND_LEAD_BONUS
            skat = 0
        else:
            b = _byte(hand, contract)
            own = b & 0xEF
            s = TRUMP_T[flat, jacks, b] + sides - SIDE_T[0, own]
            if n_jacks + POPCOUNT8_T[own] >= 5:
                s += 30 * (voids - (own == 0))
            skat = skat_bonus
        need = threshold(contract, cfg)
        if s + skat < need:
            continue
        mult = bidding_multiplier(hand, contract, cfg)
        if s >= need + hand_margin:
            mult += 1  # worth a hand game
        best = max(best, BASE_T[contract] * mult)
    danger = null_danger(hand, False, cfg)
    if danger <= int(cfg[c.NULL_RISK]) + 1:
        best = max(best, 23)  # the two discards can lay away one more risky card
        if danger == 0:
            best = max(best, 35)  # a hand null must be safe: lost, it costs 70
            if null_danger(hand, True, cfg) == 0:  # (never safe open when not closed)
                best = max(best, 59)
    return best


@njit
def call_for_limit(limit: int, bid: int, listening: bool, forehand_alone: bool) -> int:
    """The call of a hand that bids to ``limit``: a bid value, 1 to hold, 0 to pass (R3, R4).

    It bids the next value on the ladder, holds while the bid is within its limit and passes
    beyond it; Forehand alone (both others passed) takes the game at 18 when it can."""
    if forehand_alone:
        return 18 if limit >= 18 else 0
    if listening:
        return 1 if bid <= limit else 0
    above = core.NEXT_BID[bid]
    if above >= LADDER_T.shape[0]:
        return 0
    value = LADDER_T[above]
    return value if value <= limit else 0


@njit
def auction_call(hand: int, seat: int, bid: int, listening: bool, forehand_alone: bool,
                 cfg: np.ndarray) -> int:
    """The rules bot's call (:func:`call_for_limit` of the hand's :func:`bid_limit`)."""
    return call_for_limit(bid_limit(hand, seat, cfg), bid, listening, forehand_alone)


@njit
def hand_game(hand: int, bid: int, seat: int, cfg: np.ndarray) -> int:
    """A hand declaration (index into DECL_T) worth playing without the skat, or -1."""
    best_value = 0
    best = -1
    hand_margin = HAND_MARGIN + int(100.0 * cfg[c.HAND_MARGIN])
    for contract in range(5):
        s = strength(hand, contract, cfg)
        if contract == GRAND and seat == 0:
            s += GRAND_LEAD_BONUS
        need = threshold(contract, cfg)
        if s < need + hand_margin:
            continue
        mult = bidding_multiplier(hand, contract, cfg) + 1
        schneider = s >= need + SCHNEIDER_MARGIN
        if schneider:
            mult += 2  # schneider announced and reached (R13)
        value = BASE_T[contract] * mult
        if value >= bid and value > best_value:
            best_value = value
            best = decl_index(contract, 1, 1 if schneider else 0, 0, 0)
    if null_danger(hand, True, cfg) == 0 and bid <= 59 and best_value < 59:
        best_value = 59
        best = decl_index(NULL, 1, 0, 0, 1)
    elif null_danger(hand, False, cfg) == 0 and bid <= 35 and best_value < 35:
        best_value = 35
        best = decl_index(NULL, 1, 0, 0, 0)
    return best


@njit(inline="always")
def _suit_value(k: int, b: int, void: int) -> int:
    """One side suit's worth from its pattern (``void`` for no card at all)."""
    return SIDE_T[k, b] if b else void


@njit
def _contract_base(held: int, bid: int, seat: int, cfg: np.ndarray, contract: int) -> int:
    """What a contract's discard scores start from: minus its threshold, the grand's extra
    margin and Forehand's lead, and a heavy penalty when its value cannot reach the bid."""
    base = -threshold(contract, cfg)
    if contract == GRAND:
        base -= int(100.0 * cfg[c.GRAND_DECLARE])
        if seat == 0:
            base += GRAND_LEAD_BONUS
    if BASE_T[contract] * (abs(matadors(held, contract)) + 1) < bid:
        base -= 100000  # an overbid is lost whatever happens (R15)
    return base


@njit
def _discard_bound(held: int, bid: int, seat: int, cfg: np.ndarray, contract: int,
                   wenzels: bool) -> int:
    """The most any pair of discards can score in ``contract`` (:data:`SIDE_BEST_T`)."""
    if popcount(held & ~FOLLOW_T[contract, TRUMP]) < 2:
        return 1 << 40  # trumps must go too: no bound, search it
    grand = contract == GRAND
    k = (1 if cfg[c.GRAND_JACKS_ACES] else 2) if grand else 0
    bound = (_trump_part(held, contract, cfg) + _contract_base(held, bid, seat, cfg, contract)
             + DISCARD_POINTS_MAX + (WENZEL_BONUS if grand and wenzels else 0))
    for suit in range(4):
        if grand or suit != contract:
            bound += SIDE_BEST_T[k, _byte(held, suit) & 0xEF]
    return bound


@njit
def _best_discard(held: int, bid: int, seat: int, cfg: np.ndarray, contract: int,
                  wenzels: bool, best_score: int, best_key: int) -> tuple[int, int]:
    """The best (score, key) after trying every pair of discards in ``contract`` against the
    best so far; ``key`` is ``contract * 1024 + a * 32 + b``, the plain search order."""
    base = _contract_base(held, bid, seat, cfg, contract)
    trumps = FOLLOW_T[contract, TRUMP]
    candidates = held & ~trumps
    if popcount(candidates) < 2:  # trumps must go too: judge each ten cards whole
        rest = held
        while rest:
            a = lowest_bit(rest)
            rest &= rest - 1
            rest2 = rest
            while rest2:
                b = lowest_bit(rest2)
                rest2 &= rest2 - 1
                s = (strength(held & ~(1 << a) & ~(1 << b), contract, cfg) + base
                     + (20 * (POINTS_T[a] + POINTS_T[b])) // 3)
                key = contract * 1024 + a * 32 + b
                if s > best_score or (s == best_score and key < best_key):
                    best_score = s
                    best_key = key
        return best_score, best_key
    grand = contract == GRAND
    k = (1 if cfg[c.GRAND_JACKS_ACES] else 2) if grand else 0
    n_trumps = popcount(held & trumps)
    void = 30 if (not grand and n_trumps >= 5) else 0
    total = _trump_part(held, contract, cfg) + base
    good = 0
    for suit in range(4):
        if grand or suit != contract:
            byte = _byte(held, suit) & 0xEF
            total += _suit_value(k, byte, void)
            good += GOOD_T[byte]
    rest = candidates
    while rest:
        a = lowest_bit(rest)
        rest &= rest - 1
        sa = a >> 3
        byte_a = _byte(held, sa) & 0xEF
        rest2 = rest
        while rest2:
            b = lowest_bit(rest2)
            rest2 &= rest2 - 1
            sb = b >> 3
            if sa == sb:
                after = byte_a & ~(1 << (a & 7)) & ~(1 << (b & 7))
                s = total - _suit_value(k, byte_a, void) + _suit_value(k, after, void)
                g = good - GOOD_T[byte_a] + GOOD_T[after]
            else:
                byte_b = _byte(held, sb) & 0xEF
                after_a = byte_a & ~(1 << (a & 7))
                after_b = byte_b & ~(1 << (b & 7))
                s = (total - _suit_value(k, byte_a, void) - _suit_value(k, byte_b, void)
                     + _suit_value(k, after_a, void) + _suit_value(k, after_b, void))
                g = good - GOOD_T[byte_a] - GOOD_T[byte_b] + GOOD_T[after_a] + GOOD_T[after_b]
            if grand and wenzels and g >= 2:
                s += WENZEL_BONUS
            s += (20 * (POINTS_T[a] + POINTS_T[b])) // 3
            key = contract * 1024 + a * 32 + b
            if s > best_score or (s == best_score and key < best_key):
                best_score = s
                best_key = key
    return best_score, best_key


@njit
def discard_and_declare(held: int, bid: int, seat: int, cfg: np.ndarray
                        ) -> tuple[int, int, int]:
    """After picking up the skat: the two discards and the declaration (index into DECL_T).

    Tries every contract with every pair of discards and keeps the best margin over the
    contract's threshold among games worth the bid; discarded points count for the declarer
    (R10, "lay out unguarded tens", "get rid of one suit entirely"). Trumps are laid away
    only when fewer than two other cards are held, so the trumps' worth is counted once per
    contract and a pair changes at most two suits' table entries; a contract whose upper
    bound (:data:`SIDE_BEST_T`) cannot beat the best so far is skipped, and the null search
    only runs when two discards could make the hand safe enough, so the result is that of
    the full search. A null is only chosen when it is worth the bid (R7).
    """
    wenzels = cfg[c.GRAND_TWO_WENZELS] != 0.0 and popcount(_jacks(held)) >= 2
    bounds = (_discard_bound(held, bid, seat, cfg, 0, wenzels),
              _discard_bound(held, bid, seat, cfg, 1, wenzels),
              _discard_bound(held, bid, seat, cfg, 2, wenzels),
              _discard_bound(held, bid, seat, cfg, 3, wenzels),
              _discard_bound(held, bid, seat, cfg, 4, wenzels))
    # The most promising contract first, so the bound skips the others; ties between equal
    # scores still go to the first contract and pair in the plain order (``key``).
    best_score = -(1 << 40)
    best_key = 1 << 30
    done = 0
    for _ in range(5):
        contract = -1
        for k in range(5):
            if not (done >> k) & 1 and (contract < 0 or bounds[k] > bounds[contract]):
                contract = k
        done |= 1 << contract
        bound = bounds[contract]
        if bound < best_score or (bound == best_score and contract * 1024 > best_key):
            continue  # no pair of discards can beat the best game so far
        best_score, best_key = _best_discard(held, bid, seat, cfg, contract, wenzels,
                                             best_score, best_key)
    best_a = (best_key >> 5) & 31
    best_b = best_key & 31
    best_decl = decl_index(best_key >> 10, 0, 0, 0, 0)
    risk = int(cfg[c.NULL_RISK])
    rule = 0 if cfg[c.NULL_SEVENS] else 2
    holes = 0
    hole_cards = 0
    for suit in range(4):
        holes += HOLES_T[rule, _byte(held, suit)]
        hole_cards |= HOLE_MASK_T[rule, _byte(held, suit)] << (8 * suit)
    # A card laid away removes at most its own hole (it can only add holes to its suit's
    # higher cards), so a hand needs as many hole cards among the discards as it has holes
    # above the risk allowed: none of the other pairs can make a null.
    need = holes - risk
    if bid <= 46 and need <= 2 and best_score < NULL_SCORE_MAX:
        plain = decl_index(NULL, 0, 0, 0, 0)
        open_ = decl_index(NULL, 0, 0, 0, 1)
        long_seven = cfg[c.NULL_LONG_SEVEN] != 0.0
        open_rule = 1 if rule == 0 else 2
        rest = held
        while rest:
            a = lowest_bit(rest)
            rest &= rest - 1
            a_hole = (hole_cards >> a) & 1
            rest2 = rest
            while rest2:
                b = lowest_bit(rest2)
                rest2 &= rest2 - 1
                if a_hole + ((hole_cards >> b) & 1) < need:
                    continue
                ten = held & ~(1 << a) & ~(1 << b)
                danger = _holes(ten, rule, long_seven)
                if danger > risk:
                    continue
                ouvert = _holes(ten, open_rule, long_seven) == 0
                if not ouvert and bid > 23:
                    continue
                # Fewest risky cards kept; among equal discards lay away the highest.
                s = (50 if ouvert else 20) - 30 * danger + POWER_T[NULL, a] + POWER_T[NULL, b]
                if s > best_score:
                    best_score = s
                    best_a = a
                    best_b = b
                    best_decl = open_ if ouvert else plain
    return best_a, best_b, best_decl


# ------------------------------------------------------------------- card play
@njit(inline="always")
def beats(card: int, best: int, contract: int) -> bool:
    """Whether ``card`` beats the trick's current best card (R8, :data:`~.tables.BEATERS_T`
    from :func:`core.beats`)."""
    return (BEATERS_T[contract, best] >> card) & 1 == 1


@njit(inline="always")
def is_top(card: int, unseen: int, contract: int) -> bool:
    """No unseen card of the same effective suit ranks higher."""
    return unseen & HIGHER_T[contract, card] == 0


def _pick_keys() -> np.ndarray:
    """PICK_T[mode, contract, card]: :func:`_pick`'s keys (the highest key is picked)."""
    keys = np.zeros((3, POWER_T.shape[0], 32), dtype=np.int64)
    for k in range(POWER_T.shape[0]):
        for card in range(32):
            power = int(POWER_T[k, card])
            trump = EFFECTIVE_T[k, card] == TRUMP and k != NULL
            keys[0, k, card] = -(1000 * trump + 10 * int(POINTS_T[card]) + power)
            keys[1, k, card] = power
            keys[2, k, card] = -power
    return keys


PICK_T = _pick_keys()


@njit
def _pick(mask: int, contract: int, mode: int) -> int:
    """A card of ``mask`` by a key: 0 cheapest (no trump, fewest points, lowest), 1 highest
    power, 2 lowest power; ties go to the lowest card."""
    best = -1
    best_key = -(1 << 40)
    rest = mask
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        key = PICK_T[mode, contract, card]
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


@njit(inline="always")
def _winners(legal: int, best: int, contract: int) -> int:
    """The cards of ``legal`` that beat ``best``."""
    return legal & BEATERS_T[contract, best]


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
    open_hand: int, cfg: np.ndarray,
) -> int:
    """The rules bot's card.

    ``played`` holds every card played so far (the current trick included), ``known`` the
    cards the player knows are out of play (the declarer's discards), ``voids`` the suits
    each seat has shown void in (bit ``seat * 5 + effective suit``), ``open_hand`` the
    declarer's cards still in his hand when he plays an open game and ``seat`` defends (0
    otherwise), ``cfg`` the bot's configuration (:mod:`.config`).
    """
    unseen = FULL & ~hand & ~played & ~known
    if not cfg[c.OPEN_DEFENCE]:
        open_hand = 0
    if contract == NULL:
        return _null_card(seat, hand, legal, declarer, trick0, trick1, in_trick, leader,
                          unseen, voids, open_hand)
    is_declarer = seat == declarer
    if open_hand:
        card = _beat_open_hand(legal, contract, trick0, trick1, in_trick, leader, declarer,
                               open_hand)
        if card >= 0:
            return card
    if in_trick == 0:
        if is_declarer:
            return _declarer_lead(hand, legal, contract, unseen, voids, declarer, cfg)
        return _defender_lead(seat, hand, legal, contract, declarer, unseen, voids, cfg)
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
            # Void in a side suit led to him: ruff low rather than let the last defender
            # smear a ten onto his partner's trick.
            ruffs = winners & FOLLOW_T[contract, TRUMP]
            if ruffs and contract != GRAND and EFFECTIVE_T[contract, trick0] != TRUMP \
                    and (hand & core.follow_mask(contract, trick0)) == 0 \
                    and (legal & ~ruffs) != 0:
                return _pick(ruffs, contract, 2)
        return _pick(legal, contract, 0)
    partner_winning = best_seat != declarer
    if last:
        if partner_winning:
            return _smear(legal, hand, contract) if cfg[c.SMEAR] else _pick(legal, contract, 0)
        if winners:
            return _pick(winners, contract, 2)
        return _pick(legal, contract, 0)
    # Second to play.
    if leader == declarer:
        led_suit = EFFECTIVE_T[contract, trick0]
        if winners:
            # Keep aces behind the declarer's tens; cover a led jack (Foster).
            if (led_suit == TRUMP or POINTS_T[trick0] >= 10) and cfg[c.ACES_BEHIND_TENS]:
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
    if (is_top(trick0, unseen, contract) and (declarer_void == 0 or declarer_trumps == 0)
            and cfg[c.SMEAR]):
        return _smear(legal, hand, contract)
    return _pick(legal, contract, 0)


@njit
def _declarer_lead(hand: int, legal: int, contract: int, unseen: int, voids: int,
                   declarer: int, cfg: np.ndarray) -> int:
    """Draw trumps while the defenders hold any, then cash aces ("the single player should
    almost always begin with the trumps"), then lead from the shortest suit. Without that
    advice (``cfg``) the aces are cashed first and the trumps drawn after."""
    trumps = FOLLOW_T[contract, TRUMP]
    mine = hand & trumps
    theirs = unseen & trumps
    first = cfg[c.TRUMPS_FIRST] != 0.0
    if first:
        card = _draw_trumps(mine, theirs, unseen, contract)
        if card >= 0:
            return card
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
    if not first:
        card = _draw_trumps(mine, theirs, unseen, contract)
        if card >= 0:
            return card
    if side:
        suit = _lead_suit(side, contract, False)
        return _pick(hand & FOLLOW_T[contract, suit], contract, 2)
    return _pick(mine, contract, 1)


@njit
def _draw_trumps(mine: int, theirs: int, unseen: int, contract: int) -> int:
    """A trump to draw the defenders' trumps with (the top one when it is sure, a low one
    while the declarer holds more), or -1."""
    if mine and theirs:
        top = _pick(mine, contract, 1)
        if is_top(top, unseen, contract):
            return top
        if popcount(mine) > popcount(theirs):
            return _pick(mine, contract, 2)
    return -1


@njit
def _beat_open_hand(legal: int, contract: int, trick0: int, trick1: int, in_trick: int,
                    leader: int, declarer: int, open_hand: int) -> int:
    """Against an open suit or grand game (the declarer must take every trick, R17): a
    card that wins the trick whatever the declarer, whose cards lie open, can still play;
    -1 if there is none. The cheapest such card."""
    best = -1
    best_key = 1 << 30
    rest = legal
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        if in_trick == 0:
            top = card
        else:
            top = trick0
            if in_trick == 2 and beats(trick1, trick0, contract):
                top = trick1
            if (in_trick == 2 and leader != declarer and (leader + 1) % 3 != declarer) \
                    or not beats(card, top, contract):
                continue  # (a defender's card only matters if it wins the trick)
            top = card
        declarer_plays = in_trick == 0 or (in_trick == 1 and leader != declarer)
        if declarer_plays:
            lead = card if in_trick == 0 else trick0
            reply = core.legal_cards(open_hand, core.follow_mask(contract, lead))
            beaten = False
            r = reply
            while r:
                d = lowest_bit(r)
                r &= r - 1
                if beats(d, top, contract):
                    beaten = True
                    break
            if beaten:
                continue
        key = 100 * (EFFECTIVE_T[contract, card] == TRUMP) + POWER_T[contract, card]
        if key < best_key:
            best_key = key
            best = card
    return best


@njit
def _defender_lead(seat: int, hand: int, legal: int, contract: int, declarer: int,
                   unseen: int, voids: int, cfg: np.ndarray) -> int:
    """Cash sure aces, keep leading a suit the declarer is void in (force his trumps), lead
    short suits up to the declarer and long suits through him (Foster); ``cfg`` can switch
    off the last two (then the cheapest side card is led)."""
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
    if cfg[c.LEAD_VOID]:
        for suit in range(4):
            cards = side & FOLLOW_T[contract, suit]
            if cards and (voids >> (declarer * 5 + suit)) & 1 and declarer_trumps:
                return _pick(cards, contract, 0)
    if side and not cfg[c.THROUGH_LONG]:
        return _pick(side, contract, 0)
    if side:
        through = seat == (declarer + 2) % 3  # the declarer plays second: lead through him
        suit = _lead_suit(side, contract, through)
        return _pick(hand & FOLLOW_T[contract, suit], contract, 0)
    return _pick(hand, contract, 2)


@njit
def _null_lead(seat: int, legal: int, declarer: int, unseen: int, voids: int,
               open_hand: int) -> int:
    """A null defender's lead: the lowest card of the suit where the fewest unseen cards lie
    below it, so a declarer holding that suit must go over it ("a suit whose lowest card is a
    9 is a hole the defenders will find"); prefer a suit the partner has discarded from --
    "give your partner discards ... if you then have the small card of the discarded suit,
    you may defeat the Nullo at once" (Foster) -- and never a suit the declarer is void in.
    Against an open hand the declarer's cards are known: lead under his lowest card of a
    suit where the partner can stay under it too, so he must take the trick."""
    partner = 3 - seat - declarer
    if open_hand:
        card = _catch_open_null(legal, unseen, open_hand)
        if card >= 0:
            return card
    best = -1
    best_key = -1e18
    for suit in range(4):
        cards = legal & FOLLOW_T[NULL, suit]
        out = (open_hand if open_hand else unseen) & FOLLOW_T[NULL, suit]
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
def _catch_open_null(legal: int, unseen: int, open_hand: int) -> int:
    """A lead that catches an open null declarer: in a suit he holds, a card below all of
    his, with the partner (the unseen cards that are not his) void or holding a card below
    his lowest too. The lowest such card, or -1."""
    best = -1
    for suit in range(4):
        mask = FOLLOW_T[NULL, suit]
        his = open_hand & mask
        mine = legal & mask
        if his == 0 or mine == 0:
            continue
        low = lowest_bit(mine)  # null order is the card order within a suit
        his_low = lowest_bit(his)
        if low > his_low:
            continue
        partner = unseen & ~open_hand & mask
        if partner and lowest_bit(partner) > his_low:
            continue
        if best < 0 or POWER_T[NULL, low] < POWER_T[NULL, best]:
            best = low
    return best


@njit
def _null_card(seat: int, hand: int, legal: int, declarer: int, trick0: int, trick1: int,
               in_trick: int, leader: int, unseen: int, voids: int, open_hand: int) -> int:
    """Null: the declarer ducks under the trick and sheds high cards when void; the
    defenders attack with low leads (:func:`_null_lead`), duck under the declarer's card
    with their highest safe card, keep their low cards while the declarer is still to play
    and shed high cards once the trick cannot catch him (Foster, modern rules "Strategy")."""
    contract = NULL
    if in_trick == 0:
        if seat == declarer:
            return _pick(legal, contract, 2)
        return _null_lead(seat, legal, declarer, unseen, voids, open_hand)
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


# ------------------------------------------------- house options: Kontra/Re, Ramsch (R19, R20)
#: A defender says Kontra (R19) when his own ten cards would take this many hundredths of a
#: trick in the declared contract (:func:`strength`): the declarer is then short of the
#: trumps or the aces the bid promised.
KONTRA_STRENGTH = np.array([300, 300, 300, 300, 300], dtype=np.int64)
#: The declarer answers Re when his hand after the discard is this much above what his game
#: needs (:func:`threshold`).
RE_MARGIN = 250


@njit
def says_kontra(hand: int, contract: int, cfg: np.ndarray) -> bool:
    """Whether the rules bot, defending ``contract`` with ``hand``, says Kontra (R19): never
    against a null (a defender cannot judge a hand that wants no trick), else when his hand
    is strong in the declarer's own contract (:data:`KONTRA_STRENGTH`)."""
    if contract == NULL:
        return False
    return strength(hand, contract, cfg) >= KONTRA_STRENGTH[contract]


@njit
def says_re(hand: int, contract: int, cfg: np.ndarray) -> bool:
    """Whether the rules bot, declarer of ``contract`` with ``hand`` (after the discard),
    answers a Kontra with Re (R19): a null never, else a hand well above its game's need."""
    if contract == NULL:
        return False
    return strength(hand, contract, cfg) >= threshold(contract, cfg) + RE_MARGIN


@njit
def ramsch_card(hand: int, legal: int, trick0: int, trick1: int, in_trick: int) -> int:
    """The rules bot's card in a Ramsch (R20: each for himself, the jacks alone trumps, the
    most card points lose). Leading: the lowest plain card (no jack), so that another
    player has to take the trick. Following: the card that loses the trick and sheds the
    most points (the highest such card when points tie); when every card wins, the one
    with the fewest points, the highest first (it would win later anyway)."""
    kind = RAMSCH
    if in_trick == 0:
        plain = legal & ~FOLLOW_T[kind, TRUMP]
        return _pick(plain if plain else legal, kind, 2)
    best = trick0
    if in_trick == 2 and beats(trick1, trick0, kind):
        best = trick1
    losers = legal & ~BEATERS_T[kind, best]
    pick = -1
    pick_key = -(1 << 40)
    rest = losers if losers else legal
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        points = POINTS_T[card]
        key = (100 * points if losers else -100 * points) + POWER_T[kind, card]
        if key > pick_key:
            pick_key = key
            pick = card
    return pick
