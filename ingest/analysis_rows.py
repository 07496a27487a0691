"""Rows of the ``analysis`` table: one game's result with best play, card by card.

For a played game (:class:`~skatlog.engine.GameRecord`), from the position after the skat
and discard: the declarer's card points with best play by both sides and every card known
(null: the tricks he cannot avoid), whether that wins the game as declared, and after each
card actually played whether best play from there still gives the same verdict. The first
card that changed it is the game's deciding mistake (or lucky break), with a card the same
seat could have played instead that kept the result. The solving is
:mod:`skatlog.engine.solver`'s; this module only turns its answers into columns.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyarrow as pa

from skatlog.engine import GameRecord, Play
from skatlog.engine.solver import (
    Position,
    Solver,
    default_solver,
    state_at,
    target,
    won_by_value,
)

from .schema import table_from_columns


def analyse_record(game_id: int, record: GameRecord, solver: Solver | None = None
                   ) -> dict[str, Any] | None:
    """The ``analysis`` row of one game, or None when it has no card play to analyse."""
    solver = solver or default_solver()
    try:
        state = state_at(record, 0)
    except ValueError:
        return None
    assert state.declaration is not None
    start = Position.from_state(state)
    need = target(state.declaration, state.bid, state.matadors())
    value = solver.value(start)
    won = won_by_value(need, value)  # the card-by-card searches reuse the value's table
    if won is None:  # every trick: a search of its own
        won = solver.wins(start, need)
    cards = [m for m in record.moves if isinstance(m, Play)]
    before = won
    here = start
    after: list[bool] = []
    first: dict[str, Any] = {}
    for number, move in enumerate(cards, start=1):
        if here.over:
            break
        previous = here
        here = here.play(int(move.card))
        now = solver.wins(here, need, keep=True)
        after.append(now)
        if now != before and not first:
            keep = next((c for c in previous.legal()
                         if solver.wins(previous.play(c), need, keep=True) == before), None)
            first = {"first_change_card_no": number,
                     "first_change_trick": previous.tricks_played + 1,
                     "first_change_seat": move.seat, "first_change_card": int(move.card),
                     "first_change_keep": keep}
        before = now
    changed = [a != b for a, b in zip(after, [won, *after[:-1]], strict=True)]
    return {
        "game_id": game_id,
        "dd_declarer_points": None if start.null else value,
        "dd_declarer_tricks": value if start.null else None,
        "dd_won": won, "dd_won_after": after, "changed": changed,
        **first,
    }


def analysis_table(rows: Iterable[dict[str, Any]], ingest_id: str | None = None) -> pa.Table:
    """The ``analysis`` rows as a table of the archive's schema."""
    rows = list(rows)
    names = ("game_id", "dd_declarer_points", "dd_declarer_tricks", "dd_won", "dd_won_after",
             "changed", "first_change_card_no", "first_change_trick", "first_change_seat",
             "first_change_card", "first_change_keep")
    columns: dict[str, Any] = {name: [row.get(name) for row in rows] for name in names}
    columns["ingest_id"] = [ingest_id] * len(rows)
    return table_from_columns("analysis", columns, len(rows))


__all__ = ["analyse_record", "analysis_table"]
