"""Bots for the engine's :class:`~.players.Player` protocol: ``random`` and ``rules``.

``random`` is :class:`~.players.RandomPlayer` (uniform over the legal moves). ``rules`` is a
heuristic player built from the advice of the user's rule texts (modern rules "Strategy",
Foster's "Suggestions for good play"): hand evaluation (jacks, aces and tens, suit length,
null safety), bidding to the value the hand supports (with multipliers of slack below a
"without" count), hand games, null (with a risky card or two) and null ouvert,
discarding, drawing trumps and cashing aces as declarer, smearing points, keeping aces
behind the declarer's tens and leading through / up to the declarer as defender, and
against a null leading low into the declarer's holes and ducking under his cards. Its
decisions live in :mod:`.batch.heuristics`, compiled once and shared with the batch
simulator, so this player and the simulator's ``rules`` bot play identical games. Each piece
of advice is a setting (``rules:SETTING+...``, :mod:`.batch.config`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .auction import Auction
from .batch import heuristics as h
from .batch.config import split_bot
from .batch.tables import DECL_T
from .cards import DECK, mask_of
from .contract import Contract, Declaration
from .game import GameState, Phase
from .moves import Bid, Declare, Discard, Hold, Move, Pass, PickUp, Play
from .players import Player, RandomPlayer
from .tricks import EFFECTIVE, legal_mask


def declaration_of(index: int) -> Declaration:
    """The engine declaration for a row of :data:`~.batch.tables.DECL_T`."""
    contract, hand, schneider, schwarz, ouvert = (int(x) for x in DECL_T[index])
    return Declaration(Contract(contract), bool(hand), bool(schneider), bool(schwarz),
                       bool(ouvert))


def _voids(state: GameState, contract: Contract) -> int:
    """Bit ``seat * 5 + effective suit`` for every suit a seat has failed to follow (R8)."""
    effective = EFFECTIVE[contract]
    voids = 0
    tricks = [(t.leader, t.cards) for t in state.tricks]
    if state.trick_cards:
        tricks.append((state.leader, tuple(state.trick_cards)))
    for leader, cards in tricks:
        led = effective[cards[0]]
        for k in range(1, len(cards)):
            if effective[cards[k]] != led:
                voids |= 1 << (((leader + k) % 3) * 5 + led)
    return voids


class RulesPlayer:
    """The heuristic ``rules`` bot (deterministic: it never uses ``rng``). ``name`` may carry
    settings, ``rules:no-trumps_first+bid_slack=0`` (:mod:`.batch.config`)."""

    def __init__(self, name: str = "rules") -> None:
        kind, self.cfg = split_bot(name)
        if kind != "rules":
            raise ValueError(f"not a rules bot: {name!r}")
        self.name = name

    def choose(self, state: GameState, rng: random.Random) -> Move:
        seat = state.to_move
        if seat is None:
            raise ValueError("the hand is over: nobody is to move")
        if state.phase is Phase.AUCTION:
            return self._call(state.auction, seat, state.hands[seat])
        if state.phase is Phase.SKAT:
            choice = int(h.hand_game(state.hands[seat], state.bid, seat, self.cfg))
            return PickUp(seat) if choice < 0 else Declare(seat, declaration_of(choice))
        if state.phase is Phase.DISCARD:
            held = state.hands[seat]
            if state.discard is not None:
                held |= mask_of(state.discard)
            a, b, decl = (int(x) for x in h.discard_and_declare(held, state.bid, seat,
                                                                 self.cfg))
            if state.discard is None:
                return Discard(seat, (DECK[a], DECK[b]))
            return Declare(seat, declaration_of(decl))
        if state.phase is Phase.PLAY:
            return Play(seat, DECK[self._card(state, seat)])
        raise ValueError(f"no move in phase {state.phase.value}")

    def _call(self, auction: Auction, seat: int, hand: int) -> Move:
        alone = auction.stage == 3
        listening = not alone and seat == auction.listener
        code = int(h.auction_call(hand, seat, auction.bid, listening, alone, self.cfg))
        if code == 0:
            return Pass(seat)
        if listening:
            return Hold(seat)
        return Bid(seat, code)

    def _card(self, state: GameState, seat: int) -> int:
        assert state.declaration is not None and state.declarer is not None
        contract = state.declaration.contract
        trick = state.trick_cards
        led = trick[0] if trick else None
        legal = legal_mask(state.hands[seat], led, contract)
        played = mask_of(trick)
        for t in state.tricks:
            played |= mask_of(t.cards)
        known = mask_of(state.discard) if seat == state.declarer and state.discard else 0
        # An open game's declarer cards lie on the table for the defenders (R6).
        open_hand = (state.hands[state.declarer]
                     if state.declaration.ouvert and seat != state.declarer else 0)
        return int(h.choose_card(
            seat, state.hands[seat], legal, int(contract), state.declarer, state.leader,
            int(trick[0]) if trick else -1, int(trick[1]) if len(trick) > 1 else -1,
            len(trick), played, known, _voids(state, contract), open_hand, self.cfg))


def _pimc() -> Player:
    """The ``pimc`` bot (:mod:`.pimc`; imported on use: it builds on this module)."""
    from .pimc import PimcPlayer

    return PimcPlayer()


#: Bot names -> factories; the same names the batch simulator accepts (``pimc``: the
#: engine's players only).
BOTS: dict[str, Callable[[], Player]] = {"random": RandomPlayer, "rules": RulesPlayer,
                                         "pimc": _pimc}


def make_bot(name: str) -> Player:
    """A fresh bot by name (``random``, ``rules``, ``pimc``; ``rules:SETTINGS``, a
    configured rules bot; ``pimc:k=N``, a pimc bot sampling N deals a card); raises
    ValueError for another name."""
    if name.startswith("rules:"):
        return RulesPlayer(name)
    if name.startswith("pimc:"):
        from .batch.games import pimc_samples
        from .pimc import PimcPlayer

        return PimcPlayer(k=pimc_samples(name))
    factory = BOTS.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(sorted(BOTS))}")
    return factory()


__all__ = ["BOTS", "RandomPlayer", "RulesPlayer", "declaration_of", "make_bot"]
