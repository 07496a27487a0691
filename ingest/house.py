"""Checks of what a log claims for the house options of ``isko`` (docs/rules.md R19-R21)
and for Foster's games (F8-F12).

:func:`check_ramsch_value` compares a Ramsch hand's recorded per-seat result (skatlog/1
``result.scores`` and ``result.points``) with the one the rules give, the way
:func:`~.validate.check_value` compares a declared game's value.
"""

from __future__ import annotations

from skatlog.engine.game import GameResult

from .model import RecordedResult


def check_ramsch_value(result: GameResult, recorded: RecordedResult) -> tuple[str, str]:
    """``(value_check, problem)`` for a recorded result where a Ramsch (R20) is involved:
    ``ok`` when the recorded scores (and points, when given) are the rules', ``not_recorded``
    when the log names neither, else ``score_mismatch`` with what differs."""
    ramsch = result.ramsch
    if ramsch is None:
        return "score_mismatch", (f"the log records Ramsch scores {_three(recorded.scores)},"
                                  f" but the hand is {result.outcome}, not a Ramsch")
    if recorded.passed or recorded.declarer is not None or recorded.value is not None:
        return "score_mismatch", ("the hand was played as Ramsch (R20), but the log records"
                                  " a skipped hand or a declarer's game")
    if recorded.scores is None and recorded.points is None:
        return "not_recorded", ""
    if recorded.points is not None and recorded.points != ramsch.points:
        return "score_mismatch", (f"the Ramsch card points are {_three(ramsch.points)}"
                                  " (the skat with the last trick), but the log records"
                                  f" {_three(recorded.points)}")
    if recorded.scores is not None and recorded.scores != ramsch.values:
        return "score_mismatch", (f"the Ramsch is worth {_three(ramsch.values)} (R20),"
                                  f" but the log records {_three(recorded.scores)}")
    return "ok", ""


def check_foster_value(result: GameResult, recorded: RecordedResult) -> tuple[str, str]:
    """``(value_check, problem)`` for a Foster game (F8-F11): the recorded ``value`` against
    the rules' one; ``not_recorded`` when the log names none."""
    if recorded.passed or recorded.penalty:
        return "score_mismatch", "the log records a skipped hand, but the game was played (F4)"
    if recorded.declarer is not None and recorded.declarer != result.declarer:
        return "score_mismatch", (f"the player is seat {result.declarer}, but the log names"
                                  f" seat {recorded.declarer}")
    if recorded.value is None:
        return "not_recorded", ""
    if recorded.value == result.value:
        return "ok", ""
    return "score_mismatch", (f"the game is worth {result.value:+d} ({result.contract_label},"
                              f" {result.declarer_points} points), but the log records"
                              f" {recorded.value:+d}")


def _three(values: tuple[int, int, int] | None) -> str:
    return "none" if values is None else "/".join(f"{v:+d}" if v else "0" for v in values)
