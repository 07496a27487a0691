"""The archive's tables: one schema for real (logged) and simulated games.

This is the only module that decides what a row looks like: its columns, types and
nullability. Log ingest (:mod:`.rows`), the compiled ISS path (:mod:`.fast.columns`) and the
batch simulator (:mod:`.sim_tables`) all build their Parquet batches against these schemas,
so queries never care where a game came from (the ``origin`` column tells them apart).

Tables (``TABLES``, the schemas of the stored partitions; ``sessions`` is a DuckDB view
derived from ``games``, see :mod:`skatlog.analytics.views`; the views add the computed
columns of :mod:`.computed`: ``games.skat_cards``, ``tricks.seat1`` .. ``seat3`` and
``tricks.points``):

``games``     one row per hand: played, passed (all passed, R4), penalty (R17) or aborted
``tricks``    one row per completed trick (a trick cut short by an early end, R17, is not one)
``auction``   one row per call (bid / hold / pass)
``rejects``   one row per distinct invalid record, with its raw text and every diagnostic
``ingests``   one row per ingest (or simulation) run
``analysis``  one row per game ``skatlog analyze`` solved with every card known

Conventions
-----------
* **Seats** are 0 Forehand, 1 Middlehand, 2 Rearhand of the hand (R1), as ``uint8``/``int8``.
* **Cards** are ``uint8`` indices 0..31 (``suit * 8 + rank``, see :class:`~skatlog.engine.Card`;
  the DuckDB views provide the macro ``card_name(c)`` that gives the ISS name, e.g. ``CJ``).
  ``deal`` is the list of all 32 cards in ISS order (Forehand's ten, Middlehand's ten,
  Rearhand's ten, the skat; in DuckDB ``deal[1:10]`` is Forehand's hand, ``deal[31:32]`` the
  skat; a simulated deal lists each part in card order, and the partitions store such a
  deal as null, see :mod:`.computed`); ``forehand_cards`` ... ``skat_cards`` (the last one
  computed) are the same cards as 32-bit masks (bit ``c`` set when card ``c`` is held) for
  fast filters such as ``bit_count(forehand_cards & 0x10101010)`` (jacks held).
* **Moves** (``games.moves``) are the complete move list, needed for lossless export, in
  skatlog's compact notation (:mod:`.moves_codec`: ``"1p 2p 018 0s 0dST.H8 0=C 0CJ ..."``).
  ``moves`` is null when the game's other rows hold every move, in order: its ``auction``
  rows, its ``games`` row (skat taken, discard, declaration) and its ``tricks`` rows.
  The simulator stores it so (a simulated hand has no move beyond those, and its text
  would otherwise be nearly half of the archive); :func:`.rebuild.moves_from_rows`
  rebuilds the list, which ``skatlog export`` and ``skatlog verify`` do. Logged games
  keep their text (a log may hold what no row does: a resignation, a time-out, the cards
  of an unfinished trick), and so does a simulated hand whose declarer named the game
  before laying the skat away (no row records that order).
* **game_id** is a signed 64-bit integer derived from the game's content (:mod:`.ids`), so
  one game ingested twice, from any file or format, gets one id and is stored once.
  Simulated hands are a pure function of (simulator, seed, bots, options, hand index), so
  their ids come from those: ``base + index`` (:func:`.sim_ids.run_ids`), consecutive
  within a run.
* Low-cardinality strings are dictionary-encoded; timestamps are UTC microseconds.

:func:`table_from_columns` builds a table of any schema straight from column arrays (numpy
arrays or lists, no dict per row), filling the nullable columns it is not given with nulls;
the row builders of :mod:`.rows` and the bulk producers use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa

#: Bumped when a column changes meaning or type; stored in every file and the manifest.
#: 3 added ``games.rules``; 4 the house options' ``kontra``, ``re``, ``bock``,
#: ``ramsch_points`` and ``ramsch_values`` (null in older partitions and from builders that
#: play none of them; the views fill ``kontra``/``re``/``bock`` with false).
SCHEMA_VERSION = 4

#: ``games.outcome`` values. ``aborted`` is reserved for hands stored without an end
#: (the engine's replay never yields one: an unfinished record is rejected as ``truncated``);
#: ``ramsch`` is an all-pass hand played as Ramsch (option ``ramsch``, R20).
OUTCOMES = ("played", "passed", "penalty", "aborted", "ramsch")
#: ``games.origin`` values.
ORIGINS = ("log", "simulated")
#: ``auction.kind`` values.
CALL_KINDS = ("bid", "hold", "pass")

_DICT = pa.dictionary(pa.int32(), pa.string())
_CARDS = pa.list_(pa.uint8())

#: The recorded result a log claims (ISS ``R[...]``, a skatlog ``result``), kept for export.
#: Its numbers are whatever the log wrote, so they get int32 (a number beyond int32 is kept
#: only in ``raw``).
RECORDED_RESULT_TYPE = pa.struct([
    ("passed", pa.bool_()),
    ("penalty", pa.bool_()),
    ("declarer", pa.int32()),
    ("won", pa.bool_()),
    ("value", pa.int32()),
    ("matadors", pa.int32()),
    ("overbid", pa.bool_()),
    ("declarer_points", pa.int32()),
    ("declarer_tricks", pa.int32()),
    ("schneider", pa.bool_()),
    ("schwarz", pa.bool_()),
    ("raw", pa.string()),
])

ERROR_TYPE = pa.struct([
    ("code", pa.string()),
    ("message", pa.string()),
    ("line", pa.int32()),
    ("move", pa.int16()),
    ("rule", pa.string()),
])


def _schema(fields: list[pa.Field], table: str) -> pa.Schema:
    return pa.schema(fields, metadata={"skatlog.table": table,
                                       "skatlog.schema_version": str(SCHEMA_VERSION)})


def _f(name: str, type_: pa.DataType, nullable: bool = True) -> pa.Field:
    return pa.field(name, type_, nullable=nullable)


GAMES_SCHEMA = _schema([
    _f("game_id", pa.int64(), False),
    _f("origin", _DICT, False),               # log / simulated
    _f("source", _DICT),                      # file the game was read from (or "simulated")
    _f("source_line", pa.int32()),            # 1-based line where the record starts
    _f("source_format", _DICT),               # iss / jsonl (null for simulated games)
    _f("record_id", pa.string()),             # ISS ID / skatlog id
    _f("session_id", pa.string()),            # ISS series SE / skatlog session
    _f("hand_no", pa.int8()),                 # 1..12 within a session when known (R2)
    _f("played_at", pa.timestamp("us", tz="UTC")),
    _f("club", _DICT),
    _f("table", _DICT),
    _f("forehand", _DICT),                    # player names by seat in this hand (R1)
    _f("middlehand", _DICT),
    _f("rearhand", _DICT),
    _f("dealer", pa.int8()),                  # dealer's seat when known (Rearhand, R1)
    _f("deal", _CARDS),                       # 32 card indices, ISS order; stored null
                                              # when each hand is in card order (computed.py)
    _f("forehand_cards", pa.uint32(), False), # the same deal as 32-bit masks (the view
                                              # adds skat_cards, see computed.py)
    _f("middlehand_cards", pa.uint32(), False),
    _f("rearhand_cards", pa.uint32(), False),
    _f("passed", pa.bool_(), False),
    _f("outcome", _DICT, False),              # played / passed / penalty / aborted
    _f("ending", _DICT),                      # engine Ending value (ten_tricks, null_trick, ...)
    _f("declarer", pa.int8()),                # seat, null when nobody declared
    _f("declarer_name", _DICT),
    _f("contract", _DICT),                    # diamonds hearts spades clubs grand null
    _f("hand", pa.bool_()),
    _f("schneider_announced", pa.bool_()),
    _f("schwarz_announced", pa.bool_()),
    _f("ouvert", pa.bool_()),
    _f("skat_taken", pa.bool_()),
    _f("discard", _CARDS),                    # the two cards laid away, null for hand games
    _f("bid", pa.int16(), False),             # the auction's final bid, 0 when all passed
    _f("matadors", pa.int8()),                # signed: + with, - without (R12); 0 in null
    _f("declarer_points", pa.int16()),        # incl. the skat (R10) and credited cards (R17)
    _f("defender_points", pa.int16()),
    _f("declarer_tricks", pa.int8()),
    _f("defender_tricks", pa.int8()),
    _f("schneider", pa.bool_()),              # reached by either party (R11)
    _f("schwarz", pa.bool_()),
    _f("won", pa.bool_()),
    _f("overbid", pa.bool_()),                # R15 / R7
    _f("game_value", pa.int16()),             # unsigned value (the overbid value when overbid)
    _f("multiplier", pa.int8()),
    _f("value", pa.int16(), False),           # signed ISkO list value (R14-R16); 0 if no game
    _f("recorded_value", pa.int32()),         # the value the log claims, when it claims one
    _f("value_check", _DICT, False),          # ok / iss_convention / score_mismatch / not_recorded
    _f("recorded_result", RECORDED_RESULT_TYPE),
    _f("warnings", pa.list_(pa.string())),    # warning codes from validation (e.g. R18 bids)
    _f("moves", pa.string()),                 # full move list, compact notation (module doc);
                                              # null when the rows rebuild it (rebuild.py)
    _f("rules", _DICT),                       # the rule set, NAME[+OPTION]: isko, isko+iss;
                                              # null in partitions before schema 3 (the
                                              # views fill it from recorded_rules)
    _f("recorded_rules", pa.bool_(), False),  # replayed under the recorded-log rules (R17, R7)
    _f("extra_bids", pa.list_(pa.int16())),   # off-ladder bids admitted in the replay (R18)
    _f("kontra", pa.bool_()),                 # a defender said Kontra (R19); views: false
    _f("re", pa.bool_()),                     # the declarer said Re (R19); views: false
    _f("bock", pa.bool_()),                   # a hand of a Bock round (R21); views: false
    _f("ramsch_points", pa.list_(pa.int16())),  # Ramsch (R20): card points by seat
    _f("ramsch_values", pa.list_(pa.int16())),  # Ramsch (R20): list values by seat
    _f("extra", pa.string()),                 # reader-specific fields as JSON, for export
    _f("seed", pa.int64()),                   # simulated games: the seed
    _f("bots", _DICT),                        # simulated games: bot names, comma-separated
    _f("ingest_id", _DICT),
], "games")

TRICKS_SCHEMA = _schema([
    _f("game_id", pa.int64(), False),
    _f("trick_no", pa.uint8(), False),        # 1..10
    _f("leader", pa.uint8(), False),          # seat that led (R8)
    _f("card1", pa.uint8(), False),           # cards in play order (indices, see card_name)
    _f("card2", pa.uint8(), False),
    _f("card3", pa.uint8(), False),           # (the view adds seat1..seat3, computed.py)
    _f("winner", pa.uint8(), False),          # seat that took the trick
                                              # (the view adds points, computed.py)
], "tricks")

AUCTION_SCHEMA = _schema([
    _f("game_id", pa.int64(), False),
    _f("call_no", pa.uint8(), False),         # 1-based order of the call
    _f("seat", pa.uint8(), False),
    _f("kind", _DICT, False),                 # bid / hold / pass
    _f("value", pa.int16()),                  # the bid named or held; null for pass
], "auction")

REJECTS_SCHEMA = _schema([
    _f("reject_id", pa.int64(), False),       # from the raw text: one row per distinct record
    _f("source", _DICT),
    _f("line", pa.int32()),
    _f("source_format", _DICT),
    _f("record_id", pa.string()),
    _f("code", _DICT, False),                 # the first error's code (ERROR_CODES)
    _f("message", pa.string(), False),
    _f("move", pa.int16()),                   # move number, the deal being move 0
    _f("rule", pa.string()),
    _f("errors", pa.list_(ERROR_TYPE)),       # every diagnostic
    _f("raw", pa.string(), False),
    _f("ingest_id", _DICT),
], "rejects")

INGESTS_SCHEMA = _schema([
    _f("ingest_id", pa.string(), False),
    _f("kind", pa.string(), False),           # ingest / simulate / append
    _f("started_at", pa.timestamp("us", tz="UTC"), False),
    _f("finished_at", pa.timestamp("us", tz="UTC"), False),
    _f("seconds", pa.float64(), False),
    _f("format", pa.string()),
    _f("files", pa.list_(pa.struct([("path", pa.string()), ("sha256", pa.string()),
                                    ("bytes", pa.int64())]))),
    _f("seen", pa.int64(), False),
    _f("stored", pa.int64(), False),
    _f("duplicates", pa.int64(), False),
    _f("rejected", pa.int64(), False),
    _f("rejects_stored", pa.int64(), False),
    _f("rejected_by_code", pa.list_(pa.struct([("code", pa.string()), ("count", pa.int64())]))),
    _f("skatlog_version", pa.string(), False),
    _f("schema_version", pa.int16(), False),
], "ingests")

#: ``skatlog analyze``: best play with every card known, one row per analysed game (see
#: skatlog.analytics.analysis and the column docs).
ANALYSIS_SCHEMA = _schema([
    _f("game_id", pa.int64(), False),
    _f("dd_declarer_points", pa.int16()),     # suit/grand: card points with best play
    _f("dd_declarer_tricks", pa.int8()),      # null: the tricks the declarer cannot avoid
    _f("dd_won", pa.bool_(), False),          # best play wins the game as declared
    _f("dd_won_after", pa.list_(pa.bool_())),  # the same after each card played
    _f("changed", pa.list_(pa.bool_())),      # that card changed it
    _f("first_change_card_no", pa.int16()),   # 1-based card of the play; null: none
    _f("first_change_trick", pa.int8()),
    _f("first_change_seat", pa.int8()),
    _f("first_change_card", pa.uint8()),
    _f("first_change_keep", pa.uint8()),      # a card that would have kept the result
    _f("ingest_id", _DICT),
], "analysis")

#: Stored tables and their schemas, in commit order.
TABLES: dict[str, pa.Schema] = {
    "games": GAMES_SCHEMA,
    "tricks": TRICKS_SCHEMA,
    "auction": AUCTION_SCHEMA,
    "rejects": REJECTS_SCHEMA,
    "ingests": INGESTS_SCHEMA,
    "analysis": ANALYSIS_SCHEMA,
}


class SchemaError(ValueError):
    """Columns that do not fit a table's schema."""


# ------------------------------------------------------------------ columnar building
def table_from_columns(table: str, columns: Mapping[str, Any], num_rows: int | None = None
                       ) -> pa.Table:
    """Build a ``table`` batch from column arrays (numpy arrays, lists or pyarrow arrays).

    Missing nullable columns are filled with nulls; a missing non-nullable column, an
    unknown column or a length mismatch raises :class:`SchemaError`. This is the fast path
    for bulk producers: one conversion per column, never a dict per row.
    """
    schema = TABLES.get(table)
    if schema is None:
        raise SchemaError(f"unknown table {table!r}: one of {', '.join(TABLES)}")
    unknown = set(columns) - set(schema.names)
    if unknown:
        raise SchemaError(f"{table}: unknown columns {', '.join(sorted(unknown))}")
    if num_rows is None:
        if not columns:
            raise SchemaError(f"{table}: no columns and no row count")
        num_rows = len(next(iter(columns.values())))
    arrays = []
    for field in schema:
        values = columns.get(field.name)
        if values is None:
            if not field.nullable:
                raise SchemaError(f"{table}: column {field.name!r} is required")
            arrays.append(pa.nulls(num_rows, field.type))
            continue
        if len(values) != num_rows:
            raise SchemaError(f"{table}.{field.name}: {len(values)} values for {num_rows} rows")
        arrays.append(_to_arrow(values, field))
    return pa.Table.from_arrays(arrays, schema=schema)


def _to_arrow(values: Any, field: pa.Field) -> pa.Array:
    try:
        if isinstance(values, (pa.Array, pa.ChunkedArray)):
            arr = values
        elif pa.types.is_dictionary(field.type):
            arr = pa.array(values, type=pa.string())
        elif isinstance(values, np.ndarray) and values.ndim == 2:  # fixed-width card lists
            flat = pa.array(values.reshape(-1), type=field.type.value_type)
            offsets = pa.array(np.arange(0, values.size + 1, values.shape[1], dtype=np.int32))
            arr = pa.ListArray.from_arrays(offsets, flat)
        else:
            arr = pa.array(values, type=field.type)
        if arr.type != field.type:
            arr = arr.cast(field.type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError) as err:
        raise SchemaError(f"column {field.name!r}: {err}") from err
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not field.nullable and arr.null_count:
        raise SchemaError(f"column {field.name!r} may not hold nulls")
    return arr


def empty_table(table: str) -> pa.Table:
    """A zero-row table with ``table``'s schema."""
    return TABLES[table].empty_table()
