"""A game's move list rebuilt from its archive rows, for games stored without ``moves``.

A simulated hand has no move the archive's tables do not already hold: the ``auction``
rows are its calls in order, the ``games`` row says whether the declarer took the skat,
what was laid away and what was declared, and the ``tricks`` rows are its cards in play
order with their seats. Storing its move list as text as well would repeat all of that and
make up nearly half of the archive, so the simulator leaves ``games.moves`` null and
:func:`moves_from_rows` rebuilds the list when it is needed (export, ``skatlog verify``).
Logged games keep their ``moves``: a log can hold what the tables cannot (a resignation, a
time-out, the cards of an unfinished trick, R17).

Trick and call rows come as the int lists DuckDB's ``list([...])`` gives
(:data:`TRICK_FIELDS`, :data:`CALL_FIELDS`); :func:`child_rows_sql` is that query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skatlog.engine import Card, Contract, Declaration
from skatlog.engine.moves import Bid, Declare, Discard, Hold, Pass, PickUp, Play

#: Fields of one trick row, in the order of a trick list.
TRICK_FIELDS = ("trick_no", "leader", "card1", "card2", "card3", "seat1", "seat2", "seat3",
                "winner", "points")
#: Fields of one call row, in the order of a call list; ``kind`` is an index into
#: :data:`~.schema.CALL_KINDS` (0 bid, 1 hold, 2 pass) and ``value`` -1 for a pass.
CALL_FIELDS = ("call_no", "seat", "kind", "value")
#: The ``games`` columns :func:`moves_from_rows` reads.
REBUILD_COLUMNS = ("declarer", "skat_taken", "discard", "contract", "hand",
                   "schneider_announced", "schwarz_announced", "ouvert")

_CARDS = tuple(Card(k) for k in range(32))


class RebuildError(ValueError):
    """The rows do not make a move list (a call of unknown kind, a declarer without a
    contract)."""


def moves_from_rows(game: Mapping[str, Any], tricks: Sequence[Sequence[int]] | None,
                    calls: Sequence[Sequence[int]] | None) -> tuple[Any, ...]:
    """The moves of a game stored without a move list: its calls, then (when somebody
    declared) the skat pickup, the discard and the declaration, then every trick's cards.

    ``game`` maps :data:`REBUILD_COLUMNS` to the row's values. The result is what the
    engine played when the rows came from the engine; :func:`skatlog.engine.replay` checks
    it like any other move list.
    """
    moves: list[Any] = []
    for call in calls or ():
        _, seat, kind, value = call[:4]
        if kind == 0:
            moves.append(Bid(seat, value))
        elif kind == 1:
            moves.append(Hold(seat))
        elif kind == 2:
            moves.append(Pass(seat))
        else:
            raise RebuildError(f"call {call[0]}: unknown call kind {kind}")
    declarer = game["declarer"]
    if declarer is not None:
        try:
            contract = Contract.from_label(game["contract"])
        except (KeyError, AttributeError):  # unknown label, or none
            raise RebuildError(f"declarer {declarer} without a contract "
                               f"({game['contract']!r})") from None
        if game["skat_taken"]:
            discard: Sequence[int] = game["discard"] or ()
            if len(discard) != 2:
                raise RebuildError(f"skat taken but {len(discard)} cards laid away")
            moves.append(PickUp(declarer))
            moves.append(Discard(declarer, (_CARDS[discard[0]], _CARDS[discard[1]])))
        moves.append(Declare(declarer, Declaration(
            contract, hand=bool(game["hand"]),
            schneider_announced=bool(game["schneider_announced"]),
            schwarz_announced=bool(game["schwarz_announced"]), ouvert=bool(game["ouvert"]))))
    for trick in tricks or ():
        moves.append(Play(trick[5], _CARDS[trick[2]]))
        moves.append(Play(trick[6], _CARDS[trick[3]]))
        moves.append(Play(trick[7], _CARDS[trick[4]]))
    return tuple(moves)


def child_rows_sql(tricks_source: str | None, auction_source: str | None, where: str = ""
                   ) -> tuple[str, str]:
    """``(tricks_sql, calls_sql)``: subqueries giving ``game_id`` with the game's trick
    rows (``tricks``) or call rows (``calls``) as ordered int lists, from the given
    ``read_parquet(...)`` sources (a NULL list column when a source is None).
    ``where`` (e.g. `` WHERE game_id BETWEEN 1 AND 9``) filters both."""
    fields = ", ".join(f"{f}::INTEGER" for f in TRICK_FIELDS)
    # without a source: no rows, but the same columns and the same ``where`` (parameters)
    tricks = ("SELECT * FROM (SELECT NULL::BIGINT AS game_id, NULL::INTEGER[][] AS tricks "
              f"WHERE false){where}"
              if tricks_source is None else
              f"SELECT game_id, list([{fields}] ORDER BY trick_no) AS tricks "
              f"FROM {tricks_source}{where} GROUP BY game_id")
    calls = ("SELECT * FROM (SELECT NULL::BIGINT AS game_id, NULL::INTEGER[][] AS calls "
             f"WHERE false){where}"
             if auction_source is None else
             "SELECT game_id, list([call_no::INTEGER, seat::INTEGER, "
             "CASE kind WHEN 'bid' THEN 0 WHEN 'hold' THEN 1 ELSE 2 END, "
             "coalesce(value::INTEGER, -1)] ORDER BY call_no) AS calls "
             f"FROM {auction_source}{where} GROUP BY game_id")
    return tricks, calls
