"""Contracts and declarations (R5-R7): what the declarer plays and what it is worth."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from . import core
from .errors import IllegalDeclaration


class Contract(IntEnum):
    """The six contracts; suit contracts share their value with :class:`~.cards.Suit`."""

    DIAMONDS = 0
    HEARTS = 1
    SPADES = 2
    CLUBS = 3
    GRAND = 4
    NULL = 5

    @property
    def is_suit(self) -> bool:
        return self <= Contract.CLUBS

    @property
    def letter(self) -> str:
        """The ISS letter: ``D H S C G N``."""
        return "DHSCGN"[self]

    @property
    def label(self) -> str:
        """The lower-case name used in archive rows (``diamonds`` ... ``null``)."""
        return self.name.lower()

    @classmethod
    def from_letter(cls, letter: str) -> Contract:
        index = "DHSCGN".find(letter)
        if len(letter) != 1 or index < 0:
            raise ValueError(f"not a contract letter: {letter!r}")
        return cls(index)

    @classmethod
    def from_label(cls, label: str) -> Contract:
        return cls[label.upper()]


#: Base values (R5): diamonds 9, hearts 10, spades 11, clubs 12, grand 24; null has fixed values.
BASE_VALUES = core.BASE_VALUES
null_value = core.null_value

#: What each of the core's declaration errors means, and the rule it cites.
_DECLARATION_ERRORS = {
    core.D_NULL_ANNOUNCES: ("null cannot announce schneider or schwarz", "R6"),
    core.D_ANNOUNCE_NOT_HAND: ("announcements are legal only in hand games", "R6"),
    core.D_SCHWARZ_ALONE: ("schwarz announced implies schneider announced", "R6"),
    core.D_OUVERT_ALONE: ("ouvert implies schneider and schwarz announced", "R6"),
}


@dataclass(frozen=True, slots=True)
class Declaration:
    """A declared game: the contract and its modifiers.

    Build one with :meth:`normalized` to apply the implications of R6 (ouvert implies hand,
    schneider and schwarz announced; schwarz implies schneider), or directly to keep exactly
    what a log said; :meth:`check` tells whether it is legal for a pick-up or hand game.
    """

    contract: Contract
    hand: bool = False
    schneider_announced: bool = False
    schwarz_announced: bool = False
    ouvert: bool = False

    @classmethod
    def normalized(
        cls,
        contract: Contract,
        *,
        hand: bool = False,
        schneider_announced: bool = False,
        schwarz_announced: bool = False,
        ouvert: bool = False,
    ) -> Declaration:
        """The declaration with R6's implications applied (suit/grand ouvert = hand + S + Z)."""
        hand, schneider, schwarz = core.normalize_declaration(
            int(contract), hand, schneider_announced, schwarz_announced, ouvert)
        return cls(contract, bool(hand), bool(schneider), bool(schwarz), ouvert)

    def check(self, skat_taken: bool) -> None:
        """Raise :class:`IllegalDeclaration` unless this is legal (R5, R6).

        ``skat_taken`` says whether the declarer picked up the skat; a hand game is one where
        the skat stayed down, so ``hand`` must equal ``not skat_taken``.
        """
        error = core.declaration_error(int(self.contract), self.hand, self.schneider_announced,
                                       self.schwarz_announced, self.ouvert, skat_taken)
        if error == core.D_HAND_MISMATCH:
            kind = "a hand game" if self.hand else "a game with the skat"
            taken = "picked up" if skat_taken else "left the skat"
            raise IllegalDeclaration(f"declared {kind} but {taken}", rule="R5")
        if error:
            message, rule = _DECLARATION_ERRORS[error]
            raise IllegalDeclaration(message, rule=rule)

    @property
    def base_value(self) -> int:
        """Base value of a suit or grand game, or the fixed value of a null game (R5)."""
        return int(core.declared_base(int(self.contract), self.hand, self.ouvert))

    @property
    def iss(self) -> str:
        """ISS contract text such as ``G``, ``CH``, ``GHSZO`` or ``NOH``."""
        letter = self.contract.letter
        if self.ouvert and self.contract is not Contract.NULL:
            return letter + "O"  # suit/grand ouvert implies hand, schneider and schwarz (R6)
        text = letter + ("H" if self.hand else "")
        if self.schwarz_announced:
            text += "Z"
        elif self.schneider_announced:
            text += "S"
        return text + ("O" if self.ouvert else "")

    @classmethod
    def from_iss(cls, text: str) -> Declaration:
        """Parse an ISS contract (``G``, ``CHZ``, ``NOH``, ``GO``; modifiers in any order)."""
        if not text:
            raise ValueError("empty contract")
        contract = Contract.from_letter(text[0])
        mods = text[1:]
        if any(m not in "HSZO" for m in mods) or len(set(mods)) != len(mods):
            raise ValueError(f"bad contract modifiers in {text!r}")
        return cls.normalized(
            contract,
            hand="H" in mods,
            schneider_announced="S" in mods,
            schwarz_announced="Z" in mods,
            ouvert="O" in mods,
        )

    def __str__(self) -> str:
        parts = [self.contract.label]
        if self.hand:
            parts.append("hand")
        if self.ouvert:
            parts.append("ouvert")
        elif self.schwarz_announced:
            parts.append("schwarz announced")
        elif self.schneider_announced:
            parts.append("schneider announced")
        return " ".join(parts)
