"""The engine's rule tables as numpy arrays, for the compiled ISS kernel.

Nothing here states a rule: every array is copied from the engine's own tables (R1, R3, R5,
R8, R12), so the kernel applies exactly the rules the engine applies. The differential test
(``tests/test_fast_iss.py``) and ``bench/ingest.py`` check the two agree game by game.
"""

from __future__ import annotations

import numpy as np

from skatlog.engine.auction import BID_LADDER, ISS_EXTRA_BIDS
from skatlog.engine.cards import CARD_POINTS, Card
from skatlog.engine.contract import BASE_VALUES, Contract, null_value
from skatlog.engine.tricks import EFFECTIVE, FOLLOW_MASK, POWER, TRUMP, trump_sequence

#: CARD_POINTS[card] (R1).
CARD_POINTS_A = np.array(CARD_POINTS, dtype=np.int64)
#: EFFECTIVE_A[contract, card] -> effective suit 0..4, 4 = trumps (R8).
EFFECTIVE_A = np.array(EFFECTIVE, dtype=np.int64)
#: POWER_A[contract, card] -> strength within the effective suit (R8).
POWER_A = np.array(POWER, dtype=np.int64)
#: FOLLOW_A[contract, effective suit] -> 32-bit mask of the cards of that suit (R8).
FOLLOW_A = np.array(FOLLOW_MASK, dtype=np.int64)
#: TRUMP_SEQ_A[contract, i] -> i-th highest trump, -1 past the end (R12 matadors).
TRUMP_SEQ_A = np.full((len(Contract), 11), -1, dtype=np.int64)
for _contract in Contract:
    for _i, _card in enumerate(trump_sequence(_contract)):
        TRUMP_SEQ_A[_contract, _i] = int(_card)
#: LEGAL_BID_A[value] -> 1 for a ladder value (R3), 2 for ISS's off-ladder values (R18).
LEGAL_BID_A = np.zeros(BID_LADDER[-1] + max(ISS_EXTRA_BIDS) + 1, dtype=np.int64)
for _v in BID_LADDER:
    LEGAL_BID_A[_v] = 1
for _v in ISS_EXTRA_BIDS:
    LEGAL_BID_A[_v] = 2
#: BASE_A[contract] -> base value of suit/grand (R5); index 5 (null) is the plain null 23.
BASE_A = np.array(BASE_VALUES, dtype=np.int64)
#: NULL_VALUE_A[hand, ouvert] -> fixed null value (R5).
NULL_VALUE_A = np.array(
    [[null_value(bool(h), bool(o)) for o in (0, 1)] for h in (0, 1)], dtype=np.int64
)
#: CARD_CODE_A[suit byte, rank byte] -> card index, -1 if not a card (ISS notation ``ST``).
CARD_CODE_A = np.full((256, 256), -1, dtype=np.int64)
for _card in Card:
    CARD_CODE_A[ord(_card.name[0]), ord(_card.name[1])] = int(_card)
#: CONTRACT_CODE_A[letter byte] -> contract index, -1 otherwise (``D H S C G N``).
CONTRACT_CODE_A = np.full(256, -1, dtype=np.int64)
for _contract in Contract:
    CONTRACT_CODE_A[ord(_contract.letter)] = int(_contract)
TRUMP_SUIT = TRUMP
NULL = int(Contract.NULL)
GRAND = int(Contract.GRAND)


#: CARD_NAME_A[card] -> the two ISS bytes of its name (``S``, ``T`` for ST).
CARD_NAME_A = np.array([[ord(c.name[0]), ord(c.name[1])] for c in Card], dtype=np.uint8)
#: CONTRACT_LETTER_A[contract] -> its ISS letter byte.
CONTRACT_LETTER_A = np.array([ord(c.letter) for c in Contract], dtype=np.uint8)


def rule_tables() -> tuple[np.ndarray, ...]:
    """The tables in the order the kernel takes them."""
    return (
        CARD_POINTS_A, EFFECTIVE_A, POWER_A, FOLLOW_A, TRUMP_SEQ_A, LEGAL_BID_A, BASE_A,
        NULL_VALUE_A, CARD_CODE_A, CONTRACT_CODE_A, CARD_NAME_A, CONTRACT_LETTER_A,
    )
