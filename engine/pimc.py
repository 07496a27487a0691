"""The ``pimc`` bot: Perfect Information Monte Carlo over the solver.

Bidding, the skat and the declaration are the ``rules`` bot's evaluation (:class:`~.bots.
RulesPlayer`), not sampling. For each card it plays, the bot samples ``k`` deals consistent
with what its seat has seen: its own cards, the cards played, the suits each seat has
shown void in (R8: it did not follow), the declarer's own discard, and in an ouvert game the
declarer's open hand. Each deal is solved with every card known (:mod:`.solver`): for each
legal card, does best play from there win the game as declared (:func:`.solver.target`)?
The card with the best average for the bot's side is played; ties (common: most cards
neither win nor lose the game) go to the card the ``rules`` bot would play, else to the
lowest. Sampling draws from the ``rng`` the game loop passes, so a seeded game replays the
same.
"""

from __future__ import annotations

import random

from . import core
from .bots import RulesPlayer, _voids
from .cards import DECK, mask_of
from .game import GameState, Phase
from .moves import Move, Play
from .solver import Position, Solver, target

#: Deals sampled per card decision.
DEFAULT_K = 20
_TRIES = 200


class PimcPlayer:
    """Perfect Information Monte Carlo card play over the ``rules`` bot's bidding."""

    name = "pimc"

    def __init__(self, k: int = DEFAULT_K) -> None:
        self.k = k
        self.rules = RulesPlayer()
        self.solver = Solver()

    def choose(self, state: GameState, rng: random.Random) -> Move:
        if state.phase is not Phase.PLAY:
            return self.rules.choose(state, rng)
        seat = state.to_move
        declarer = state.declarer
        assert seat is not None and state.declaration is not None and declarer is not None
        legal = [int(c) for c in state.legal_cards()]
        fallback = self.rules.choose(state, rng)
        if len(legal) == 1:
            return Play(seat, DECK[legal[0]])
        need = target(state.declaration, state.bid, state.matadors())
        mine = seat == declarer
        wins = dict.fromkeys(legal, 0)
        taken = state.taken_points[declarer]
        for hands, skat in sample_hands(state, seat, self.k, rng):
            pos = Position(hands, int(state.declaration.contract), declarer,
                           state.leader, tuple(int(c) for c in state.trick_cards),
                           taken + int(core.mask_points(skat)),
                           state.taken_tricks[declarer], len(state.tricks))
            for card in legal:
                won = self.solver.wins(pos.play(card), need, keep=True)
                wins[card] += 1 if won == mine else 0
        best = max(wins.values())
        chosen = int(fallback.card) if isinstance(fallback, Play) else legal[0]
        if wins.get(chosen, -1) != best:
            chosen = min(c for c in legal if wins[c] == best)
        return Play(seat, DECK[chosen])


def sample_hands(state: GameState, seat: int, k: int, rng: random.Random
                 ) -> list[tuple[tuple[int, int, int], int]]:
    """``k`` (hands, skat mask) pairs consistent with what ``seat`` has seen (see the module
    docstring): the skat is the declarer's discard when ``seat`` made it, else the unknown
    cards no hand was given."""
    assert state.declaration is not None and state.declarer is not None
    contract = state.declaration.contract
    known = {seat: state.hands[seat]}
    if state.declaration.ouvert and seat != state.declarer:
        known[state.declarer] = state.hands[state.declarer]
    others = [s for s in range(3) if s not in known]
    seen = mask_of(state.trick_cards) | state.hands[seat]
    for trick in state.tricks:
        seen |= mask_of(trick.cards)
    for s in known:
        seen |= known[s]
    if seat == state.declarer and state.discard is not None:
        seen |= mask_of(state.discard)
    unknown = [c for c in range(32) if not (seen >> c) & 1]
    unknown_mask = sum(1 << c for c in unknown)
    own_skat = mask_of(state.discard) if seat == state.declarer and state.discard else 0
    sizes = {s: bin(state.hands[s]).count("1") for s in others}
    if not others:
        true = (state.hands[0], state.hands[1], state.hands[2])
        return [(true, own_skat | unknown_mask)] * k
    voids = _voids(state, contract)
    allowed = {s: ~0 for s in others}
    for s in others:
        for suit in range(core.TRUMP + 1):
            if (voids >> (s * 5 + suit)) & 1:
                allowed[s] &= ~int(core.SUIT_MASK[int(contract), suit])
    out: list[tuple[tuple[int, int, int], int]] = []
    for _ in range(k):
        hands = _one_sample(unknown, others, sizes, allowed, rng)
        if hands is None:  # constraints too tight for random fill: the true hands
            hands = {s: state.hands[s] for s in others}
        full = [known.get(s, hands.get(s, 0)) for s in range(3)]
        skat = own_skat | (unknown_mask & ~(full[0] | full[1] | full[2]))
        out.append(((full[0], full[1], full[2]), skat))
    return out


def _one_sample(unknown: list[int], others: list[int], sizes: dict[int, int],
                allowed: dict[int, int], rng: random.Random) -> dict[int, int] | None:
    """Deal ``unknown`` to ``others`` (their ``sizes``; the rest is the skat) so that no
    seat gets a card of a suit it showed void in; None when random filling keeps failing."""
    skat = len(unknown) - sum(sizes.values())
    for _ in range(_TRIES):
        cards = unknown[:]
        rng.shuffle(cards)
        # most constrained cards first: those only one holder may take
        room = dict(sizes)
        room[-1] = skat
        hands = {s: 0 for s in others}
        ok = True
        for c in sorted(cards, key=lambda c: sum((allowed[s] >> c) & 1 for s in others)):
            holders = [s for s in others if (allowed[s] >> c) & 1 and room[s] > 0]
            if room[-1] > 0:
                holders.append(-1)
            if not holders:
                ok = False
                break
            weights = [room[h] for h in holders]
            holder = rng.choices(holders, weights)[0]
            room[holder] -= 1
            if holder >= 0:
                hands[holder] |= 1 << c
        if ok:
            return hands
    return None


__all__ = ["DEFAULT_K", "PimcPlayer", "sample_hands"]
