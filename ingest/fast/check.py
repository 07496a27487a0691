"""The differential check: one kernel row against the engine's own record of the same game.

Used by ``bench/ingest.py`` (100,000 games) and ``tests/test_fast_iss.py``: the kernel must
accept every engine game and reproduce the engine's status, deal, tricks and every scored field.
"""

from __future__ import annotations

import numpy as np

from skatlog.engine import Ending, GameRecord

from . import iss_kernel as K
from .runner import STATUS_NAMES


def compare_with_engine(record: GameRecord, row: np.ndarray, deal: np.ndarray,
                        tricks: np.ndarray) -> str:
    """'' when the kernel row equals the engine's record of the game, else what differs."""
    result = record.result
    if row[K.F_STATUS] != K.OK:
        return f"status {STATUS_NAMES[int(row[K.F_STATUS])]} at move {row[K.F_ERR_MOVE]}"
    if [int(c) for c in record.deal.cards] != [int(c) for c in deal]:
        return "deal"
    outcome = {"played": K.OUT_PLAYED, "passed": K.OUT_PASSED, "penalty": K.OUT_PENALTY}
    expect = {
        K.F_OUTCOME: outcome[result.outcome],
        K.F_DECLARER: -1 if result.declarer is None else result.declarer,
        K.F_BID: result.bid,
        K.F_ENDING: list(Ending).index(result.ending),
        K.F_NTRICKS: len(record.tricks),
    }
    decl = result.declaration
    if decl is not None and result.score is not None:
        score = result.score
        expect.update({
            K.F_CONTRACT: int(decl.contract), K.F_HAND: decl.hand,
            K.F_SCHN_ANN: decl.schneider_announced, K.F_SCHW_ANN: decl.schwarz_announced,
            K.F_OUVERT: decl.ouvert, K.F_MATADORS: result.matadors,
            K.F_DPOINTS: result.declarer_points, K.F_DEFPOINTS: result.defender_points,
            K.F_DTRICKS: result.declarer_tricks, K.F_DEFTRICKS: result.defender_tricks,
            K.F_SCHNEIDER: score.schneider, K.F_SCHWARZ: score.schwarz, K.F_WON: score.won,
            K.F_OVERBID: score.overbid, K.F_VALUE: score.value,
            K.F_GAME_VALUE: score.game_value, K.F_MULT: score.multiplier,
        })
    for field, value in expect.items():
        if int(row[field]) != int(value):
            return f"field {field}: kernel {int(row[field])} engine {int(value)}"
    for t, trick in enumerate(record.tricks):
        got = [int(x) for x in tricks[t]]
        want = [int(c) for c in trick.cards] + [trick.leader, trick.winner]
        if got != want:
            return f"trick {t + 1}: kernel {got} engine {want}"
    return ""
