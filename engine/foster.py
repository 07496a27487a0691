"""Foster's Skat (the rule set ``foster``, docs/rules.md "Foster", F1-F13): his games by
self-explaining names, their scoring, Ramsch, the seats of a table of three to six and the
settlement of a sitting, as typed wrappers over the rules core (:mod:`.core`).

A Foster hand is played move by move by :class:`~.foster_game.FosterHand`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from . import core
from .scoring import Score


class FosterGame(IntEnum):
    """Foster's games (F5, F6); ``label`` is the archive's contract name."""

    TOURNEE_DIAMONDS = core.F_TOURNEE_DIAMONDS
    TOURNEE_HEARTS = core.F_TOURNEE_HEARTS
    TOURNEE_SPADES = core.F_TOURNEE_SPADES
    TOURNEE_CLUBS = core.F_TOURNEE_CLUBS
    TURNED_GRAND = core.F_TURNED_GRAND
    GUCKI_GRAND = core.F_GUCKI_GRAND
    SOLO_DIAMONDS = core.F_SOLO_DIAMONDS
    SOLO_HEARTS = core.F_SOLO_HEARTS
    SOLO_SPADES = core.F_SOLO_SPADES
    SOLO_CLUBS = core.F_SOLO_CLUBS
    SOLO_GRAND = core.F_SOLO_GRAND
    OPEN_GRAND = core.F_OPEN_GRAND
    GUCKI_NULLO = core.F_GUCKI_NULLO
    OPEN_GUCKI_NULLO = core.F_OPEN_GUCKI_NULLO
    SOLO_NULLO = core.F_SOLO_NULLO
    OPEN_SOLO_NULLO = core.F_OPEN_SOLO_NULLO
    RAMSCH = core.F_RAMSCH

    @property
    def label(self) -> str:
        return core.FOSTER_NAMES[self]

    @classmethod
    def from_label(cls, label: str) -> FosterGame:
        try:
            return cls(core.FOSTER_NAMES.index(label))
        except ValueError:
            raise ValueError(f"not a Foster game: {label!r}") from None

    @property
    def unit_value(self) -> int:
        """F6: the unit value (a nullo's fixed value)."""
        return core.FOSTER_UNIT_VALUES[self]

    @property
    def uses_skat(self) -> bool:
        """F5: Tournée, turned grand and the guckis use the skat; solos do not."""
        return bool(core.FOSTER_USES_SKAT[self])


#: F3: Foster's bids, computed from his game table (10, 12, 14, 15, 16, 18, ...).
FOSTER_BIDS: tuple[int, ...] = core.FOSTER_BID_LADDER


def contract_name(game: FosterGame, passt_mir_nicht: bool = False) -> str:
    """The archive's name of a game: ``tournee_hearts``, or ``passt_mir_nicht_hearts`` for a
    Tournée played on the second card after Passt-mir-nicht (``passt_mir_nicht_grand`` for a
    turned grand so played)."""
    if passt_mir_nicht and game.uses_skat and not core.FOSTER_GUCKI[game]:
        return "passt_mir_nicht_" + game.label.rsplit("_", 1)[1]
    return game.label


def foster_score(
    game: FosterGame,
    *,
    bid: int,
    matadors: int,
    player_points: int,
    player_tricks: int,
    adversary_tricks: int | None = None,
    passt_mir_nicht: bool = False,
    schneider_announced: bool = False,
    schwarz_announced: bool = False,
    abandoned: bool = False,
) -> Score:
    """Score one of Foster's games (F8-F11) by :func:`core.foster_score`; announcements are
    legal only in solos (law 41), Passt-mir-nicht only in a game using the skat (law 28)."""
    if game is FosterGame.RAMSCH:
        raise ValueError("a Ramsch is scored by foster_ramsch (F12)")
    if (schneider_announced or schwarz_announced) and game.uses_skat:
        raise ValueError(f"{game.label} uses the skat: no announcement (law 41)")
    if passt_mir_nicht and not game.uses_skat:
        raise ValueError(f"{game.label} does not use the skat: no Passt-mir-nicht (law 28)")
    if adversary_tricks is None:
        adversary_tricks = core.N_TRICKS - player_tricks
    won, value, game_value, mult, overbid, schneider, schwarz = core.foster_score(
        int(game), passt_mir_nicht, schneider_announced, schwarz_announced, abandoned, bid,
        matadors, player_points, player_tricks, adversary_tricks)
    return Score(bool(won), int(value), int(game_value), int(mult), bool(overbid),
                 bool(schneider), bool(schwarz))


def foster_ramsch(points: tuple[int, int, int], tricks: tuple[int, int, int],
                  last_winner: int) -> tuple[int, int, int]:
    """F12 (law 4): each seat's Ramsch score from card points (the skat with the last
    trick), tricks and the winner of the last trick."""
    v0, v1, v2 = core.foster_ramsch_score(*points, *tricks, last_winner)
    return int(v0), int(v1), int(v2)


@dataclass
class Sitting:
    """F1, F13: a Foster sitting of 3 to 6 players in whole rounds (a round: one deal by
    each player, law 7); only the single player's value is entered, under his name (law 58),
    and the sitting is settled against the table's average (law 59)."""

    players: tuple[str, ...]
    first_dealer: int = 0
    deals: int = 0

    def __post_init__(self) -> None:
        core.foster_active_positions(self.first_dealer, len(self.players))  # 3 to 6 (law 6)
        self.scores = [0] * len(self.players)

    @property
    def dealer(self) -> int:
        """The deal passes to the left (law 16)."""
        return (self.first_dealer + self.deals) % len(self.players)

    def active(self) -> tuple[int, int, int]:
        """The table positions of Vorhand, Mittelhand and Hinterhand of the next deal (F1)."""
        return core.foster_active_positions(self.dealer, len(self.players))

    def enter(self, seat_values: tuple[int, int, int]) -> None:
        """Enter a deal's values by seat (the single player's, or each Ramsch score)."""
        for position, value in zip(self.active(), seat_values, strict=True):
            self.scores[position] += value
        self.deals += 1

    @property
    def complete(self) -> bool:
        """A sitting is a whole number of rounds (law 10)."""
        return self.deals > 0 and self.deals % len(self.players) == 0

    def settlement(self) -> tuple[float, ...]:
        """F13: each player's score minus the table's average; refused mid-round."""
        if not self.complete:
            raise ValueError(f"a sitting is settled after whole rounds (law 10); {self.deals}"
                             f" deals at a table of {len(self.players)}")
        return core.foster_settlement(tuple(self.scores))


__all__ = ["FOSTER_BIDS", "FosterGame", "Sitting", "contract_name", "foster_ramsch",
           "foster_score"]
