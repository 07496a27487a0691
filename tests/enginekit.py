"""Small builders for engine tests: deals with chosen cards, and hands driven to play."""

from __future__ import annotations

import random

from skatlog.engine import (
    ISKO,
    Bid,
    Card,
    Contract,
    Deal,
    Declaration,
    Declare,
    Discard,
    GameRecord,
    GameState,
    Leave,
    Pass,
    PickUp,
    RandomPlayer,
    Resign,
    RuleError,
    Rules,
    ShowCards,
    TimeOut,
    deal_cards,
    parse_cards,
)


def make_deal(fh: str = "", mh: str = "", rh: str = "", skat: str = "") -> Deal:
    """A deal whose hands start with the given cards (``"CJ.SJ"``); the rest fill in order."""
    parts = [parse_cards(x) for x in (fh, mh, rh, skat)]
    used = {c for part in parts for c in part}
    rest = [c for c in Card if c not in used]
    sizes = (10, 10, 10, 2)
    full: list[Card] = []
    for part, size in zip(parts, sizes, strict=False):
        need = size - len(part)
        full += part + rest[:need]
        rest = rest[need:]
    return Deal.from_cards(full)


def forehand_declares(
    deal: Deal,
    contract: Contract,
    *,
    hand: bool = True,
    discard: str = "",
    rules: Rules = ISKO,
    **announcements: bool,
) -> GameState:
    """Middlehand and Rearhand pass, Forehand takes the game at 18 and declares (R4)."""
    state = GameState(deal, rules=rules)
    for move in (Pass(1), Pass(2), Bid(0, 18)):
        state.apply(move)
    if not hand:
        state.apply(PickUp(0))
        a, b = parse_cards(discard)
        state.apply(Discard(0, (a, b)))
    state.apply(Declare(0, Declaration.normalized(contract, hand=hand, **announcements)))
    return state


def random_record(seed: int, concessions: bool = True) -> GameRecord:
    """A random legal hand; with ``concessions`` a resign, show, time-out or leave may come
    at any point where the rules allow it."""
    rng = random.Random(seed)
    state = GameState(deal_cards(rng))
    player = RandomPlayer(step_bids=rng.random() < 0.7)
    while not state.finished:
        if concessions and rng.random() < 0.04:
            move = rng.choice([Resign, ShowCards, TimeOut, Leave])(rng.randrange(3))
            try:
                state.check(move)
            except RuleError:
                pass
            else:
                state.apply(move)
                continue
        state.apply(player.choose(state, rng))
    return GameRecord.from_state(state)
