"""The ``tricks`` and ``auction`` rows of a chunk's accepted games, each in one compiled pass.

The kernel leaves every record's tricks in an ``(n, 10, 5)`` matrix and its auction calls
in one ``(calls, 3)`` list (a record's calls from ``F_CALL_OFF``, ``F_CALL_N`` of them).
Gathering the accepted games' rows out of them with numpy took a dozen passes (a boolean
mask, repeats, fancy indexing, a cast a column) and a fifth of the archive tables' time;
these loops write every column in one pass. The values are the kernel's, moved: no rule
is applied here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .iss_kernel import T_C0, T_C1, T_C2, T_LEADER, T_WINNER


@njit(cache=True, nogil=True)
def trick_rows(tricks: np.ndarray, rows: np.ndarray, ntricks: np.ndarray, ids: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                          np.ndarray, np.ndarray]:
    """The ``tricks`` columns (game_id, trick_no, leader, card1, card2, card3, winner) of
    the games at ``rows`` of the kernel's ``tricks`` matrix: ``ntricks[g]`` tricks of game
    ``g``, whose id is ``ids[g]``; game by game, in trick order."""
    total = 0
    for g in range(rows.shape[0]):
        total += ntricks[g]
    game_id = np.empty(total, np.int64)
    trick_no = np.empty(total, np.uint8)
    leader = np.empty(total, np.uint8)
    card1 = np.empty(total, np.uint8)
    card2 = np.empty(total, np.uint8)
    card3 = np.empty(total, np.uint8)
    winner = np.empty(total, np.uint8)
    k = 0
    for g in range(rows.shape[0]):
        r = rows[g]
        for t in range(ntricks[g]):
            game_id[k] = ids[g]
            trick_no[k] = t + 1
            leader[k] = tricks[r, t, T_LEADER]
            card1[k] = tricks[r, t, T_C0]
            card2[k] = tricks[r, t, T_C1]
            card3[k] = tricks[r, t, T_C2]
            winner[k] = tricks[r, t, T_WINNER]
            k += 1
    return game_id, trick_no, leader, card1, card2, card3, winner


@njit(cache=True, nogil=True)
def auction_rows(calls: np.ndarray, starts: np.ndarray, counts: np.ndarray, ids: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ``auction`` columns (game_id, call_no, seat, kind code, value) of games whose
    calls are ``calls[starts[g]:starts[g] + counts[g]]`` (seat, kind, value), ids ``ids``;
    game by game, in call order."""
    total = 0
    for g in range(starts.shape[0]):
        total += counts[g]
    game_id = np.empty(total, np.int64)
    call_no = np.empty(total, np.uint8)
    seat = np.empty(total, np.uint8)
    kind = np.empty(total, np.int32)
    value = np.empty(total, np.int16)
    k = 0
    for g in range(starts.shape[0]):
        for c in range(counts[g]):
            i = starts[g] + c
            game_id[k] = ids[g]
            call_no[k] = c + 1
            seat[k] = calls[i, 0]
            kind[k] = calls[i, 1]
            value[k] = calls[i, 2]
            k += 1
    return game_id, call_no, seat, kind, value
