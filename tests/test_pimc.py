"""The ``pimc`` bot: sampled deals respect what the seat saw; seeded games replay the same."""

from __future__ import annotations

import random

from skatlog.engine import GameState, core, seeded_deal
from skatlog.engine.bots import RulesPlayer, _voids, make_bot
from skatlog.engine.cards import mask_of
from skatlog.engine.game import Phase
from skatlog.engine.pimc import PimcPlayer, sample_hands
from skatlog.engine.players import play_hand


def _mid_game(seed: int, cards: int) -> GameState | None:
    state = GameState(seeded_deal(seed))
    bot = RulesPlayer()
    rng = random.Random(seed)
    played = 0
    while not state.finished and (state.phase is not Phase.PLAY or played < cards):
        if state.phase is Phase.PLAY:
            played += 1
        state.apply(bot.choose(state, rng))
    return state if state.phase is Phase.PLAY else None


def test_samples_are_consistent_with_what_the_seat_has_seen() -> None:
    checked = 0
    for seed in range(25):
        state = _mid_game(seed, 7 + seed % 11)
        if state is None or state.declaration is None:
            continue
        seat = state.to_move
        assert seat is not None
        voids = _voids(state, state.declaration.contract)
        played = mask_of(state.trick_cards)
        for trick in state.tricks:
            played |= mask_of(trick.cards)
        for hands, skat in sample_hands(state, seat, 10, random.Random(seed)):
            assert hands[seat] == state.hands[seat]
            assert [bin(h).count("1") for h in hands] == [bin(h).count("1")
                                                           for h in state.hands]
            assert (hands[0] | hands[1] | hands[2] | skat | played) == core.ALL_CARDS
            assert bin(skat).count("1") == 2 and (skat & played) == 0
            if seat == state.declarer and state.discard is not None:
                assert skat == mask_of(state.discard)
            for s in range(3):
                for suit in range(core.TRUMP + 1):
                    if (voids >> (s * 5 + suit)) & 1:
                        assert hands[s] & int(core.SUIT_MASK[int(state.declaration.contract),
                                                             suit]) == 0
            checked += 1
    assert checked > 60


def test_pimc_plays_legal_seeded_games() -> None:
    assert isinstance(make_bot("pimc"), PimcPlayer)
    bots = (PimcPlayer(k=3), RulesPlayer(), RulesPlayer())
    for seed in (1, 4):
        one = play_hand(seeded_deal(seed), bots, random.Random(seed))
        two = play_hand(seeded_deal(seed), (PimcPlayer(k=3), RulesPlayer(), RulesPlayer()),
                        random.Random(seed))
        assert one.moves == two.moves
