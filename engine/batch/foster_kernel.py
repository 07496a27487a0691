"""The compiled hand loop of Foster's Skat (F2-F12): deal, his auction, the turned card or
gucki or a solo, the lay-out, the play, and his score or the Ramsch.

:func:`simulate_foster_into` fills the same preallocated arrays as the modern loop
(:func:`.kernel.simulate_into`), one row a hand, with Foster's games in the ``decl`` column
and his own facts in ``extra`` (:data:`FOSTER_EXTRA_COLUMNS`). A hand's random stream and
deal come from ``(seed, hand index)`` exactly as in the modern loop. Every rule is the rules
core's (:mod:`skatlog.engine.core`): Foster's auction calls step through
:func:`~skatlog.engine.core.auction_step` on his ladder, the cards through the legal-card,
trick-winner and early-ending primitives of his games' trump tables, the score through
:func:`~skatlog.engine.core.foster_score` and :func:`~skatlog.engine.core.foster_ramsch_score`.
The differential test replays every hand through :class:`~skatlog.engine.FosterHand`.
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..jit import njit
from . import foster_bots as fb
from . import heuristics as h
from .kernel import (
    DISCARD_PAIR_T,
    N_CARDS,
    N_TRICKS,
    RANDOM_BOT,
    _below,
    _close_trick,
    _defender_points,
    _nth_bit,
    _of_seat,
    _random_card,
    _seat,
    deal_into,
    hand_stream,
)
from .tables import EFFECTIVE_T

#: Columns of the ``extra`` array of a Foster batch: the turned skat card (-1: none), whether
#: it was turned after Passt-mir-nicht, whether the player took the skat by gucki, the
#: announcements of a solo (law 39), and a Ramsch's card points and scores by seat (F12).
FOSTER_EXTRA_COLUMNS = (
    "turned", "passt_mir_nicht", "gucki", "schneider_announced", "schwarz_announced",
    "ramsch_points_0", "ramsch_points_1", "ramsch_points_2",
    "ramsch_value_0", "ramsch_value_1", "ramsch_value_2",
)
_N_DISCARDS = DISCARD_PAIR_T.shape[0]
_USES_SKAT = np.array(core.FOSTER_USES_SKAT, dtype=np.int64)
_GUCKI = np.array(core.FOSTER_GUCKI, dtype=np.int64)
#: The random bot's choices after winning the auction: a Tournée, the two guckis and
#: the open gucki nullo, then the solos (four suits, solo grand, open grand, two nullos).
_RANDOM_GAMES = np.array([-1, core.F_GUCKI_GRAND, core.F_GUCKI_NULLO, core.F_OPEN_GUCKI_NULLO,
                          core.F_SOLO_DIAMONDS, core.F_SOLO_HEARTS, core.F_SOLO_SPADES,
                          core.F_SOLO_CLUBS, core.F_SOLO_GRAND, core.F_OPEN_GRAND,
                          core.F_SOLO_NULLO, core.F_OPEN_SOLO_NULLO], dtype=np.int64)


@njit
def _random_call(state: np.uint64, stage: int, seat: int, listener: int, bid: int
                 ) -> tuple[np.uint64, int]:
    """The random bot's call (F4): a coin to take the game at 10 or hold; a uniform choice
    among the higher Foster bids and a pass."""
    if stage == 3:
        state, r = _below(state, 2)
        return state, core.FOSTER_MIN_BID if r == 0 else core.CALL_PASS
    if seat == listener:
        state, r = _below(state, 2)
        return state, core.CALL_HOLD if r == 0 else core.CALL_PASS
    above = fb.FOSTER_NEXT_T[bid] if bid < fb.FOSTER_NEXT_T.shape[0] else fb.N_FOSTER_LADDER
    state, r = _below(state, fb.N_FOSTER_LADDER - above + 1)
    if above + r < fb.N_FOSTER_LADDER:
        return state, core.FOSTER_LADDER[above + r]
    return state, core.CALL_PASS


@njit
def _random_lay_out(state: np.uint64, held: int) -> tuple[np.uint64, int, int]:
    """Two of the twelve cards, uniformly."""
    state, pick = _below(state, _N_DISCARDS)
    a = _nth_bit(held, DISCARD_PAIR_T[pick, 0])
    return state, a, _nth_bit(held, DISCARD_PAIR_T[pick, 1])


@njit
def _play_ramsch(state: np.uint64, i: int, hands: np.ndarray, b0: int, b1: int, b2: int,
                 cards: np.ndarray, winners: np.ndarray, extra: np.ndarray, skat_points: int
                 ) -> np.uint64:
    """Play hand ``i`` as Foster's Ramsch (F12): Vorhand leads, the jacks alone are trumps,
    the last trick takes the skat; the points and scores by seat go to ``extra``."""
    kind = core.RAMSCH
    leader = 0
    by_seat = 0
    for t in range(N_TRICKS):
        t0 = -1
        t1 = -1
        card = -1
        follow = -1
        for k in range(3):
            seat = _seat(leader + k)
            hand = hands[seat]
            if _of_seat(seat, b0, b1, b2) == RANDOM_BOT:
                state, card = _random_card(state, hand, follow)
            else:
                card = h.ramsch_card(hand, core.legal_cards(hand, follow), t0, t1, k)
            hands[seat] = hand & ~(1 << card)
            cards[i, 3 * t + k] = card
            if k == 0:
                t0 = card
                follow = core.follow_mask(kind, card)
            elif k == 1:
                t1 = card
        leader, by_seat = _close_trick(kind, leader, t0, t1, card, by_seat)
        winners[i, t] = leader
    p0, p1, p2 = core.skat_to_last_trick(by_seat & 0xFFFF, (by_seat >> 16) & 0xFFFF,
                                         (by_seat >> 32) & 0xFFFF, leader, skat_points)
    v0, v1, v2 = core.foster_ramsch_score(p0, p1, p2, (by_seat >> 48) & 0x1F,
                                          (by_seat >> 53) & 0x1F, (by_seat >> 58) & 0x1F,
                                          leader)
    extra[i, 5] = p0
    extra[i, 6] = p1
    extra[i, 7] = p2
    extra[i, 8] = v0
    extra[i, 9] = v1
    extra[i, 10] = v2
    return state


@njit(nogil=True)
def simulate_foster_into(
    seed: int, start: int, bots_by_position: np.ndarray, cfgs: np.ndarray,
    deal: np.ndarray, n_calls: np.ndarray, calls: np.ndarray, call_seats: np.ndarray,
    game: np.ndarray, discard: np.ndarray, cards: np.ndarray, winners: np.ndarray,
    extra: np.ndarray,
) -> None:
    """Play Foster hands ``start .. start + len(deal) - 1`` into the arrays (rows 0 ..),
    laid out as :func:`.kernel.simulate_into`'s (``calls``/``call_seats`` come zeroed).

    ``game``'s ``decl`` column holds the Foster game (``core.F_*``; a Ramsch is
    ``core.F_RAMSCH`` with declarer -1), ``pickup`` whether the game uses the skat,
    ``declare_first`` whether a gucki nullo was announced before the skat was taken, the
    score columns Foster's (F8-F11). ``extra`` receives :data:`FOSTER_EXTRA_COLUMNS`.
    """
    hands = np.empty(3, dtype=np.int64)
    p0 = bots_by_position[0]
    p1 = bots_by_position[1]
    p2 = bots_by_position[2]
    v0 = cfgs[0]
    v1 = cfgs[1]
    v2 = cfgs[2]
    for i in range(deal.shape[0]):
        index = start + i
        dealer = index % 3  # with three players Hinterhand deals (F1, law 15)
        if dealer == 0:
            b0, b1, b2 = p1, p2, p0
            c0, c1, c2 = v1, v2, v0
        elif dealer == 1:
            b0, b1, b2 = p2, p0, p1
            c0, c1, c2 = v2, v0, v1
        else:
            b0, b1, b2 = p0, p1, p2
            c0, c1, c2 = v0, v1, v2
        state = hand_stream(seed, index)
        state, skat = deal_into(state, deal, i, hands)
        for col in range(extra.shape[1]):
            extra[i, col] = 0
        extra[i, 0] = -1
        lim0 = fb.bid_limit(hands[0], 0, c0) if b0 != RANDOM_BOT else 0
        lim1 = fb.bid_limit(hands[1], 1, c1) if b1 != RANDOM_BOT else 0
        lim2 = fb.bid_limit(hands[2], 2, c2) if b2 != RANDOM_BOT else 0

        # ---- auction (F3, F4)
        stage, speaker, listener, to_act, bid = core.AUCTION_START
        declarer = -1
        nc = 0
        while stage != core.AUCTION_DONE:
            seat = to_act
            if _of_seat(seat, b0, b1, b2) == RANDOM_BOT:
                state, call = _random_call(state, stage, seat, listener, bid)
            else:
                call = fb.foster_call(_of_seat(seat, lim0, lim1, lim2), bid, seat == listener
                                      and stage != 3, stage == 3)
            calls[i, nc] = call
            call_seats[i, nc] = seat
            nc += 1
            stage, speaker, listener, to_act, bid, declarer = core.auction_step(
                stage, speaker, listener, to_act, bid, seat, call)
        n_calls[i] = nc
        game[i, 0] = declarer
        game[i, 1] = bid
        if declarer < 0:  # F4: nobody bid and Vorhand passed: a Ramsch (F12)
            for col in range(2, game.shape[1]):
                game[i, col] = 0
            game[i, 4] = core.F_RAMSCH
            game[i, 5] = N_CARDS
            discard[i, 0] = -1
            discard[i, 1] = -1
            state = _play_ramsch(state, i, hands, b0, b1, b2, cards, winners, extra,
                                 core.POINTS[deal[i, 30]] + core.POINTS[deal[i, 31]])
            continue

        # ---- the game (F5): a Tournée, gucki, or a solo; the lay-out (law 32)
        d = declarer
        held = hands[d]
        dealt_d = held
        cfg_d = c0 if d == 0 else (c1 if d == 1 else c2)
        kind = -1
        turned = -1
        pmn = 0
        gucki = 0
        s_ann = 0
        z_ann = 0
        declare_first = 0
        ca = -1
        cb = -1
        first = deal[i, 30]
        second = deal[i, 31]
        if _of_seat(d, b0, b1, b2) == RANDOM_BOT:
            state, r = _below(state, _RANDOM_GAMES.shape[0])
            choice = _RANDOM_GAMES[r]
            if choice < 0:  # a Tournée: either card, perhaps after Passt-mir-nicht
                state, r = _below(state, 2)
                turned = first if r == 0 else second
                state, r = _below(state, 2)
                if r == 0:
                    pmn = 1
                    turned = second if turned == first else first
                kind = core.F_TOURNEE_DIAMONDS + (turned >> 3)
                if (turned & 7) == core.JACK:
                    state, r = _below(state, 2)
                    if r == 0:
                        kind = core.F_TURNED_GRAND
            else:
                kind = choice
                if _GUCKI[kind] == 1:
                    gucki = 1
                    declare_first = 1 if kind != core.F_GUCKI_GRAND else 0
                elif kind < core.F_OPEN_GRAND:  # a suit solo or solo grand may announce
                    state, r = _below(state, 3)
                    s_ann = 1 if r >= 1 else 0
                    z_ann = 1 if r == 2 else 0
            if _USES_SKAT[kind] == 1:
                held |= skat
                state, ca, cb = _random_lay_out(state, held)
        else:
            _, planned, kind, s_ann = fb.plan(held, d, cfg_d, bid)
            if planned == fb.PLAN_TOURNEE:  # he sees the first card only (law 28)
                turned = first
                if fb.passt_mir_nicht(held, first, d, cfg_d):
                    pmn = 1
                    turned = second
                held |= skat
                kind, ca, cb, _ = fb.turned_game(held, turned, cfg_d)
            elif _USES_SKAT[kind] == 1:  # the guckis
                gucki = 1
                declare_first = 1 if kind != core.F_GUCKI_GRAND else 0
                held |= skat
                ca, cb, _ = fb.lay_out(held, core.FOSTER_PLAY[kind], cfg_d)
        known = 0
        if ca >= 0:
            known = (1 << ca) | (1 << cb)
            held &= ~known
        hands[d] = held
        contract = core.FOSTER_PLAY[kind]
        open_game = kind == core.F_OPEN_GRAND or kind == core.F_OPEN_GUCKI_NULLO \
            or kind == core.F_OPEN_SOLO_NULLO
        discard[i, 0] = ca
        discard[i, 1] = cb
        extra[i, 0] = turned
        extra[i, 1] = pmn
        extra[i, 2] = gucki
        extra[i, 3] = s_ann
        extra[i, 4] = z_ann

        # ---- trick play (F7): Vorhand leads; a nullo ends at the player's first trick
        leader = 0
        n_tricks = 0
        by_seat = 0
        played = 0
        voids = 0
        ending = core.END_NONE
        for t in range(N_TRICKS):
            t0 = -1
            t1 = -1
            card = -1
            follow = -1
            for k in range(3):
                seat = _seat(leader + k)
                hand = hands[seat]
                if _of_seat(seat, b0, b1, b2) == RANDOM_BOT:
                    state, card = _random_card(state, hand, follow)
                else:
                    card = h.choose_card(seat, hand, core.legal_cards(hand, follow), contract,
                                         d, leader, t0, t1, k, played,
                                         known if seat == d else 0, voids,
                                         hands[d] if open_game and seat != d else 0,
                                         c0 if seat == 0 else (c1 if seat == 1 else c2))
                hands[seat] = hand & ~(1 << card)
                played |= 1 << card
                cards[i, 3 * t + k] = card
                if k == 0:
                    t0 = card
                    follow = core.follow_mask(contract, card)
                else:
                    if k == 1:
                        t1 = card
                    led = EFFECTIVE_T[contract, t0]
                    if EFFECTIVE_T[contract, card] != led:
                        voids |= 1 << (seat * 5 + led)
            leader, by_seat = _close_trick(contract, leader, t0, t1, card, by_seat)
            winners[i, t] = leader
            n_tricks += 1
            ending, over = core.after_trick(contract, False, False, d, leader, n_tricks, 0,
                                            ending, 0)
            if over:
                break
        n = 3 * n_tricks
        for k in range(n, N_CARDS):
            cards[i, k] = -1
        for k in range(n_tricks, N_TRICKS):
            winners[i, k] = -1

        # ---- score (F8-F11)
        skat_points = core.skat_points(ca, cb, first, second)  # F9: the skat is his
        declarer_tricks = (by_seat >> (48 + 5 * d)) & 0x1F
        declarer_points = ((by_seat >> (16 * d)) & 0xFFFF) + skat_points
        defender_points = _defender_points(by_seat, d)
        mats = core.matadors(dealt_d | skat, contract)
        won, value, game_value, mult, overbid, schneider, schwarz = core.foster_score(
            kind, pmn == 1, s_ann == 1, z_ann == 1, False, bid, mats, declarer_points,
            declarer_tricks, n_tricks - declarer_tricks)
        game[i, 2] = _USES_SKAT[kind]
        game[i, 3] = declare_first
        game[i, 4] = kind
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
        game[i, 17] = n_tricks - declarer_tricks
