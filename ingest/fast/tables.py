"""ISS notation as numpy tables, for the compiled ISS kernel.

These tables hold no rule: they map the bytes of ISS notation to skatlog's card and contract
integers and back. The rules the kernel replays by are the rules core's
(:mod:`skatlog.engine.core`), which the kernel calls directly.
"""

from __future__ import annotations

import numpy as np

from skatlog.engine.cards import Card
from skatlog.engine.contract import Contract

#: CARD_CODE_A[suit byte, rank byte] -> card index, -1 if not a card (ISS notation ``ST``).
CARD_CODE_A = np.full((256, 256), -1, dtype=np.int64)
for _card in Card:
    CARD_CODE_A[ord(_card.name[0]), ord(_card.name[1])] = int(_card)
#: CONTRACT_CODE_A[letter byte] -> contract index, -1 otherwise (``D H S C G N``).
CONTRACT_CODE_A = np.full(256, -1, dtype=np.int64)
for _contract in Contract:
    CONTRACT_CODE_A[ord(_contract.letter)] = int(_contract)
#: CARD_NAME_A[card] -> the two ISS bytes of its name (``S``, ``T`` for ST).
CARD_NAME_A = np.array([[ord(c.name[0]), ord(c.name[1])] for c in Card], dtype=np.uint8)
#: CONTRACT_LETTER_A[contract] -> its ISS letter byte.
CONTRACT_LETTER_A = np.array([ord(c.letter) for c in Contract], dtype=np.uint8)


def rule_tables() -> tuple[np.ndarray, ...]:
    """The notation tables in the order the kernel takes them."""
    return CARD_CODE_A, CONTRACT_CODE_A, CARD_NAME_A, CONTRACT_LETTER_A
