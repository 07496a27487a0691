"""The ``rules`` bot's decisions in Foster's Skat (F3-F7) as compiled functions over masks.

The bot judges a hand as in the modern game (:mod:`.heuristics`: the same strength of
trumps and side suits, the same null danger, the same thresholds and margins of its
configuration ``cfg``) and maps what it would play there onto Foster's games (F5, F6):

- a modern hand game is a **solo** of that suit or a **solo grand** (schneider announced when
  the hand is strong enough to announce it in the modern game; an **open grand** only with
  all four Wenzels and a schwarz margin on top);
- a modern game with the skat is a **gucki grand**, or a **Tournée**: the bot cannot choose
  its trump suit, so it bids one only when the turned card is likely to name a suit it could
  play (Foster: "the more cards you hold of a suit, the less your chance to turn up one"),
  and values it at its worst such suit, so that the turned game reaches the bid;
- the null hands are **solo nullo**, **open solo nullo** and **gucki nullo** by the modern
  null danger (Foster: "a Nullo should never be bid unless the player has the seven of his
  long suit" is the ``null_long_seven`` switch of ``cfg``).

It prefers a solo to a Tournée when both reach the bid (Foster: "It is better to bid on a
doubtful Solo than on a risky Tourné"). It looks at the first skat card only (law 28) and
says Passt-mir-nicht (the loss doubles, law 3) only when the game that card names is
hopeless, and then plays the second card's suit. The play
of the cards is the modern bot's (:func:`.heuristics.choose_card` on the game's trump table,
:func:`.heuristics.ramsch_card` in a Ramsch). Every function is deterministic.
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..jit import njit
from . import config as c
from . import heuristics as h
from .tables import FOLLOW_T, POWER_T

GRAND = 4
NULL = 5
#: The share of the 22 unseen cards (in percent) that must name a playable Tournée suit
#: (a jack names any) before the bot bids a Tournée.
TOURNEE_ODDS = 35
#: Below this score of the first card's game (the strength of the eleven cards the player
#: knows minus the threshold, hundredths of a trick) the bot says Passt-mir-nicht: only for
#: a hopeless first card. Measured over 60,000 hands (seed 3, three rules bots), the doubled loss
#: makes the second card a bad bet: judging the best ten of the eleven cards, a Tournée hand
#: scored +2.25 on average when the bot said it below -100 (39 % of them), +2.74 below -200,
#: +3.24 below -300, +3.66 below -500 (0.6 %), and +3.71 never; judging all eleven (cheaper,
#: as now) below -500: 1.2 %, +3.62.
PASST_MIR_NICHT_BELOW = -500
#: FOSTER_NEXT_T[bid] -> index of the first Foster bid above ``bid`` (F3).
FOSTER_NEXT_T = np.searchsorted(core.FOSTER_LADDER, np.arange(int(core.FOSTER_LADDER[-1]) + 1),
                                side="right").astype(np.int64)
N_FOSTER_LADDER = int(core.FOSTER_LADDER.shape[0])
#: Plan codes of :func:`plan`: the category a hand's best game belongs to.
PLAN_NONE = 0
PLAN_SOLO = 1
PLAN_GUCKI = 2
PLAN_TOURNEE = 3
PLAN_NULLO = 4


@njit
def foster_call(limit: int, bid: int, listening: bool, vorhand_alone: bool) -> int:
    """The call of a hand that bids to ``limit`` on Foster's numbers (F3, F4): the next
    bid, 1 to hold, 0 to pass; Vorhand alone takes the game at 10 when it can."""
    if vorhand_alone:
        return core.FOSTER_MIN_BID if limit >= core.FOSTER_MIN_BID else 0
    if listening:
        return 1 if bid <= limit else 0
    above = FOSTER_NEXT_T[bid] if bid < FOSTER_NEXT_T.shape[0] else N_FOSTER_LADDER
    if above >= N_FOSTER_LADDER:
        return 0
    value = core.FOSTER_LADDER[above]
    return value if value <= limit else 0


@njit(inline="always")
def _of(k: int, a: int, b: int, c_: int, d: int, e: int) -> int:
    """``(a, b, c_, d, e)[k]``: the value of modern kind ``k`` (four suits, grand)."""
    return a if k == 0 else (b if k == 1 else (c_ if k == 2 else (d if k == 3 else e)))


@njit
def _solo(hand: int, seat: int, cfg: np.ndarray, bid: int, s0: int, s1: int, s2: int,
          s3: int, sg: int, m0: int, m1: int, m2: int, m3: int, mg: int
          ) -> tuple[int, int, int]:
    """The best solo (suit solo, solo grand, open grand) reaching ``bid``: ``(value, kind,
    schneider announced)``; value 0 when the hand has none. ``s*`` are the strengths of the
    four suit games and grand, ``m*`` their bidding multipliers (:func:`plan`)."""
    hand_margin = h.HAND_MARGIN + int(100.0 * cfg[c.HAND_MARGIN])
    best = 0
    kind = -1
    announce = 0
    for contract in range(5):
        s = _of(contract, s0, s1, s2, s3, sg)
        if contract == GRAND and seat == 0:
            s += h.GRAND_LEAD_BONUS
        need = h.threshold(contract, cfg) + hand_margin
        if s < need:
            continue
        mats = _of(contract, m0, m1, m2, m3, mg) - 1
        schneider = s >= need + h.SCHNEIDER_MARGIN
        level = 3 if schneider else 1
        k = core.F_SOLO_GRAND if contract == GRAND else core.F_SOLO_DIAMONDS + contract
        value = core.FOSTER_UNIT[k] * (level + mats)
        if contract == GRAND and schneider and h.popcount(hand & FOLLOW_T[GRAND, 4]) == 4 \
                and s >= need + 2 * h.SCHNEIDER_MARGIN:
            k = core.F_OPEN_GRAND  # every trick, schwarz announced (law 39)
            value = core.FOSTER_UNIT[k] * (5 + mats)
            schneider = False
        if value >= bid and value > best:
            best = value
            kind = k
            announce = 1 if schneider else 0
    return best, kind, announce


@njit
def _tournee(hand: int, cfg: np.ndarray, s0: int, s1: int, s2: int, s3: int, m0: int,
             m1: int, m2: int, m3: int) -> int:
    """What the hand bids on a Tournée (F5): the smallest value among the suits it could
    play with the skat, when the turned card names one of them often enough; 0 otherwise."""
    skat_bonus = int(100.0 * cfg[c.SKAT_BONUS])
    jacks = hand & FOLLOW_T[GRAND, 4]
    named = 0  # unseen cards that would name a playable game
    worst = 0
    for suit in range(4):
        if _of(suit, s0, s1, s2, s3, 0) + skat_bonus < h.threshold(suit, cfg):
            continue
        own = h.popcount(hand & FOLLOW_T[suit, suit] & ~jacks)
        named += 7 - own
        value = core.FOSTER_UNIT[core.F_TOURNEE_DIAMONDS + suit] * _of(suit, m0, m1, m2, m3, 0)
        worst = value if worst == 0 else min(worst, value)
    if worst == 0:
        return 0
    named += 4 - h.popcount(jacks)  # a turned jack lets him choose (law 30)
    return worst if 100 * named >= TOURNEE_ODDS * 22 else 0


@njit
def _gucki_grand(seat: int, cfg: np.ndarray, sg: int, mg: int) -> int:
    """What the hand bids on a gucki grand (F5): a modern grand with the skat."""
    s = sg + int(100.0 * cfg[c.SKAT_BONUS])
    if seat == 0:
        s += h.GRAND_LEAD_BONUS
    if s < h.threshold(GRAND, cfg):
        return 0
    return core.FOSTER_UNIT[core.F_GUCKI_GRAND] * mg


@njit
def _nullo(hand: int, cfg: np.ndarray, bid: int) -> tuple[int, int]:
    """The best nullo reaching ``bid`` (F6 fixed values): ``(value, kind)``, 0 for none."""
    if h.null_danger(hand, True, cfg) == 0 and bid <= core.FOSTER_UNIT[core.F_OPEN_SOLO_NULLO]:
        return core.FOSTER_UNIT[core.F_OPEN_SOLO_NULLO], core.F_OPEN_SOLO_NULLO
    danger = h.null_danger(hand, False, cfg)
    if danger == 0 and bid <= core.FOSTER_UNIT[core.F_SOLO_NULLO]:
        return core.FOSTER_UNIT[core.F_SOLO_NULLO], core.F_SOLO_NULLO
    if danger <= int(cfg[c.NULL_RISK]) and bid <= core.FOSTER_UNIT[core.F_GUCKI_NULLO]:
        return core.FOSTER_UNIT[core.F_GUCKI_NULLO], core.F_GUCKI_NULLO
    return 0, -1


@njit
def plan(hand: int, seat: int, cfg: np.ndarray, bid: int) -> tuple[int, int, int, int]:
    """The game the hand plays at ``bid`` (0 for its bidding limit): ``(value, plan,
    kind, schneider announced)`` -- the first of solo, nullo, gucki grand and Tournée that
    reaches the bid (a solo before a risky Tournée, Foster); value 0 when none does. The
    kind of a Tournée is -1 (the turned card decides it). Each game's strength and
    multiplier is worked out once and shared by the games that play on it."""
    s0 = h.strength(hand, 0, cfg)
    s1 = h.strength(hand, 1, cfg)
    s2 = h.strength(hand, 2, cfg)
    s3 = h.strength(hand, 3, cfg)
    sg = h.strength(hand, GRAND, cfg)
    m0 = h.bidding_multiplier(hand, 0, cfg)
    m1 = h.bidding_multiplier(hand, 1, cfg)
    m2 = h.bidding_multiplier(hand, 2, cfg)
    m3 = h.bidding_multiplier(hand, 3, cfg)
    mg = h.bidding_multiplier(hand, GRAND, cfg)
    solo, solo_kind, announce = _solo(hand, seat, cfg, bid, s0, s1, s2, s3, sg, m0, m1, m2,
                                      m3, mg)
    nullo, nullo_kind = _nullo(hand, cfg, bid)
    gucki = _gucki_grand(seat, cfg, sg, mg)
    tournee = _tournee(hand, cfg, s0, s1, s2, s3, m0, m1, m2, m3)
    if bid == 0:  # the limit: the most any of them is worth
        best = max(max(solo, nullo), max(gucki, tournee))
        return best, PLAN_NONE, -1, 0
    if solo >= bid:
        return solo, PLAN_SOLO, solo_kind, announce
    if nullo >= bid:
        return nullo, PLAN_NULLO, nullo_kind, 0
    if gucki >= bid:
        return gucki, PLAN_GUCKI, core.F_GUCKI_GRAND, 0
    if tournee >= bid:
        return tournee, PLAN_TOURNEE, -1, 0
    # Nothing reaches the bid (a Vorhand who took the game at 10 on little): the strongest.
    if solo > 0:
        return solo, PLAN_SOLO, solo_kind, announce
    if nullo > 0:
        return nullo, PLAN_NULLO, nullo_kind, 0
    if gucki > 0 or tournee == 0:
        return gucki, PLAN_GUCKI, core.F_GUCKI_GRAND, 0
    return tournee, PLAN_TOURNEE, -1, 0


@njit
def bid_limit(hand: int, seat: int, cfg: np.ndarray) -> int:
    """The highest Foster bid this 10-card hand goes to (0: it does not bid)."""
    return plan(hand, seat, cfg, 0)[0]


@njit
def lay_out(held: int, contract: int, cfg: np.ndarray) -> tuple[int, int, int]:
    """The two cards to lay out (law 32) from a 12-card hand in ``contract`` (a modern
    kind: suit, grand or null), and the score of the game after it (for a suit or grand:
    strength and laid-out points over the threshold, as the modern bot's discard search
    scores it; for null: minus the danger)."""
    if contract == NULL:
        rule = 0 if cfg[c.NULL_SEVENS] else 2
        long_seven = cfg[c.NULL_LONG_SEVEN] != 0.0
        best_a = -1
        best_b = -1
        best = -(1 << 40)
        rest = held
        while rest:
            a = h.lowest_bit(rest)
            rest &= rest - 1
            rest2 = rest
            while rest2:
                b = h.lowest_bit(rest2)
                rest2 &= rest2 - 1
                danger = h._holes(held & ~(1 << a) & ~(1 << b), rule, long_seven)
                s = -100 * danger + POWER_T[NULL, a] + POWER_T[NULL, b]
                if s > best:
                    best = s
                    best_a = a
                    best_b = b
        return best_a, best_b, best
    wenzels = cfg[c.GRAND_TWO_WENZELS] != 0.0 and h.popcount(held & FOLLOW_T[GRAND, 4]) >= 2
    score, key = h._best_discard(held, 0, 1, cfg, contract, wenzels, -(1 << 40), 1 << 30)
    return (key >> 5) & 31, key & 31, score


@njit
def _known_score(known: int, contract: int, seat: int, cfg: np.ndarray) -> int:
    """The score of ``contract`` for the eleven cards the player knows when he decides on
    Passt-mir-nicht (his ten and the first skat card), judged whole (one card more than he
    keeps: a lay-out rarely makes a hopeless game playable), against the threshold as the
    modern discard search scores a game."""
    return h.strength(known, contract, cfg) + h._contract_base(known, 0, seat, cfg, contract)


@njit
def passt_mir_nicht(hand: int, first: int, seat: int, cfg: np.ndarray) -> bool:
    """Whether the bot turns the second skat card (law 28) after seeing only the ``first``
    with its ten cards ``hand``: when the first card's game (for a jack, its suit's Tournée
    or a turned grand, the better) scores below :data:`PASST_MIR_NICHT_BELOW`. A game that
    cannot be worth the bid (law 61) is not reason enough: measured, playing it loses less
    than the second card's doubled risk."""
    known = hand | (1 << first)
    score = _known_score(known, first >> 3, seat, cfg)
    if (first & 7) == core.JACK:
        score = max(score, _known_score(known, GRAND, seat, cfg))
    return score < PASST_MIR_NICHT_BELOW


@njit
def turned_game(held: int, turned: int, cfg: np.ndarray) -> tuple[int, int, int, int]:
    """The game a turned card allows (law 29, 30) for the 12 cards ``held`` and its lay-out:
    ``(kind, a, b, score)``; a jack: its suit's Tournée or a turned grand, the better."""
    suit = turned >> 3
    a, b, s = lay_out(held, suit, cfg)
    kind = core.F_TOURNEE_DIAMONDS + suit
    if (turned & 7) == core.JACK:
        ga, gb, gs = lay_out(held, GRAND, cfg)
        if gs > s:
            return core.F_TURNED_GRAND, ga, gb, gs
    return kind, a, b, s
