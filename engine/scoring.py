"""Scoring (R10-R16): game value, won or lost, overbid, and the declarer's list value."""

from __future__ import annotations

from dataclasses import dataclass

from . import core
from .contract import Declaration


@dataclass(frozen=True, slots=True)
class Score:
    """The scored outcome of one declared game.

    ``value`` is the declarer's signed list value (+game value won, -2 x value lost, R14-R16),
    doubled ``doublings`` times by Kontra, Re (R19) and a Bock round (R21); ``game_value`` is
    the unsigned value the loss was doubled from (the overbid value of R15 when ``overbid``),
    never doubled by those; ``schneider``/``schwarz`` tell whether either party reached them.
    """

    won: bool
    value: int
    game_value: int
    multiplier: int
    overbid: bool
    schneider: bool
    schwarz: bool
    doublings: int = 0


def score_game(
    declaration: Declaration,
    *,
    bid: int,
    matadors: int,
    declarer_points: int,
    declarer_tricks: int,
    defender_tricks: int,
    defender_points: int | None = None,
    declarer_conceded: bool = False,
    kontra: bool = False,
    re: bool = False,
    bock: bool = False,
) -> Score:
    """Score a declared game from what the declarer took (R10-R16), by :func:`core.score`.

    ``declarer_points`` include the skat (R10). ``defender_points`` defaults to the rest of the
    120; a game that ended early (R9, R17) passes what the defenders actually took.
    ``declarer_conceded`` marks a declarer who resigned, timed out or left: the game is lost
    whatever the points (R17). ``kontra``, ``re`` and ``bock`` double the list value once
    each (R19, R21).
    """
    if defender_points is None:
        defender_points = 120 - declarer_points
    won, value, game_value, multiplier, overbid, schneider, schwarz = core.score(
        int(declaration.contract), declaration.hand, declaration.schneider_announced,
        declaration.schwarz_announced, declaration.ouvert, bid, matadors, declarer_points,
        defender_points, declarer_tricks, defender_tricks, declarer_conceded)
    times = 0
    if kontra or re or bock:
        times = int(core.doublings(kontra, re, bock))
        value = core.doubled(int(value), times)
    return Score(bool(won), int(value), int(game_value), int(multiplier), bool(overbid),
                 bool(schneider), bool(schwarz), times)
