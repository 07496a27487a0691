"""Typed rule errors: each names the rule it enforces (R1..R18) and a stable error code.

Every error subclasses :class:`RuleError`, itself a :class:`ValueError`, so callers can catch
one family or a single kind. ``code`` is the machine-readable class that ingest stores;
``rule`` cites docs/rules.md (R1-R18); ``move`` is the offending move when there is one.
"""

from __future__ import annotations

from typing import Any


class RuleError(ValueError):
    """A call, card or declaration that the rules do not allow."""

    code = "rule"

    def __init__(self, message: str, *, rule: str = "", move: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.move = move

    def __str__(self) -> str:
        prefix = f"{self.rule}: " if self.rule else ""
        return f"{prefix}{self.message}"


class BadDeal(RuleError):
    """The deal is not 3 hands of 10 plus a skat of 2 distinct cards (R1)."""

    code = "bad_deal"


class IllegalBid(RuleError):
    """A bid off the ladder, not above the last one, or a hold/pass out of place (R3, R4)."""

    code = "illegal_bid"


class WrongPlayer(RuleError):
    """A seat acted when it was another seat's turn."""

    code = "wrong_player"


class WrongPhase(RuleError):
    """A move that does not belong in the current phase (e.g. a card during the auction)."""

    code = "wrong_phase"


class IllegalDeclaration(RuleError):
    """A declaration or discard the rules forbid (R5-R7)."""

    code = "illegal_declaration"


class CardNotInHand(RuleError):
    """A card played or discarded that the seat does not hold."""

    code = "card_not_in_hand"


class Revoke(RuleError):
    """Not following the effective suit when able (R8)."""

    code = "revoke"


class PlayAfterEnd(RuleError):
    """A move after the game has ended (R9, R17)."""

    code = "play_after_end"
