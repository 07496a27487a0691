"""The engine's rule tables as numpy arrays, the only rules the compiled kernels know.

Every array is computed from the engine's own tables (``tricks.EFFECTIVE/POWER/FOLLOW_MASK``,
``tricks.trump_sequence``, ``cards.CARD_POINTS``, ``auction.BID_LADDER``,
``contract.BASE_VALUES``), so the batch simulator cannot drift from the rules engine; the
differential test (``tests/test_batch_simulator.py``) holds the two equal.
"""

from __future__ import annotations

import numpy as np

from ..auction import BID_LADDER
from ..cards import CARD_POINTS
from ..contract import BASE_VALUES, Contract, null_value
from ..tricks import EFFECTIVE, FOLLOW_MASK, POWER, TRUMP, trump_sequence

#: EFFECTIVE_T[contract, card] -> effective suit 0..3, or 4 for trumps (R8).
EFFECTIVE_T = np.array(EFFECTIVE, dtype=np.int64)
#: POWER_T[contract, card] -> strength within the effective suit (R8).
POWER_T = np.array(POWER, dtype=np.int64)
#: FOLLOW_T[contract, effective suit] -> 32-bit mask of that suit's cards (R8).
FOLLOW_T = np.array(FOLLOW_MASK, dtype=np.int64)
#: POINTS_T[card] -> card points (R1).
POINTS_T = np.array(CARD_POINTS, dtype=np.int64)
#: LADDER_T: the 63 legal bids in increasing order (R3).
LADDER_T = np.array(BID_LADDER, dtype=np.int64)
#: BASE_T[contract] -> base value; index 5 (null) holds plain null's 23 (R5).
BASE_T = np.array(BASE_VALUES, dtype=np.int64)
#: NULL_VALUE_T[hand, ouvert] -> fixed null value (R5).
NULL_VALUE_T = np.array(
    [[null_value(False, False), null_value(False, True)],
     [null_value(True, False), null_value(True, True)]], dtype=np.int64)
#: TRUMP_SEQ_T[contract, i] -> i-th highest trump (matador order, R12), -1 padded.
TRUMP_SEQ_T = np.full((6, 11), -1, dtype=np.int64)
for _contract in Contract:
    for _i, _card in enumerate(trump_sequence(_contract)):
        TRUMP_SEQ_T[_contract, _i] = int(_card)
#: Number of trumps per contract (11 suit, 4 grand, 0 null).
TRUMP_LEN_T = np.array([len(trump_sequence(c)) for c in Contract], dtype=np.int64)

#: NULL_ORDER_T[suit, p] -> the card of ``suit`` with null power ``p`` (7 lowest, A highest).
NULL_ORDER_T = np.zeros((4, 8), dtype=np.int64)
for _c in range(32):
    NULL_ORDER_T[_c >> 3, POWER[Contract.NULL][_c]] = _c

TRUMP_SUIT = TRUMP
NULL = int(Contract.NULL)
GRAND = int(Contract.GRAND)

# Auction call codes in the simulator's output (the value itself for a bid).
CALL_PASS = 0
CALL_HOLD = 1

def _declarations() -> np.ndarray:
    """Every legal declaration (R5, R6) as (contract, hand, schneider ann., schwarz ann.,
    ouvert), decided by the engine's own ``Declaration.check``; the simulator stores an index
    into this table."""
    from ..contract import Declaration

    rows = []
    for contract in Contract:
        for hand in (False, True):
            for level in range(4):  # none, schneider, schwarz, ouvert
                if contract is Contract.NULL:
                    if level in (1, 2):
                        continue
                    decl = Declaration(contract, hand=hand, ouvert=level == 3)
                else:
                    decl = Declaration.normalized(
                        contract, hand=hand, schneider_announced=level >= 1,
                        schwarz_announced=level >= 2, ouvert=level == 3)
                try:
                    decl.check(skat_taken=not decl.hand)
                except ValueError:
                    continue
                row = (int(decl.contract), decl.hand, decl.schneider_announced,
                       decl.schwarz_announced, decl.ouvert)
                if row not in rows:
                    rows.append(row)
    return np.array(rows, dtype=np.int64)


#: DECL_T[i] -> (contract, hand, schneider announced, schwarz announced, ouvert).
DECL_T = _declarations()
N_DECL = len(DECL_T)

__all__ = [
    "BASE_T", "CALL_HOLD", "CALL_PASS", "DECL_T", "EFFECTIVE_T", "FOLLOW_T", "GRAND",
    "LADDER_T", "NULL", "NULL_ORDER_T", "NULL_VALUE_T", "N_DECL", "POINTS_T", "POWER_T",
    "TRUMP_LEN_T", "TRUMP_SEQ_T", "TRUMP_SUIT",
]
