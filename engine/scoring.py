"""Scoring (R10-R16): game value, won or lost, overbid, and the declarer's list value."""

from __future__ import annotations

from dataclasses import dataclass

from .contract import BASE_VALUES, Contract, Declaration


@dataclass(frozen=True, slots=True)
class Score:
    """The scored outcome of one declared game.

    ``value`` is the declarer's signed list value (+game value won, -2 x value lost, R14-R16);
    ``game_value`` is the unsigned value the loss was doubled from (the overbid value of R15
    when ``overbid``); ``schneider``/``schwarz`` tell whether either party reached them.
    """

    won: bool
    value: int
    game_value: int
    multiplier: int
    overbid: bool
    schneider: bool
    schwarz: bool


def smallest_multiple_reaching(base: int, bid: int) -> int:
    """The smallest multiple of ``base`` that is at least ``bid`` (R7, R15)."""
    return -(-bid // base) * base


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
) -> Score:
    """Score a declared game from what the declarer took (R10-R16).

    ``declarer_points`` include the skat (R10). ``defender_points`` defaults to the rest of the
    120; a game that ended early (R9, R17) passes what the defenders actually took. Schneider
    is reached by a party holding 90 or more (the other has 30 or fewer, R11); schwarz by a
    party taking all ten tricks. ``declarer_conceded`` marks a declarer who resigned, timed
    out or left: the game is lost whatever the points (R17).
    """
    if defender_points is None:
        defender_points = 120 - declarer_points
    if declaration.contract is Contract.NULL:
        return _score_null(declaration, bid, declarer_tricks, declarer_conceded)

    schneider = declarer_points >= 90 or defender_points >= 90
    schwarz = declarer_tricks == 10 or defender_tricks == 10
    multiplier = (
        abs(matadors)
        + 1
        + declaration.hand
        + (schneider or declaration.schneider_announced)
        + declaration.schneider_announced
        + (schwarz or declaration.schwarz_announced)
        + declaration.schwarz_announced
        + (declaration.ouvert and declaration.contract is not Contract.NULL)
    )
    base = BASE_VALUES[declaration.contract]
    value = base * multiplier

    if declaration.schwarz_announced:
        objective = declarer_tricks == 10 and defender_tricks == 0
    elif declaration.schneider_announced:
        objective = declarer_points >= 90
    else:
        objective = declarer_points >= 61
    objective = objective and not declarer_conceded

    if value < bid:  # R15: overbid, lost whatever the points
        lost_value = smallest_multiple_reaching(base, bid)
        return Score(False, -2 * lost_value, lost_value, multiplier, True, schneider, schwarz)
    if objective:
        return Score(True, value, value, multiplier, False, schneider, schwarz)
    return Score(False, -2 * value, value, multiplier, False, schneider, schwarz)


def _score_null(
    declaration: Declaration, bid: int, declarer_tricks: int, declarer_conceded: bool
) -> Score:
    value = declaration.base_value
    if value < bid:  # R7: a recorded null below the bid scores as an overbid
        lost_value = smallest_multiple_reaching(BASE_VALUES[Contract.NULL], bid)
        return Score(False, -2 * lost_value, lost_value, 1, True, False, False)
    won = declarer_tricks == 0 and not declarer_conceded
    return Score(won, value if won else -2 * value, value, 1, False, False, False)
