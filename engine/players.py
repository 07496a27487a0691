"""Players that choose moves for a :class:`~.game.GameState`, and the loop that drives them.

A player is anything with ``choose(state, rng) -> Move``. :class:`RandomPlayer` picks
uniformly among the legal moves (the "random legal play" of the demo and the benchmarks).
"""

from __future__ import annotations

import random
from typing import Protocol

from .deal import Deal
from .game import GameState, Phase
from .moves import Move, Play
from .record import GameRecord
from .rules import ISKO, Rules


class Player(Protocol):
    """Chooses the next move for the seat to move."""

    name: str

    def choose(self, state: GameState, rng: random.Random) -> Move: ...


class RandomPlayer:
    """Uniform over the legal moves: every call, declaration, discard and card alike.

    With ``step_bids`` a speaker only ever bids the next value on the ladder (uniform between
    that bid and passing), which keeps auctions at sensible heights for demos.
    """

    name = "random"

    def __init__(self, *, step_bids: bool = False) -> None:
        self.step_bids = step_bids

    def choose(self, state: GameState, rng: random.Random) -> Move:
        if state.phase is Phase.PLAY:  # same choice as over legal_moves(), without the Plays
            seat = state.to_move
            assert seat is not None
            return Play(seat, rng.choice(state.legal_cards()))
        moves = state.legal_moves()
        if self.step_bids and state.phase is Phase.AUCTION and len(moves) > 2:
            moves = [moves[0], moves[-1]]  # the lowest bid, or pass
        return rng.choice(moves)


def play_hand(
    deal: Deal,
    players: tuple[Player, Player, Player],
    rng: random.Random,
    *,
    checked: bool = True,
    rules: Rules = ISKO,
    bock: bool = False,
) -> GameRecord:
    """Play one hand from ``deal`` with ``players`` sitting Forehand, Middlehand, Rearhand.

    ``checked`` sends every move through the validated path; ``False`` uses the fast
    unchecked path (the players only ever choose legal moves). ``rules`` and ``bock``: the
    rule set, and whether the hand is played in a Bock round (R21).
    """
    state = GameState(deal, rules=rules, bock=bock)
    apply = state.apply if checked else state.apply_unchecked
    while not state.finished:
        seat = state.to_move
        assert seat is not None
        apply(players[seat].choose(state, rng))
    return GameRecord.from_state(state)
