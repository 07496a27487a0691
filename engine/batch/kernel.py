"""The compiled hand loop: deal, auction, skat, declaration, ten tricks and score (R1-R16).

:func:`simulate_into` fills preallocated arrays (one row per hand) in parallel. Each hand's
random stream is derived from ``(seed, hand index)`` alone, so the output does not depend on
how the hands are split over threads, processes or machines. Only the engine's tables
(:mod:`.tables`) carry rules here; the differential test replays every game through
``GameState.apply`` to hold this loop equal to the engine.
"""

from __future__ import annotations

import numpy as np

from . import heuristics as h
from .jit import njit
from .tables import (
    BASE_T,
    CALL_HOLD,
    CALL_PASS,
    DECL_T,
    EFFECTIVE_T,
    FOLLOW_T,
    LADDER_T,
    N_DECL,
    NULL,
    NULL_VALUE_T,
    POINTS_T,
)

#: Most calls an auction can take: 63 bids each held, two passes, nothing else (R3, R4).
MAX_CALLS = 128
RANDOM_BOT = 0
RULES_BOT = 1

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


@njit
def _mix(z: np.uint64) -> np.uint64:
    """splitmix64's finaliser: a well-spread 64-bit hash."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit
def hand_stream(seed: int, index: int) -> np.uint64:
    """The start of hand ``index``'s random stream for ``seed`` (splitmix64)."""
    return _mix(_mix(np.uint64(seed) + _GOLDEN) ^ np.uint64(index))


@njit
def _below(state: np.uint64, n: int) -> tuple[np.uint64, int]:
    """Next state and a uniform integer in ``0..n-1``."""
    state = state + _GOLDEN
    r = _mix(state) >> _S32
    return state, int((r * np.uint64(n)) >> _S32)


@njit
def deal_into(state: np.uint64, deal: np.ndarray) -> np.uint64:
    """Shuffle the 32 cards into ``deal`` (ISS order: Forehand's ten, Middlehand's, Rearhand's,
    the skat). A uniform shuffle gives the same distribution as dealing 3 - 2 - 4 - 3 (R1)."""
    for k in range(32):
        deal[k] = k
    for k in range(31, 0, -1):
        state, j = _below(state, k + 1)
        tmp = deal[k]
        deal[k] = deal[j]
        deal[j] = tmp
    return state


@njit
def _legal(hand: int, led: int, contract: int) -> int:
    """Cards of ``hand`` that may be played to a trick led by ``led`` (-1: leading) (R8)."""
    if led < 0:
        return hand
    follow = hand & FOLLOW_T[contract, EFFECTIVE_T[contract, led]]
    return follow if follow else hand


@njit
def _declaration_ok(d: int, hand_game: bool, bid: int) -> bool:
    """Declaration ``d`` is legal now: hand-ness matches (R5) and a null is worth the bid
    (R7; announcements' legality is already in DECL_T, R6)."""
    if (DECL_T[d, 1] == 1) != hand_game:
        return False
    if DECL_T[d, 0] == NULL:
        return NULL_VALUE_T[DECL_T[d, 1], DECL_T[d, 4]] >= bid
    return True


@njit
def _random_declaration(state: np.uint64, hand_game: bool, bid: int, extra: int,
                        ) -> tuple[np.uint64, int]:
    """Uniform over ``extra`` other options plus the legal declarations; returns -1 - k
    for the k-th other option."""
    n = extra
    for d in range(N_DECL):
        if _declaration_ok(d, hand_game, bid):
            n += 1
    state, r = _below(state, n)
    if r < extra:
        return state, -1 - r
    r -= extra
    for d in range(N_DECL):
        if _declaration_ok(d, hand_game, bid):
            if r == 0:
                return state, d
            r -= 1
    return state, -1


@njit
def score(decl: int, bid: int, mats: int, declarer_points: int, defender_points: int,
          declarer_tricks: int, defender_tricks: int) -> tuple[int, int, int, int, int, int,
                                                               int]:
    """(won, value, game_value, multiplier, overbid, schneider, schwarz) as
    ``engine.scoring.score_game`` computes them (R10-R16)."""
    contract = DECL_T[decl, 0]
    hand = DECL_T[decl, 1]
    s_ann = DECL_T[decl, 2]
    z_ann = DECL_T[decl, 3]
    ouvert = DECL_T[decl, 4]
    if contract == NULL:
        value = NULL_VALUE_T[hand, ouvert]
        if value < bid:  # R7
            lost = -(-bid // BASE_T[NULL]) * BASE_T[NULL]
            return 0, -2 * lost, lost, 1, 1, 0, 0
        won = 1 if declarer_tricks == 0 else 0
        return won, value if won else -2 * value, value, 1, 0, 0, 0
    schneider = 1 if declarer_points >= 90 or defender_points >= 90 else 0
    schwarz = 1 if declarer_tricks == 10 or defender_tricks == 10 else 0
    mult = (abs(mats) + 1 + hand + max(schneider, s_ann) + s_ann + max(schwarz, z_ann)
            + z_ann + ouvert)
    base = BASE_T[contract]
    value = base * mult
    if z_ann:
        objective = declarer_tricks == 10 and defender_tricks == 0
    elif s_ann:
        objective = declarer_points >= 90
    else:
        objective = declarer_points >= 61
    if value < bid:  # R15
        lost = -(-bid // base) * base
        return 0, -2 * lost, lost, mult, 1, schneider, schwarz
    if objective:
        return 1, value, value, mult, 0, schneider, schwarz
    return 0, -2 * value, value, mult, 0, schneider, schwarz


@njit
def play_hand_into(
    seed: int, index: int, bots: np.ndarray, scratch: np.ndarray, i: int,
    deal: np.ndarray, n_calls: np.ndarray, calls: np.ndarray, call_seats: np.ndarray,
    game: np.ndarray, discard: np.ndarray, cards: np.ndarray, winners: np.ndarray,
) -> None:
    """Play hand ``index`` and write row ``i`` of the output arrays.

    ``bots[seat]`` is the bot sitting Forehand, Middlehand, Rearhand. ``game`` columns are
    listed in :data:`GAME_COLUMNS`. ``scratch`` is working memory (>= 12 int64), reused
    across hands so the loop allocates nothing.
    """
    state = hand_stream(seed, index)
    state = deal_into(state, deal[i])
    hands = scratch[0:3]
    dealt = scratch[3:6]
    taken_points = scratch[6:9]
    taken_tricks = scratch[9:12]
    scratch[0:12] = 0
    for k in range(30):
        hands[k // 10] |= 1 << deal[i, k]
    dealt[:] = hands
    skat = (1 << deal[i, 30]) | (1 << deal[i, 31])

    # ---- auction (R3, R4)
    bid = 0
    stage = 1
    speaker = 1
    listener = 0
    to_act = 1
    declarer = -1
    done = False
    nc = 0
    while not done:
        seat = to_act
        call = CALL_PASS
        if stage == 3:
            if bots[seat] == RANDOM_BOT:
                state, r = _below(state, 2)
                call = 18 if r == 0 else CALL_PASS
            else:
                call = h.auction_call(hands[seat], seat, bid, False, True)
            done = True
            if call != CALL_PASS:
                bid = 18
                declarer = 0
        elif seat == listener:
            if bots[seat] == RANDOM_BOT:
                state, r = _below(state, 2)
                call = CALL_HOLD if r == 0 else CALL_PASS
            else:
                call = h.auction_call(hands[seat], seat, bid, True, False)
        else:
            if bots[seat] == RANDOM_BOT:
                start = 0
                while start < LADDER_T.shape[0] and LADDER_T[start] <= bid:
                    start += 1
                state, r = _below(state, LADDER_T.shape[0] - start + 1)
                call = LADDER_T[start + r] if start + r < LADDER_T.shape[0] else CALL_PASS
            else:
                call = h.auction_call(hands[seat], seat, bid, False, False)
        calls[i, nc] = call
        call_seats[i, nc] = seat
        nc += 1
        if stage == 3:
            continue
        if call == CALL_HOLD:
            to_act = speaker
        elif call != CALL_PASS:
            bid = call
            to_act = listener
        else:
            survivor = listener if seat == speaker else speaker
            if stage == 1:
                stage = 2
                speaker = 2
                listener = survivor
                to_act = 2
            elif bid > 0:
                done = True
                declarer = survivor
            else:
                stage = 3
                speaker = 0
                listener = 0
                to_act = 0
    n_calls[i] = nc
    game[i, 0] = declarer
    game[i, 1] = bid
    discard[i, 0] = -1
    discard[i, 1] = -1
    if declarer < 0:
        game[i, 2:] = 0
        game[i, 4] = -1
        return

    # ---- skat, discard and declaration (R5-R7)
    d = declarer
    decl = -1
    pickup = 0
    declare_first = 0
    known = 0
    if bots[d] == RANDOM_BOT:
        state, decl = _random_declaration(state, True, bid, 1)
        if decl < 0:
            decl = -1
            pickup = 1
            hands[d] |= skat
            held = hands[d]
            while discard[i, 0] < 0 or decl < 0:
                n_disc = 66 if discard[i, 0] < 0 else 0
                if decl < 0:
                    state, pick = _random_declaration(state, False, bid, n_disc)
                else:
                    state, pick = _below(state, n_disc)
                    pick = -1 - pick
                if pick >= 0:
                    decl = pick
                    declare_first = 1 if discard[i, 0] < 0 else 0
                else:
                    k = -1 - pick
                    a = 0
                    while k >= 11 - a:
                        k -= 11 - a
                        a += 1
                    ca = h.nth_bit(held, a)
                    cb = h.nth_bit(held, a + 1 + k)
                    discard[i, 0] = ca
                    discard[i, 1] = cb
    else:
        decl = h.hand_game(hands[d], bid, d)
        if decl < 0:
            pickup = 1
            hands[d] |= skat
            ca, cb, decl = h.discard_and_declare(hands[d], bid, d)
            discard[i, 0] = ca
            discard[i, 1] = cb
    if pickup:
        hands[d] &= ~((1 << discard[i, 0]) | (1 << discard[i, 1]))
        known = (1 << discard[i, 0]) | (1 << discard[i, 1])
    contract = DECL_T[decl, 0]

    # ---- trick play (R8, R9)
    leader = 0
    played = 0
    voids = 0
    n = 0
    n_tricks = 0
    for t in range(10):
        t0 = -1
        t1 = -1
        for k in range(3):
            seat = (leader + k) % 3
            led = t0 if k > 0 else -1
            legal = _legal(hands[seat], led, contract)
            if bots[seat] == RANDOM_BOT:
                state, r = _below(state, h.popcount(legal))
                card = h.nth_bit(legal, r)
            else:
                card = h.choose_card(seat, hands[seat], legal, contract, d, leader,
                                     t0, t1, k, played, known if seat == d else 0, voids)
            hands[seat] &= ~(1 << card)
            played |= 1 << card
            cards[i, n] = card
            n += 1
            if k == 0:
                t0 = card
            elif k == 1:
                t1 = card
            if k > 0 and EFFECTIVE_T[contract, card] != EFFECTIVE_T[contract, t0]:
                voids |= 1 << (seat * 5 + EFFECTIVE_T[contract, t0])
            if k == 2:
                best = 0
                if h.beats(t1, t0, contract):
                    best = 1
                    if h.beats(card, t1, contract):
                        best = 2
                elif h.beats(card, t0, contract):
                    best = 2
                winner = (leader + best) % 3
                winners[i, t] = winner
                taken_points[winner] += POINTS_T[t0] + POINTS_T[t1] + POINTS_T[card]
                taken_tricks[winner] += 1
                leader = winner
        n_tricks += 1
        if contract == NULL and leader == d:
            break  # R9: the null declarer took a trick

    # ---- score (R10-R16)
    skat_points = POINTS_T[deal[i, 30]] + POINTS_T[deal[i, 31]]
    if pickup:
        skat_points = POINTS_T[discard[i, 0]] + POINTS_T[discard[i, 1]]
    declarer_points = taken_points[d] + skat_points
    defender_points = taken_points[0] + taken_points[1] + taken_points[2] - taken_points[d]
    declarer_tricks = taken_tricks[d]
    defender_tricks = n_tricks - declarer_tricks
    mats = 0 if contract == NULL else h.matadors(dealt[d] | skat, contract)
    won, value, game_value, mult, overbid, schneider, schwarz = score(
        decl, bid, mats, declarer_points, defender_points, declarer_tricks, defender_tricks)
    game[i, 2] = pickup
    game[i, 3] = declare_first
    game[i, 4] = decl
    game[i, 5] = n
    game[i, 6] = won
    game[i, 7] = value
    game[i, 8] = game_value
    game[i, 9] = mult
    game[i, 10] = overbid
    game[i, 11] = schneider
    game[i, 12] = schwarz
    game[i, 13] = mats
    game[i, 14] = declarer_points
    game[i, 15] = defender_points
    game[i, 16] = declarer_tricks
    game[i, 17] = defender_tricks


#: Columns of the ``game`` output array.
GAME_COLUMNS = (
    "declarer", "bid", "pickup", "declare_first", "decl", "n_cards", "won", "value",
    "game_value", "multiplier", "overbid", "schneider", "schwarz", "matadors",
    "declarer_points", "defender_points", "declarer_tricks", "defender_tricks",
)


@njit(nogil=True)
def simulate_into(
    seed: int, start: int, bots_by_position: np.ndarray,
    deal: np.ndarray, n_calls: np.ndarray, calls: np.ndarray, call_seats: np.ndarray,
    game: np.ndarray, discard: np.ndarray, cards: np.ndarray, winners: np.ndarray,
) -> None:
    """Play hands ``start .. start + len(deal) - 1`` into the arrays (rows 0 ..).

    Hand ``index`` is dealt by table position ``index % 3`` (the deal moves one seat left
    each hand, R2), so Forehand is position ``(index + 1) % 3``. The GIL is released:
    callers run slices of one batch on several threads.
    """
    scratch = np.zeros(16, dtype=np.int64)
    bots = np.empty(3, dtype=np.int64)
    for i in range(deal.shape[0]):
        index = start + i
        dealer = index % 3
        for seat in range(3):
            bots[seat] = bots_by_position[(dealer + 1 + seat) % 3]
        play_hand_into(seed, index, bots, scratch, i, deal, n_calls, calls, call_seats,
                       game, discard, cards, winners)
