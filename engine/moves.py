"""Moves: every call, card and event a game record is made of, as small frozen values.

A seat is 0 (Forehand), 1 (Middlehand) or 2 (Rearhand) in the hand being played (R1).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card
from .contract import Declaration

FOREHAND, MIDDLEHAND, REARHAND = 0, 1, 2
SEAT_NAMES = ("Forehand", "Middlehand", "Rearhand")


@dataclass(frozen=True, slots=True)
class Bid:
    """``seat`` names a value from the ladder (R3)."""

    seat: int
    value: int


@dataclass(frozen=True, slots=True)
class Hold:
    """The listener holds ("yes") the last bid (R4)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Pass:
    """``seat`` leaves the auction (R4)."""

    seat: int


@dataclass(frozen=True, slots=True)
class PickUp:
    """The declarer takes the skat (R5)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Discard:
    """The declarer lays two cards away after picking up the skat (R5)."""

    seat: int
    cards: tuple[Card, Card]


@dataclass(frozen=True, slots=True)
class Declare:
    """The declarer names the game (R5, R6)."""

    seat: int
    declaration: Declaration


@dataclass(frozen=True, slots=True)
class Play:
    """``seat`` plays ``card`` to the current trick (R8)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Resign:
    """``seat`` gives up the game (ISS ``RE``, R17)."""

    seat: int


@dataclass(frozen=True, slots=True)
class ShowCards:
    """The declarer lays the hand open (ISS ``SC``); it does not end the game (R17)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TimeOut:
    """``seat`` ran out of time (ISS ``w TI.n``, R17)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Leave:
    """``seat`` left the table (ISS ``w LE.n``, R17)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Kontra:
    """A defender doubles the game before his first card (option ``kontra_re``, R19)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Re:
    """The declarer answers a Kontra, doubling again (option ``kontra_re``, R19)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Turn:
    """Foster (F5, law 28-30): the player turns up skat card ``card`` for a Tournée; with
    ``passt_mir_nicht`` he took the other card into his hand unshown and must play this
    one's game (his loss then counts double, law 3)."""

    seat: int
    card: Card
    passt_mir_nicht: bool = False


@dataclass(frozen=True, slots=True)
class Gucki:
    """Foster (F5, law 28, 40): the player takes both skat cards into his hand unseen."""

    seat: int


@dataclass(frozen=True, slots=True)
class FosterDeclare:
    """Foster (F5): the player names his game (a ``core.F_*`` kind, see
    :class:`~.foster.FosterGame`) with the announcements a solo allows (law 39)."""

    seat: int
    game: int
    schneider_announced: bool = False
    schwarz_announced: bool = False


AuctionCall = Bid | Hold | Pass
Move = (Bid | Hold | Pass | PickUp | Discard | Declare | Play | Resign | ShowCards | TimeOut
        | Leave | Kontra | Re | Turn | Gucki | FosterDeclare)
