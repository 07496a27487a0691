"""A stored ``games`` row back to the game it was made from (for export).

:func:`log_game_from_row` replays the row's moves (its compact text, :mod:`.moves_codec`, or
the list its ``tricks`` and ``auction`` rows rebuild, :mod:`.rebuild`) through the engine's
validated path and restores the meta data, recorded result and reader fields, so a row
that does not replay raises the engine's typed error instead of exporting a wrong game.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from skatlog.engine import ISKO, ISKO_ISS, Deal, Rules, replay

from .model import RAMSCH_EXTRA, GameMeta, LogGame, RecordedResult
from .moves_codec import decode_moves
from .rebuild import moves_from_rows

#: The ``games`` columns :func:`log_game_from_row` reads.
EXPORT_COLUMNS = (
    "game_id", "deal", "moves", "declarer", "skat_taken", "discard", "contract", "hand",
    "schneider_announced", "schwarz_announced", "ouvert", "rules", "recorded_rules",
    "extra_bids", "bock",
    "played_at", "forehand", "middlehand", "rearhand", "record_id", "session_id", "hand_no",
    "club", "table", "dealer",
    "recorded_result", "extra", "source", "source_line", "source_format", "value_check",
    "origin", "seed", "bots",
)


def rules_of_row(row: Mapping[str, Any]) -> Rules:
    """The rule set a ``games`` row was replayed under: its ``rules`` column, or for a row of
    a partition before schema version 3 (no such column) what ``recorded_rules`` says."""
    text = row.get("rules")
    if text:
        return Rules.parse(text)
    return ISKO_ISS if row.get("recorded_rules") else ISKO


def log_game_from_row(row: Mapping[str, Any]) -> LogGame:
    """Rebuild the :class:`LogGame` a ``games`` row was made from (for export).

    The moves are replayed through the engine's validated path, so a row that does not
    replay raises the engine's typed error instead of exporting a wrong game. A row
    stored without ``moves`` needs its ``tricks`` and ``calls`` lists in ``row`` (see
    :mod:`.rebuild`).
    """
    deal = Deal.from_cards(row["deal"])
    if row["moves"] is None:  # rebuilt from the rows: ``tricks``/``calls`` are the lists
        moves = moves_from_rows(row, row.get("tricks"), row.get("calls"))  # child_rows_sql
    else:
        moves = decode_moves(row["moves"])
    record = replay(deal, moves, rules=rules_of_row(row), bock=bool(row.get("bock")))
    played_at = row.get("played_at")
    meta = GameMeta(
        players=(row.get("forehand") or "", row.get("middlehand") or "",
                 row.get("rearhand") or ""),
        played_at=played_at,
        record_id=row.get("record_id") or "",
        session_id=row.get("session_id") or "",
        hand_no=row.get("hand_no"),
        club=row.get("club") or "",
        table=row.get("table") or "",
        dealer=row.get("dealer"),
    )
    rec = row.get("recorded_result")
    extra = json.loads(row["extra"]) if row.get("extra") else {}
    recorded = RecordedResult(**rec) if rec is not None else None
    ramsch = extra.get(RAMSCH_EXTRA)
    if recorded is not None and isinstance(ramsch, dict):  # R20: kept beside the struct
        scores, points = ramsch.get("scores"), ramsch.get("points")
        recorded = replace(recorded, scores=tuple(scores) if scores else None,
                           points=tuple(points) if points else None)
    return LogGame(
        source=row.get("source") or "",
        line=row.get("source_line") or 0,
        raw="",
        format=row.get("source_format") or "",
        meta=meta,
        record=record,
        recorded=recorded,
        value_check=row.get("value_check") or "not_recorded",
        extra=extra,
    )
