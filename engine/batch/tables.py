"""The rules core's tables under the names the batch kernel and the rules bot use.

Every array here is the rules core's own (:mod:`skatlog.engine.core`), or derived from it: the
kernels carry no rule data of their own. ``DECL_T`` lists the legal declarations as the core's
``declaration_error`` decides them; the simulator stores an index into it.
"""

from __future__ import annotations

import numpy as np

from .. import core

#: EFFECTIVE_T[contract, card] -> effective suit 0..3, or 4 for trumps (R8).
EFFECTIVE_T = core.EFFECTIVE
#: POWER_T[contract, card] -> strength within the effective suit (R8).
POWER_T = core.POWER
#: FOLLOW_T[contract, effective suit] -> 32-bit mask of that suit's cards (R8).
FOLLOW_T = core.SUIT_MASK
#: POINTS_T[card] -> card points (R1).
POINTS_T = core.POINTS
#: LADDER_T: the 63 legal bids in increasing order (R3).
LADDER_T = core.LADDER
#: BASE_T[contract] -> base value; index 5 (null) holds plain null's 23 (R5).
BASE_T = core.BASE
#: NULL_VALUE_T[hand, ouvert] -> fixed null value (R5).
NULL_VALUE_T = core.NULL_VALUE
#: TRUMP_SEQ_T[contract, i] -> i-th highest trump (matador order, R12), -1 padded.
TRUMP_SEQ_T = core.TRUMP_SEQ
#: Number of trumps per contract (11 suit, 4 grand, 0 null).
TRUMP_LEN_T = core.TRUMP_LEN

#: NULL_ORDER_T[suit, p] -> the card of ``suit`` with null power ``p`` (7 lowest, A highest).
NULL_ORDER_T = np.zeros((4, 8), dtype=np.int64)
for _c in range(32):
    NULL_ORDER_T[_c >> 3, core.POWER[core.NULL, _c]] = _c

def _beaters() -> np.ndarray:
    """BEATERS_T[contract, best] -> mask of the cards that beat ``best`` when it is winning
    the trick (R8), from the rules core's :func:`~skatlog.engine.core.beats`."""
    kinds = core.POWER.shape[0]  # the contracts and any other kind of play the core has
    table = np.zeros((kinds, 32), dtype=np.int64)
    for k in range(kinds):
        for best in range(32):
            table[k, best] = sum(1 << card for card in range(32)
                                 if core.beats(k, card, best))
    return table


#: BEATERS_T[contract, best] -> mask of the cards that beat ``best`` (R8).
BEATERS_T = _beaters()
#: HIGHER_T[contract, card] -> mask of the cards of ``card``'s effective suit above it (R8).
HIGHER_T = np.array([[BEATERS_T[k, card] & core.follow_mask(k, card) for card in range(32)]
                     for k in range(BEATERS_T.shape[0])], dtype=np.int64)

TRUMP_SUIT = core.TRUMP
NULL = core.NULL
GRAND = core.GRAND

# Auction call codes in the simulator's output (the value itself for a bid).
CALL_PASS = core.CALL_PASS
CALL_HOLD = core.CALL_HOLD


def _declarations() -> np.ndarray:
    """Every legal declaration (R5, R6) as (contract, hand, schneider ann., schwarz ann.,
    ouvert), normalized and checked by the rules core, in a fixed order."""
    rows: list[tuple[int, int, int, int, int]] = []
    for contract in range(core.N_CONTRACTS):
        for hand in (False, True):
            for level in range(4):  # none, schneider, schwarz, ouvert
                if contract == core.NULL and level in (1, 2):
                    continue
                ouvert = level == 3
                announces = contract != core.NULL  # null's level 3 is ouvert alone
                h, s, z = core.normalize_declaration(
                    contract, hand, announces and level >= 1, announces and level >= 2, ouvert)
                if core.declaration_error(contract, h, s, z, ouvert, not h):
                    continue
                row = (contract, int(h), int(s), int(z), int(ouvert))
                if row not in rows:
                    rows.append(row)
    return np.array(rows, dtype=np.int64)


#: DECL_T[i] -> (contract, hand, schneider announced, schwarz announced, ouvert).
DECL_T = _declarations()
N_DECL = len(DECL_T)

__all__ = [
    "BASE_T", "BEATERS_T", "CALL_HOLD", "CALL_PASS", "DECL_T", "EFFECTIVE_T", "FOLLOW_T",
    "GRAND", "HIGHER_T", "LADDER_T", "NULL", "NULL_ORDER_T", "NULL_VALUE_T", "N_DECL",
    "POINTS_T", "POWER_T",
    "TRUMP_LEN_T", "TRUMP_SEQ_T", "TRUMP_SUIT",
]
