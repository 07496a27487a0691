"""The records the compiled kernel settles itself: a revoke, a card not held, a ``??`` card,
and a game whose recorded result differs from the replay.

The kernel marks a record ``F_DECIDED`` when its rule error in the card play is sure to be
the reference validator's verdict (:func:`.iss_kernel._decided`). Such a record skips the
slow path's reading and replay (0.2-0.3 ms a record); its :class:`~..model.LogGame` is built
here from the same pieces the reference uses: the reader's tag parser, metadata and result
reader (:mod:`..iss`), the engine's error constructors (:func:`skatlog.engine.game.revoke`,
:func:`~skatlog.engine.game.card_not_held`) and the validator's wording of a move's error
(:func:`..validate.move_error`). No message or rule is written here. A record these pieces
read differently from the kernel (a warning, a tag the kernel did not see, an unreadable
result) is returned as undecided, and the slow path reads it whole.

A played game the kernel replayed legally to its end, but whose ``R[...]`` disagrees with
the replay (status ``RESULT_DIFFERS``), is judged by :func:`differing_game`: the game record
is rebuilt from the kernel's deal, move text (:mod:`..moves_codec`) and counts, scored by
the engine (:func:`skatlog.engine.game.played_result`), and its value checked by the
validator's :func:`..validate.finished_game`, without reading and replaying the record again
(about 0.2 ms a record). Only a ``score_mismatch`` reject is settled so; a difference the
rules explain (``iss_convention``) is a valid game and goes the slow way.
"""

from __future__ import annotations

import numpy as np

from skatlog.engine import core
from skatlog.engine.cards import Card
from skatlog.engine.deal import Deal
from skatlog.engine.errors import RuleError
from skatlog.engine.game import Ending, card_not_held, played_result, revoke
from skatlog.engine.moves import Declare, Play
from skatlog.engine.record import GameRecord
from skatlog.engine.rules import Rules

from ..iss import PLAYED_CARD, parse_properties, parse_result, read_card, read_meta
from ..model import LogGame, LogSyntaxError, ParsedGame
from ..moves_codec import decode_moves
from ..validate import finished_game, move_error
from . import iss_kernel as K

#: The kernel's ending codes, in the order of :class:`~skatlog.engine.game.Ending`.
_ENDINGS = tuple(Ending)


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


def differing_game(text: str, source: str, line: int, rules: Rules, row: np.ndarray,
                   deal: np.ndarray, moves_text: str) -> LogGame | None:
    """The reference validator's verdict on the played record ``text`` (stripped, at file
    line ``line``) that the kernel replayed to its end (``row``, its ``deal`` cards and its
    move text) with a result that differs from the recorded one; None unless that verdict
    is a ``score_mismatch`` reject built from the same pieces (see the module docstring)."""
    if rules.kontra_re or rules.ramsch or rules.bock or rules.foster:
        return None  # (the kernel replays none of these; said here for the result's sake)
    parsed = ParsedGame(source=source, line=line, raw=text, format="iss", rules=rules)
    try:
        props, cut = parse_properties(text)
        if cut is not None or "MV" not in props or "RU" in props or "R" not in props:
            return None
        parsed.meta, parsed.extra["tags"] = read_meta(props, parsed)
        parsed.recorded = parse_result(props["R"])
    except LogSyntaxError:
        return None
    if parsed.warnings:
        return None
    moves = decode_moves(moves_text)
    declaration = next((m.declaration for m in reversed(moves) if type(m) is Declare), None)
    if declaration is None or int(declaration.contract) != int(row[K.F_CONTRACT]):
        return None
    result = played_result(
        declaration, int(row[K.F_DECLARER]), int(row[K.F_BID]), _ENDINGS[int(row[K.F_ENDING])],
        int(row[K.F_MATADORS]), int(row[K.F_DPOINTS]), int(row[K.F_DEFPOINTS]),
        int(row[K.F_DTRICKS]), int(row[K.F_DEFTRICKS]))
    parsed.last_move = int(row[K.F_NMOVES])
    record = GameRecord(Deal.from_cards(deal.tolist()), moves, result, rules)
    game = finished_game(parsed, record)
    return game if game.value_check == "score_mismatch" else None


def differing_rows(rows: np.ndarray) -> np.ndarray:
    """Indices of the rows of played games whose recorded result differs from the replay."""
    mask = (rows[:, K.F_STATUS] == K.RESULT_DIFFERS) & (rows[:, K.F_OUTCOME] == K.OUT_PLAYED)
    return np.flatnonzero(mask)
