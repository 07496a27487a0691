"""The compiled hand loop: deal, auction, skat, declaration, ten tricks and score (R1-R16).

:func:`simulate_into` fills preallocated arrays (one row per hand); callers run slices of one
batch on several threads. Each hand's random stream is derived from ``(seed, hand index)``
alone, so the output does not depend on how the hands are split over threads, processes or
machines. The rules come from the rules core (:mod:`skatlog.engine.core`): the auction steps,
legal cards, trick winner, early ending, matadors and score are its functions, compiled into
this loop; the differential test replays every game through ``GameState.apply``.

The loop is written for speed (about 0.4-0.5 us of CPU a hand with three random bots, see
``bench/kernel.py``): the trick and the score live in local variables, the random bot's
choices and the trick winner come from lookup tables and branch-free bit tricks (a random
card is a coin flip no branch predictor can learn), and three random bots get a trick loop of
their own without the rules bot's bookkeeping. Every element of every output row is written
here except the unused tail of ``calls`` and ``call_seats``, which the caller zeroes
(``np.zeros`` is free on fresh pages, writing 120 zeros a hand is not).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .. import core
from ..bits import ctpop
from ..jit import HAVE_NUMBA, njit
from ..session import HANDS_PER_SESSION
from . import heuristics as h
from .tables import CALL_HOLD, CALL_PASS, DECL_T, EFFECTIVE_T, LADDER_T, N_DECL

#: Most calls an auction can take: 63 bids each held, two passes, nothing else (R3, R4).
MAX_CALLS = 128
RANDOM_BOT = 0
RULES_BOT = 1
#: Cards per hand and tricks per game (R1, R8).
N_CARDS = 30
N_TRICKS = 10

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)

# ------------------------------------------------------------- derived lookup tables
_N_LADDER = core.N_LADDER


def _declaration_table() -> tuple[np.ndarray, np.ndarray]:
    """DECL_OK_N_T[hand, bid] -> how many declarations are legal (R5-R7) for a hand game or
    not at this bid, and DECL_OK_T[hand, bid, k] -> the k-th of them (index into DECL_T)."""
    bids = int(LADDER_T[-1]) + 1
    count = np.zeros((2, bids), dtype=np.int64)
    table = np.full((2, bids, N_DECL), -1, dtype=np.int64)
    for hand in (0, 1):
        for bid in range(bids):
            for d in range(N_DECL):
                contract, is_hand, _, _, ouvert = (int(x) for x in DECL_T[d])
                if is_hand != hand:  # R5: DECL_T holds legal declarations of either kind
                    continue
                if core.bid_error(contract, is_hand, ouvert, bid, 0):
                    continue  # R7: a null must be worth the bid
                table[hand, bid, count[hand, bid]] = d
                count[hand, bid] += 1
    return count, table


DECL_OK_N_T, DECL_OK_T = _declaration_table()


def _discard_pairs() -> np.ndarray:
    """DISCARD_PAIR_T[k] -> the k-th pair (a, b), a < b, of positions in a 12-card hand."""
    return np.array([(a, b) for a in range(12) for b in range(a + 1, 12)], dtype=np.int64)


DISCARD_PAIR_T = _discard_pairs()
_N_DISCARDS = DISCARD_PAIR_T.shape[0]  # 66

# ------------------------------------------------------------------- bit helpers
_ctpop = ctpop


@njit(inline="always")
def _step(x: int, n: int, pos: int, width: int) -> tuple[int, int, int]:
    """One halving step of :func:`_nth_bit_search`, without a branch."""
    c = _ctpop(x & ((1 << width) - 1))
    skip = (c - n - 1) >> 63  # all ones when the bit lies above the low ``width`` bits
    return x >> (width & skip), n - (c & skip), pos + (width & skip)


@njit(inline="always")
def _nth_bit_search(x: int, n: int) -> int:
    """Index of the n-th (0-based, lowest first) set bit of a 32-bit mask; a binary search
    on population counts, so the time does not depend on ``n`` (no mispredicted loop)."""
    x, n, pos = _step(x, n, 0, 16)
    x, n, pos = _step(x, n, pos, 8)
    x, n, pos = _step(x, n, pos, 4)
    x, n, pos = _step(x, n, pos, 2)
    x, n, pos = _step(x, n, pos, 1)
    return pos


#: CPUs with BMI2 whose PDEP runs in microcode (AMD before Zen 3): slower than the search.
_SLOW_PDEP_CPUS = frozenset({"bdver1", "bdver2", "bdver3", "bdver4", "znver1", "znver2"})


def _fast_pdep() -> bool:
    """Whether numba compiles for a CPU with a fast PDEP instruction (``SKATLOG_NO_PDEP=1``
    forces the portable search; with an on-disk cache, set ``NUMBA_CACHE_DIR`` too)."""
    if not HAVE_NUMBA or os.environ.get("SKATLOG_NO_PDEP"):
        return False
    try:
        import llvmlite.binding as ll
        from numba.core import config
        from numba.core.codegen import get_host_cpu_features

        name = getattr(config, "CPU_NAME", None) or ll.get_host_cpu_name()
        features = getattr(config, "CPU_FEATURES", None)
        if features is None:
            features = get_host_cpu_features()
    except Exception:  # pragma: no cover - an unusual numba build: stay portable
        return False
    return "+bmi2" in str(features).split(",") and name not in _SLOW_PDEP_CPUS


FAST_PDEP = _fast_pdep()
_nth_bit: Any
if FAST_PDEP:
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.cpython.unsafe.numbers import trailing_zeros
    from numba.extending import intrinsic

    @intrinsic
    def _pdep(typingctx: Any, src: Any, mask: Any) -> Any:
        """x86 BMI2 ``pdep``: deposit the low bits of ``src`` at the set bits of ``mask``."""
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            i64 = ir.IntType(64)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(i64, [i64, i64]), "llvm.x86.bmi.pdep.64")
            values = [context.cast(builder, a, t, types.int64)
                      for a, t in zip(args, signature.args, strict=True)]
            return builder.call(fn, values)

        return types.int64(src, mask), codegen

    @njit(inline="always")
    def _nth_bit(x: int, n: int) -> int:
        """Index of the n-th (0-based, lowest first) set bit of ``x``: one ``pdep``."""
        return trailing_zeros(_pdep(1 << n, x))  # type: ignore[call-arg]
else:
    _nth_bit = _nth_bit_search


@njit(inline="always")
def _seat(x: int) -> int:
    """``x % 3`` for ``0 <= x <= 4`` (a seat plus an offset) by multiplication: a compare
    would become a jump, mispredicted whenever the trick winner changes."""
    return x - 3 * ((x * 0x5556) >> 16)


@njit(inline="always")
def _of_seat(seat: int, a: int, b: int, c: int) -> int:
    """``(a, b, c)[seat]``."""
    return a if seat == 0 else (b if seat == 1 else c)


# ------------------------------------------------------------------ random stream
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


@njit(inline="always")  # inlined by numba: a call would count references to the arrays
def deal_into(state: np.uint64, deal: np.ndarray, i: int, hands: np.ndarray
              ) -> tuple[np.uint64, int]:
    """Shuffle the 32 cards into row ``i`` of ``deal`` (ISS order: Forehand's ten,
    Middlehand's, Rearhand's, the skat) and their masks into ``hands``; returns the state and
    the skat's mask. A uniform shuffle gives the same distribution as dealing 3 - 2 - 4 - 3
    (R1). Fisher-Yates from the top settles position ``k`` in step ``k``, so the masks are
    built on the way."""
    for k in range(32):
        deal[i, k] = k
    skat = 0
    h2 = 0
    h1 = 0
    h0 = 0
    for k in range(31, 0, -1):
        state, j = _below(state, k + 1)
        card = deal[i, j]
        deal[i, j] = deal[i, k]
        deal[i, k] = card
        bit = 1 << card
        if k >= 30:
            skat |= bit
        elif k >= 20:
            h2 |= bit
        elif k >= 10:
            h1 |= bit
        else:
            h0 |= bit
    h0 |= 1 << deal[i, 0]
    hands[0] = h0
    hands[1] = h1
    hands[2] = h2
    return state, skat


@njit(inline="always")
def _random_declaration(state: np.uint64, hand_game: int, bid: int, extra: int,
                        ) -> tuple[np.uint64, int]:
    """Uniform over ``extra`` other options plus the legal declarations; returns -1 - k
    for the k-th other option."""
    state, r = _below(state, extra + DECL_OK_N_T[hand_game, bid])
    if r < extra:
        return state, -1 - r
    return state, DECL_OK_T[hand_game, bid, r - extra]


@njit(inline="always")
def _random_card(state: np.uint64, hand: int, follow: int) -> tuple[np.uint64, int]:
    """The random bot's card: uniform over the legal cards of ``hand`` when the trick's
    first card allows ``follow`` (-1 when leading) (R8)."""
    legal = core.legal_cards(hand, follow)
    state, r = _below(state, _ctpop(legal))
    return state, _nth_bit(legal, r)


@njit(inline="always")
def _close_trick(contract: int, leader: int, c0: int, c1: int, c2: int, by_seat: int,
                 ) -> tuple[int, int]:
    """The trick's winner (R8, :func:`core.trick_winner`) and ``by_seat`` with the trick's
    points and count added to the winner's fields, without branches."""
    winner = leader + core.trick_winner(contract, c0, c1, c2)
    winner = winner - 3 if winner >= 3 else winner  # a conditional move, shorter than _seat
    points = core.trick_points(c0, c1, c2)
    return winner, by_seat + (points << (16 * winner)) + (1 << (48 + 5 * winner))


@njit(inline="always")
def _defender_points(by_seat: int, declarer: int) -> int:
    """The card points the defenders have taken, from ``by_seat``'s packed fields."""
    all_taken = (by_seat & 0xFFFF) + ((by_seat >> 16) & 0xFFFF) + ((by_seat >> 32) & 0xFFFF)
    return all_taken - ((by_seat >> (16 * declarer)) & 0xFFFF)


@njit(nogil=True)
def deal_rows(seed: int, start: int, deal: np.ndarray) -> None:
    """Deal hands ``start ..`` of run ``seed`` into the rows of ``deal`` (dealing order),
    exactly as :func:`simulate_into` deals them: the deal of a hand depends on the seed and
    its index alone, so bots played outside this loop (:mod:`.reference`) get the same
    deals."""
    hands = np.empty(3, dtype=np.int64)
    for i in range(deal.shape[0]):
        deal_into(hand_stream(seed, start + i), deal, i, hands)


#: Columns of the ``game`` output array.
GAME_COLUMNS = (
    "declarer", "bid", "pickup", "declare_first", "decl", "n_cards", "won", "value",
    "game_value", "multiplier", "overbid", "schneider", "schwarz", "matadors",
    "declarer_points", "defender_points", "declarer_tricks", "defender_tricks",
)


@njit(nogil=True)
def list_in_card_order(deal: np.ndarray) -> None:
    """Rewrite every row of ``deal`` with each hand and the skat in card order
    (:meth:`~skatlog.engine.Deal.sorted`). Play reads the hands' masks, so the order of the
    listed cards means nothing in a simulated hand; in card order the archive stores the
    deal in no space (:mod:`skatlog.ingest.computed`)."""
    for i in range(deal.shape[0]):
        for lo, hi in ((0, 10), (10, 20), (20, 30), (30, 32)):
            for k in range(lo + 1, hi):  # insertion sort of ten cards at most
                card = deal[i, k]
                j = k - 1
                while j >= lo and deal[i, j] > card:
                    deal[i, j + 1] = deal[i, j]
                    j -= 1
                deal[i, j + 1] = card


#: Columns of the ``extra`` output array (house options, R19 and R20): the seat that said
#: Kontra (-1: none), whether the declarer said Re, a Ramsch's card points and scores by seat.
EXTRA_COLUMNS = ("kontra_by", "re", "ramsch_points_0", "ramsch_points_1", "ramsch_points_2",
                 "ramsch_value_0", "ramsch_value_1", "ramsch_value_2", "bock")
#: Hands of a session (R21's Bock rounds are owed within one).
SESSION_HANDS = HANDS_PER_SESSION


@njit(nogil=True)
def bock_pass(start: int, game: np.ndarray, extra: np.ndarray, owed: int, flags: int) -> int:
    """R21 over hands ``start ..`` in order (after they were played: a Bock round changes
    no play): mark each hand the session owes a Bock hand (``extra``'s ``bock``), double
    its list value (a Ramsch's values too), and queue a round after each hand that earns
    one (:func:`core.bock_step`, :func:`core.bock_earned` on the value before Bock).
    Sessions are :data:`SESSION_HANDS` hands by index and start owing nothing; ``owed`` is
    what the session owes before hand ``start``. Returns what it owes after the last."""
    for i in range(game.shape[0]):
        if (start + i) % SESSION_HANDS == 0:
            owed = 0
        earned = game[i, 0] >= 0 and core.bock_earned(
            DECL_T[game[i, 4], 0], game[i, 14], game[i, 6] != 0, extra[i, 0] >= 0,
            game[i, 7], flags)
        bock, owed = core.bock_step(owed, earned)
        extra[i, 8] = 1 if bock else 0
        if bock:
            times = core.doublings(False, False, True)
            game[i, 7] = core.doubled(game[i, 7], times)
            for seat in range(3):
                extra[i, 5 + seat] = core.doubled(extra[i, 5 + seat], times)
    return owed


@njit
def _kontra_re(state: np.uint64, d: int, contract: int, hands: np.ndarray, b0: int, b1: int,
               b2: int, c0: np.ndarray, c1: np.ndarray, c2: np.ndarray
               ) -> tuple[np.uint64, int, int]:
    """R19 before the first card: the defenders in seat order may say Kontra, then the
    declarer Re; returns the state, the Kontra's seat (-1) and Re (0/1)."""
    kontra_by = -1
    for seat in range(3):
        if seat == d:
            continue
        if _of_seat(seat, b0, b1, b2) == RANDOM_BOT:
            state, r = _below(state, 4)
            says = r == 0
        else:
            says = h.says_kontra(hands[seat], contract, c0 if seat == 0 else (
                c1 if seat == 1 else c2))
        if says:
            kontra_by = seat
            break
    re = 0
    if kontra_by >= 0:
        if _of_seat(d, b0, b1, b2) == RANDOM_BOT:
            state, r = _below(state, 2)
            re = 1 if r == 0 else 0
        else:
            re = 1 if h.says_re(hands[d], contract, c0 if d == 0 else (
                c1 if d == 1 else c2)) else 0
    return state, kontra_by, re


@njit
def _play_ramsch(state: np.uint64, i: int, hands: np.ndarray, b0: int, b1: int, b2: int,
                 cards: np.ndarray, winners: np.ndarray, extra: np.ndarray,
                 skat_points: int) -> np.uint64:
    """Play hand ``i`` as a Ramsch (R20): Forehand leads, the jacks alone are trumps, the
    skat's points go to the last trick's winner; its points and scores go to ``extra``."""
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
            legal = core.legal_cards(hand, follow)
            if _of_seat(seat, b0, b1, b2) == RANDOM_BOT:
                state, card = _random_card(state, hand, follow)
            else:
                card = h.ramsch_card(hand, legal, t0, t1, k)
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
    v0, v1, v2, _, _ = core.ramsch_score(p0, p1, p2, (by_seat >> 48) & 0x1F,
                                         (by_seat >> 53) & 0x1F, (by_seat >> 58) & 0x1F)
    extra[i, 2] = p0
    extra[i, 3] = p1
    extra[i, 4] = p2
    extra[i, 5] = v0
    extra[i, 6] = v1
    extra[i, 7] = v2
    return state


@njit(nogil=True)
def simulate_into(
    seed: int, start: int, bots_by_position: np.ndarray, cfgs: np.ndarray,
    deal: np.ndarray, n_calls: np.ndarray, calls: np.ndarray, call_seats: np.ndarray,
    game: np.ndarray, discard: np.ndarray, cards: np.ndarray, winners: np.ndarray,
    flags: int, extra: np.ndarray,
) -> None:
    """Play hands ``start .. start + len(deal) - 1`` into the arrays (rows 0 ..).

    ``bots_by_position`` holds the bot codes of table positions 0, 1, 2 and ``cfgs`` their
    rules-bot configurations (rows of :data:`.config.N_CFG` floats). Hand ``index`` is
    dealt by table position ``index % 3`` (the deal moves one seat left each hand, R2), so
    Forehand is position ``(index + 1) % 3``. ``game`` columns are listed in
    :data:`GAME_COLUMNS`; discards, cards and trick winners not made are -1.

    Every element is written except the unused tail of each row of ``calls`` and
    ``call_seats``: those two must come zeroed (``np.zeros``), the others may come from
    ``np.empty``. One hand is one pass of the loop, not a function call: numba would count
    references to the eight arrays on every call. The GIL is released: callers run slices of
    one batch on several threads. ``flags`` is the rule set's ``core.RULE_*`` bits (0:
    ``isko``, skatlog's own games). With the house options ``kontra_re`` and ``ramsch``
    (R19, R20) ``extra`` (one row a hand; no rows otherwise) receives each hand's
    :data:`EXTRA_COLUMNS`: who said Kontra, Re, and a Ramsch's card points and scores by
    seat; an all-pass hand is then played as a Ramsch (``decl`` -1, 30 cards). The bots
    decide Kontra and Re by their hand evaluation (:func:`.heuristics.says_kontra`,
    :func:`.heuristics.says_re`; the random bot: a coin).
    """
    variants = extra.shape[0] > 0  # a rule set with house options (R19-R21)
    hands = np.empty(3, dtype=np.int64)  # the three hands' card masks, by seat
    p0 = bots_by_position[0]
    p1 = bots_by_position[1]
    p2 = bots_by_position[2]
    v0 = cfgs[0]  # the positions' configurations, as views made once, not once a card
    v1 = cfgs[1]
    v2 = cfgs[2]
    for i in range(deal.shape[0]):
        index = start + i
        # Forehand, Middlehand, Rearhand = positions dealer + 1, dealer + 2, dealer (R2).
        dealer = index % 3
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
        # The rules bots' bid limits, once a hand (every seat speaks at least once).
        lim0 = h.bid_limit(hands[0], 0, c0) if b0 == RULES_BOT else 0
        lim1 = h.bid_limit(hands[1], 1, c1) if b1 == RULES_BOT else 0
        lim2 = h.bid_limit(hands[2], 2, c2) if b2 == RULES_BOT else 0

        # ---- auction (R3, R4)
        stage, speaker, listener, to_act, bid = core.AUCTION_START
        declarer = -1
        nc = 0
        while stage != core.AUCTION_DONE:
            seat = to_act
            bot = _of_seat(seat, b0, b1, b2)
            call = CALL_PASS
            if stage == 3:
                if bot == RANDOM_BOT:
                    state, r = _below(state, 2)
                    call = core.MIN_BID if r == 0 else CALL_PASS
                else:
                    call = h.call_for_limit(_of_seat(seat, lim0, lim1, lim2), bid, False,
                                            True)
            elif seat == listener:
                if bot == RANDOM_BOT:
                    state, r = _below(state, 2)
                    call = CALL_HOLD if r == 0 else CALL_PASS
                else:
                    call = h.call_for_limit(_of_seat(seat, lim0, lim1, lim2), bid, True,
                                            False)
            else:
                if bot == RANDOM_BOT:
                    above = core.NEXT_BID[bid]
                    state, r = _below(state, _N_LADDER - above + 1)
                    call = LADDER_T[above + r] if above + r < _N_LADDER else CALL_PASS
                else:
                    call = h.call_for_limit(_of_seat(seat, lim0, lim1, lim2), bid, False,
                                            False)
            calls[i, nc] = call
            call_seats[i, nc] = seat
            nc += 1
            stage, speaker, listener, to_act, bid, declarer = core.auction_step(
                stage, speaker, listener, to_act, bid, seat, call)
        n_calls[i] = nc
        game[i, 0] = declarer
        game[i, 1] = bid
        if variants:
            for col in range(extra.shape[1]):
                extra[i, col] = 0
            extra[i, 0] = -1
        if declarer < 0:  # passed in (R4)
            for col in range(2, game.shape[1]):
                game[i, col] = 0
            game[i, 4] = -1
            discard[i, 0] = -1
            discard[i, 1] = -1
            for k in range(N_CARDS):
                cards[i, k] = -1
            for k in range(N_TRICKS):
                winners[i, k] = -1
            if variants and core.ramsch_on_all_pass(flags):  # R20: played each for himself
                state = _play_ramsch(state, i, hands, b0, b1, b2, cards, winners, extra,
                                     core.POINTS[deal[i, 30]] + core.POINTS[deal[i, 31]])
                game[i, 5] = N_CARDS
            continue

        # ---- skat, discard and declaration (R5-R7)
        d = declarer
        held = hands[d]
        dealt_d = held
        decl = -1
        pickup = 0
        declare_first = 0
        known = 0
        ca = -1
        cb = -1
        if _of_seat(d, b0, b1, b2) == RANDOM_BOT:
            state, decl = _random_declaration(state, 1, bid, 1)
            if decl < 0:
                decl = -1
                pickup = 1
                held |= skat
                while ca < 0 or decl < 0:
                    n_disc = _N_DISCARDS if ca < 0 else 0
                    if decl < 0:
                        state, pick = _random_declaration(state, 0, bid, n_disc)
                    else:
                        state, pick = _below(state, n_disc)
                        pick = -1 - pick
                    if pick >= 0:
                        decl = pick
                        declare_first = 1 if ca < 0 else 0
                    else:
                        ca = _nth_bit(held, DISCARD_PAIR_T[-1 - pick, 0])
                        cb = _nth_bit(held, DISCARD_PAIR_T[-1 - pick, 1])
        else:
            cfg_d = c0 if d == 0 else (c1 if d == 1 else c2)
            decl = h.hand_game(held, bid, d, cfg_d)
            if decl < 0:
                pickup = 1
                held |= skat
                ca, cb, decl = h.discard_and_declare(held, bid, d, cfg_d)
        discard[i, 0] = ca
        discard[i, 1] = cb
        if pickup:
            known = (1 << ca) | (1 << cb)
            held &= ~known
        hands[d] = held
        contract = DECL_T[decl, 0]
        s_ann = DECL_T[decl, 2]
        z_ann = DECL_T[decl, 3]
        ouvert = DECL_T[decl, 4]
        ending = core.END_NONE
        doubles = 0
        if variants and (flags & core.RULE_KONTRA_RE) != 0:  # R19, before the first card
            state, kontra_by, re = _kontra_re(state, d, contract, hands, b0, b1, b2, c0, c1,
                                              c2)
            extra[i, 0] = kontra_by
            extra[i, 1] = re
            doubles = core.doublings(kontra_by >= 0, re == 1, False)

        # ---- trick play (R8, R9)
        leader = 0
        n_tricks = 0
        by_seat = 0  # card points (bits 16 * seat ..) and tricks (bits 48 + 5 * seat ..) taken
        if b0 == RANDOM_BOT and b1 == RANDOM_BOT and b2 == RANDOM_BOT:
            # Three random bots: no bookkeeping for the rules bot and no branch on a bot.
            for t in range(N_TRICKS):
                s1 = _seat(leader + 1)
                s2 = _seat(leader + 2)
                hand = hands[leader]
                state, c0 = _random_card(state, hand, -1)
                hands[leader] = hand & ~(1 << c0)
                follow = core.follow_mask(contract, c0)
                hand = hands[s1]
                state, c1 = _random_card(state, hand, follow)
                hands[s1] = hand & ~(1 << c1)
                hand = hands[s2]
                state, c2 = _random_card(state, hand, follow)
                hands[s2] = hand & ~(1 << c2)
                cards[i, 3 * t] = c0
                cards[i, 3 * t + 1] = c1
                cards[i, 3 * t + 2] = c2
                leader, by_seat = _close_trick(contract, leader, c0, c1, c2, by_seat)
                winners[i, t] = leader
                n_tricks += 1
                ending, _ = core.after_trick(contract, s_ann, z_ann, d, leader, n_tricks,
                                             _defender_points(by_seat, d), ending, flags)
                if ending != core.END_NONE:
                    break  # R9: the null declarer took a trick; ten tricks; R17: decided
        else:
            played = 0
            voids = 0
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
                        card = h.choose_card(seat, hand, core.legal_cards(hand, follow),
                                             contract, d, leader, t0, t1, k, played,
                                             known if seat == d else 0, voids,
                                             hands[d] if ouvert and seat != d else 0,
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
                ending, _ = core.after_trick(contract, s_ann, z_ann, d, leader, n_tricks,
                                             _defender_points(by_seat, d), ending, flags)
                if ending != core.END_NONE:
                    break  # R9: the null declarer took a trick; ten tricks; R17: decided
        n = 3 * n_tricks
        for k in range(n, N_CARDS):
            cards[i, k] = -1
        for k in range(n_tricks, N_TRICKS):
            winners[i, k] = -1

        # ---- score (R10-R16)
        skat_points = core.skat_points(ca, cb, deal[i, 30], deal[i, 31])
        declarer_tricks = (by_seat >> (48 + 5 * d)) & 0x1F
        declarer_points = ((by_seat >> (16 * d)) & 0xFFFF) + skat_points
        defender_points = _defender_points(by_seat, d)
        defender_tricks = n_tricks - declarer_tricks
        mats = core.matadors(dealt_d | skat, contract)
        won, value, game_value, mult, overbid, schneider, schwarz = core.score(
            contract, DECL_T[decl, 1], s_ann, z_ann, DECL_T[decl, 4], bid, mats,
            declarer_points, defender_points, declarer_tricks, defender_tricks, False)
        if doubles:
            value = core.doubled(value, doubles)
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
