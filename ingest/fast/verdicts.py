"""The rejects the compiled kernel settles itself: a revoke, a card not held, a ``??`` card.

The kernel marks a record ``F_DECIDED`` when its rule error in the card play is sure to be
the reference validator's verdict (:func:`.iss_kernel._decided`). Such a record skips the
slow path's reading and replay (0.2-0.3 ms a record); its :class:`~..model.LogGame` is built
here from the same pieces the reference uses: the reader's tag parser, metadata and result
reader (:mod:`..iss`), the engine's error constructors (:func:`skatlog.engine.game.revoke`,
:func:`~skatlog.engine.game.card_not_held`) and the validator's wording of a move's error
(:func:`..validate.move_error`). No message or rule is written here. A record these pieces
read differently from the kernel (a warning, a tag the kernel did not see, an unreadable
result) is returned as undecided, and the slow path reads it whole.
"""

from __future__ import annotations

import numpy as np

from skatlog.engine import core
from skatlog.engine.cards import Card
from skatlog.engine.errors import RuleError
from skatlog.engine.game import card_not_held, revoke
from skatlog.engine.moves import Play
from skatlog.engine.rules import Rules

from ..iss import PLAYED_CARD, parse_properties, parse_result, read_card, read_meta
from ..model import LogGame, LogSyntaxError, ParsedGame
from ..validate import move_error
from . import iss_kernel as K


def decided_game(text: str, source: str, line: int, rules: Rules, row: np.ndarray
                 ) -> LogGame | None:
    """The reference validator's verdict on the record ``text`` (stripped, at file line
    ``line``) whose kernel ``row`` is settled; None when it must be read the slow way."""
    parsed = ParsedGame(source=source, line=line, raw=text, format="iss", rules=rules)
    try:
        props, cut = parse_properties(text)
        if cut is not None or "MV" not in props or "RU" in props:
            return None
        parsed.meta, parsed.extra["tags"] = read_meta(props, parsed)
        status, number = int(row[K.F_STATUS]), int(row[K.F_ERR_MOVE])
        # the reader stops at a ?? card, before it reads the result
        recorded = parse_result(props["R"]) if "R" in props and status != K.CORRUPT_CARD \
            else None
    except LogSyntaxError:
        return None
    if parsed.warnings:
        return None
    if status == K.CORRUPT_CARD:
        try:
            read_card("??", number, PLAYED_CARD)
            return None  # (never: the unknown card is no card)
        except LogSyntaxError as err:
            error = err.as_error(line)
    else:
        move = Play(int(row[K.F_ERR_SEAT]), Card(int(row[K.F_ERR_CARD])))
        rule_error: RuleError
        if status == K.CARD_NOT_IN_HAND:
            rule_error = card_not_held(move)
        else:
            hand = int(row[K.F_ERR_HAND_LO]) | int(row[K.F_ERR_HAND_HI]) << 16
            contract, led = int(row[K.F_ERR_CONTRACT]), int(row[K.F_ERR_LED])
            legal = int(core.legal_cards(hand, core.follow_mask(contract, led)))
            rule_error = revoke(move, contract, led, legal, False)  # a declared game
        error = move_error(rule_error, move, number, parsed)
    return LogGame(source=source, line=line, raw=text, format="iss", meta=parsed.meta,
                   record=None, recorded=recorded, errors=(error,), warnings=(),
                   value_check="not_recorded", extra=parsed.extra)


def settled_rows(rows: np.ndarray) -> np.ndarray:
    """Indices of the rows the kernel settled (``F_DECIDED`` with a settled status)."""
    mask = (rows[:, K.F_DECIDED] == 1) & np.isin(rows[:, K.F_STATUS], K.DECIDED_STATUSES)
    return np.flatnonzero(mask)
