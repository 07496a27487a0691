"""An immutable, complete record of one hand that replays to the same result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .auction import ISS_EXTRA_BIDS
from .cards import Card
from .contract import Declaration
from .deal import Deal
from .game import GameResult, GameState, Trick, new_state
from .moves import AuctionCall, Bid, Declare, Discard, Hold, Move, Pass, PickUp
from .rules import ISKO, Rules

if TYPE_CHECKING:
    from .foster_game import FosterHand


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The deal and every move of a hand, plus the result the rules give them.

    Build it with :func:`replay` (validated) or :meth:`from_state` from a finished game;
    the derived views (auction, declaration, tricks, ...) are read off the moves.
    """

    deal: Deal
    moves: tuple[Move, ...]
    result: GameResult = field(compare=False)
    rules: Rules = ISKO
    #: R21: the hand was played in a Bock round (a session's fact, kept with the hand).
    bock: bool = False

    @classmethod
    def from_state(cls, state: GameState | FosterHand) -> GameRecord:
        """The record of a finished :class:`GameState`."""
        return cls(state.deal, tuple(state.moves), state.result(), state.rules, state.bock)

    @property
    def recorded(self) -> bool:
        """Whether the record was replayed under recorded-log conventions (R17 endings)."""
        return self.rules.early_endings

    @property
    def extra_bids(self) -> frozenset[int]:
        """The off-ladder bids the rule set admits (R18): ISS's, or none."""
        return ISS_EXTRA_BIDS if self.rules.iss_bids else frozenset()

    @property
    def auction(self) -> tuple[AuctionCall, ...]:
        return tuple(m for m in self.moves if isinstance(m, (Bid, Hold, Pass)))

    @property
    def declarer(self) -> int | None:
        return self.result.declarer

    @property
    def skat_taken(self) -> bool:
        return any(isinstance(m, PickUp) for m in self.moves)

    @property
    def declaration(self) -> Declaration | None:
        return next((m.declaration for m in self.moves if isinstance(m, Declare)), None)

    @property
    def discard(self) -> tuple[Card, Card] | None:
        return next((m.cards for m in self.moves if isinstance(m, Discard)), None)

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks (a trick cut short by an early end is not included)."""
        return tuple(self.replay_state().tricks)

    def replay_state(self) -> GameState | FosterHand:
        """Replay the moves through the validated path and return the final state."""
        state = new_state(self.deal, rules=self.rules, bock=self.bock)
        for move in self.moves:
            state.apply(move)
        return state


def replay(
    deal: Deal,
    moves: list[Move] | tuple[Move, ...],
    *,
    rules: Rules = ISKO,
    bock: bool = False,
) -> GameRecord:
    """Replay ``moves`` on ``deal`` under ``rules`` (in a Bock round when ``bock``, R21)
    through the validated path.

    Raises the :class:`~.errors.RuleError` of the first illegal move, or ValueError when the
    moves stop before the hand is over.
    """
    state = new_state(deal, rules=rules, bock=bock)
    for move in moves:
        state.apply(move)
    return GameRecord.from_state(state)
