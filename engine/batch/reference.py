"""Simulated hands of bots the compiled loop does not play (``pimc``), in the batch arrays.

:func:`.games.simulate_batch` hands a line-up with such a bot to :func:`play_batch`: every
hand is played through :class:`~skatlog.engine.GameState` (the validated path) by the
engine's players (:func:`~skatlog.engine.bots.make_bot`), and written into the same arrays
the compiled loop fills, so rows, ids, storage, ``verify`` and the reports treat those hands
like any other simulated hand. What keeps the duplicate method working across both paths:

* the deal of hand ``i`` is the compiled loop's (:func:`.kernel.deal_rows`, from the seed and
  ``i`` alone), so a ``pimc`` arm plays the very deals the ``rules`` arms play;
* each hand's choices draw from its own random stream, seeded by the kernel's
  :func:`.kernel.hand_stream` of (seed, ``i``), so a hand replays the same whatever slice,
  thread or rerun plays it (seeded, reproducible, resumable).

The ``rules`` bot here is the compiled heuristics behind :class:`~skatlog.engine.bots.
RulesPlayer`, so a line-up of rules bots played here gives the compiled loop's arrays
exactly; ``tests/test_reference_batch.py`` holds the two paths to that. The ``random`` bot
draws from Python's generator, not the kernel's stream, so its choices differ from the
compiled loop's (both are uniform over the legal moves).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from ..deal import Deal
from ..game import GameState
from ..moves import Bid, Declare, Discard, Hold, Pass, PickUp, Play
from ..players import Player
from .kernel import deal_rows, hand_stream
from .tables import CALL_HOLD, CALL_PASS, DECL_T

#: DECL_T row (contract, hand, schneider, schwarz, ouvert) -> its index.
_DECL_INDEX = {tuple(int(x) for x in row): i for i, row in enumerate(DECL_T)}


def hand_rng(seed: int, index: int) -> random.Random:
    """The random stream of hand ``index`` of run ``seed`` for the engine's players."""
    return random.Random(int(hand_stream(seed, index)))


def play_hand_into(row: int, index: int, seed: int, players: Sequence[Player],
                   deal: np.ndarray, n_calls: np.ndarray, calls: np.ndarray,
                   call_seats: np.ndarray, game: np.ndarray, discard: np.ndarray,
                   cards: np.ndarray, winners: np.ndarray) -> None:
    """Play hand ``index`` (its deal already in ``deal[row]``, dealing order) with
    ``players`` at table positions 0-2 and write it into row ``row`` of the arrays, as
    :func:`.kernel.simulate_into` would (its docstring describes the columns)."""
    dealer = index % 3
    by_seat = [players[(dealer + 1) % 3], players[(dealer + 2) % 3], players[dealer]]
    state = GameState(Deal.from_cards([int(c) for c in deal[row]]))
    rng = hand_rng(seed, index)
    while not state.finished:
        seat = state.to_move
        assert seat is not None
        state.apply(by_seat[seat].choose(state, rng))
    nc = 0
    pickup = declare_first = 0
    ca = cb = -1
    seen_discard = False
    plays: list[int] = []
    for move in state.moves:
        if isinstance(move, (Bid, Hold, Pass)):
            calls[row, nc] = (move.value if isinstance(move, Bid)
                              else CALL_HOLD if isinstance(move, Hold) else CALL_PASS)
            call_seats[row, nc] = move.seat
            nc += 1
        elif isinstance(move, PickUp):
            pickup = 1
        elif isinstance(move, Discard):
            ca, cb = (int(c) for c in move.cards)
            seen_discard = True
        elif isinstance(move, Declare):
            declare_first = 1 if pickup and not seen_discard else 0
        elif isinstance(move, Play):
            plays.append(int(move.card))
    n_calls[row] = nc
    calls[row, nc:] = 0
    call_seats[row, nc:] = 0
    result = state.result()
    game[row, 0] = -1 if result.declarer is None else result.declarer
    game[row, 1] = result.bid
    discard[row] = (ca, cb)
    cards[row] = -1
    winners[row] = -1
    if result.declaration is None or result.score is None:
        game[row, 2:] = 0
        game[row, 4] = -1
        return
    d = result.declaration
    score = result.score
    cards[row, :len(plays)] = plays
    for t, trick in enumerate(state.tricks):
        winners[row, t] = trick.winner
    game[row, 2:] = (
        pickup, declare_first,
        _DECL_INDEX[(int(d.contract), int(d.hand), int(d.schneider_announced),
                     int(d.schwarz_announced),
                     int(d.ouvert))],
        len(plays), int(score.won), score.value, score.game_value, score.multiplier,
        int(score.overbid), int(score.schneider), int(score.schwarz), result.matadors,
        result.declarer_points, result.defender_points, result.declarer_tricks,
        result.defender_tricks)


def play_batch(seed: int, start: int, bots: Sequence[str], deal: np.ndarray,
               n_calls: np.ndarray, calls: np.ndarray, call_seats: np.ndarray,
               game: np.ndarray, discard: np.ndarray, cards: np.ndarray,
               winners: np.ndarray) -> None:
    """Deal and play hands ``start .. start + len(deal) - 1`` with the engine's players
    ``bots`` (table positions 0-2) into the arrays, a hand at a time."""
    from ..bots import make_bot  # on use: the bots build on this package

    deal_rows(seed, start, deal)
    players = [make_bot(name) for name in bots]
    for row in range(deal.shape[0]):
        play_hand_into(row, start + row, seed, players, deal, n_calls, calls, call_seats,
                       game, discard, cards, winners)


__all__ = ["hand_rng", "play_batch", "play_hand_into"]
