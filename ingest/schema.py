"""The archive's tables: one schema for real (logged) and simulated games, and row builders.

This is the only module that decides what a row looks like. Log ingest and the batch
simulator both build their Parquet batches here, so queries never care where a game came
from (the ``origin`` column tells them apart).

Tables (``TABLES``, the schemas of the stored partitions; ``sessions`` is a DuckDB view
derived from ``games``, see :mod:`skatlog.analytics.views`; the views add the computed
columns of :mod:`.computed`: ``games.skat_cards``, ``tricks.seat1`` .. ``seat3`` and
``tricks.points``):

``games``     one row per hand: played, passed (all passed, R4), penalty (R17) or aborted
``tricks``    one row per completed trick (a trick cut short by an early end, R17, is not one)
``auction``   one row per call (bid / hold / pass)
``rejects``   one row per distinct invalid record, with its raw text and every diagnostic
``ingests``   one row per ingest (or simulation) run

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
  skatlog's compact notation: tokens separated by one space, each token the seat digit
  followed by the action ::

      <seat><digits>   bid            "118"   Middlehand bids 18
      <seat>y          hold           "0y"
      <seat>p          pass           "2p"
      <seat>s          pick up skat   "0s"
      <seat>d<c>.<c>   discard        "0dST.H8"
      <seat>=<decl>    declare (ISS)  "0=CHS", "1=G", "2=NO"
      <seat><card>     play           "0CJ"
      <seat>RE / SC    resign / show cards (R17)
      <seat>TI / LE    time-out / left the table (R17)

  :func:`encode_moves` and :func:`decode_moves` convert; they round-trip exactly.
  ``moves`` is null when the game's other rows hold every move, in order: its ``auction``
  rows, its ``games`` row (skat taken, discard, declaration) and its ``tricks`` rows.
  The simulator stores it so (a simulated hand has no move beyond those, and its text
  would otherwise be nearly half of the archive); :func:`.rebuild.moves_from_rows`
  rebuilds the list, which ``skatlog export`` and ``skatlog verify`` do. Logged games
  keep their text (a log may hold what no row does: a resignation, a time-out, the cards
  of an unfinished trick), and so does a simulated hand whose declarer named the game
  before laying the skat away (no row records that order).
* **game_id** is a signed 64-bit integer derived from the game's content
  (:func:`game_id_of`: deal, moves, players, time, record id, session id, seed), so one
  game ingested twice, from any file or format, gets one id and is stored once. Simulated
  hands are a pure function of (simulator, seed, bots, options, hand index), so their
  ids come from those: ``base + index`` (see :func:`.sim_ids.run_ids`),
  consecutive within a run.
* Low-cardinality strings are dictionary-encoded; timestamps are UTC microseconds.

Builders
--------
:class:`GameRowsBuilder` turns :class:`~skatlog.ingest.model.LogGame` values
(:meth:`~GameRowsBuilder.add_log_game`) or engine :class:`~skatlog.engine.GameRecord` values
(:meth:`~GameRowsBuilder.add_simulated` with a :class:`SimulatedMeta`: seed, bots, players,
session) into the ``games``/``tricks``/``auction`` tables (:meth:`~GameRowsBuilder.tables`);
:class:`RejectRowsBuilder` makes ``rejects``; :func:`ingest_table` makes the one ``ingests``
row. For bulk producers (the simulator, the compiled ISS path) :func:`table_from_columns`
builds a table of any schema straight from column arrays (numpy arrays or lists, no dict per
row), filling the nullable columns it is not given with nulls; :func:`trick_winners` is the
vectorised R8 trick rule. Append the tables with
:func:`skatlog.ingest.pipeline.append_batches` (atomic, deduplicated by ``game_id``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from hashlib import blake2b
from typing import Any

import numpy as np
import pyarrow as pa

from skatlog.engine import (
    CARD_POINTS,
    Bid,
    Card,
    Contract,
    Declaration,
    Declare,
    Discard,
    GameRecord,
    Hold,
    Leave,
    Move,
    Pass,
    PickUp,
    Play,
    Resign,
    ShowCards,
    TimeOut,
)
from skatlog.engine.tricks import EFFECTIVE, POWER, TRUMP

from .model import GameError, GameMeta, LogGame, RecordedResult

#: Bumped when a column changes meaning or type; stored in every file and the manifest.
SCHEMA_VERSION = 2

#: ``games.outcome`` values. ``aborted`` is reserved for hands stored without an end
#: (the engine's replay never yields one: an unfinished record is rejected as ``truncated``).
OUTCOMES = ("played", "passed", "penalty", "aborted")
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
    _f("recorded_rules", pa.bool_(), False),  # replayed under the recorded-log rules (R17, R7)
    _f("extra_bids", pa.list_(pa.int16())),   # off-ladder bids admitted in the replay (R18)
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

#: Stored tables and their schemas, in commit order.
TABLES: dict[str, pa.Schema] = {
    "games": GAMES_SCHEMA,
    "tricks": TRICKS_SCHEMA,
    "auction": AUCTION_SCHEMA,
    "rejects": REJECTS_SCHEMA,
    "ingests": INGESTS_SCHEMA,
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


# ------------------------------------------------------------------ moves notation
_SimpleMove = type[Hold] | type[Pass] | type[PickUp] | type[Resign] | type[ShowCards] | \
    type[TimeOut] | type[Leave]
_SIMPLE: dict[_SimpleMove, str] = {
    Hold: "y", Pass: "p", PickUp: "s", Resign: "RE", ShowCards: "SC", TimeOut: "TI", Leave: "LE",
}
_SIMPLE_BACK: dict[str, _SimpleMove] = {code: kind for kind, code in _SIMPLE.items()}
_CARD_NAMES = tuple(c.name for c in Card)


class MovesError(ValueError):
    """Text that is not a move list in skatlog's compact notation."""


def encode_move(move: Move) -> str:
    """One move as a token of the compact notation (module docstring)."""
    kind = type(move)
    seat = str(move.seat)
    if kind is Play:
        return seat + _CARD_NAMES[move.card]  # type: ignore[union-attr]
    if kind is Bid:
        return seat + str(move.value)  # type: ignore[union-attr]
    code = _SIMPLE.get(kind)  # type: ignore[arg-type]
    if code is not None:
        return seat + code
    if kind is Discard:
        a, b = move.cards  # type: ignore[union-attr]
        return f"{seat}d{_CARD_NAMES[a]}.{_CARD_NAMES[b]}"
    if kind is Declare:
        return seat + "=" + move.declaration.iss  # type: ignore[union-attr]
    raise MovesError(f"cannot encode {move!r}")


def encode_moves(moves: Iterable[Move]) -> str:
    """A move list in the compact notation: ``"1p 2p 018 0s 0dST.H8 0=C 0CJ ..."``."""
    return " ".join(encode_move(m) for m in moves)


def decode_move(token: str) -> Move:
    """Parse one token of the compact notation; raises :class:`MovesError`."""
    if len(token) < 2 or token[0] not in "012":
        raise MovesError(f"bad move token {token!r}")
    seat = int(token[0])
    action = token[1:]
    try:
        if action.isdigit():
            return Bid(seat, int(action))
        simple = _SIMPLE_BACK.get(action)
        if simple is not None:
            return simple(seat)
        if action[0] == "d":
            a, b = action[1:].split(".")
            return Discard(seat, (Card.from_iss(a), Card.from_iss(b)))
        if action[0] == "=":
            return Declare(seat, Declaration.from_iss(action[1:]))
        return Play(seat, Card.from_iss(action))
    except ValueError as err:
        raise MovesError(f"bad move token {token!r}: {err}") from err


_DECODED: dict[str, Move] = {}


def decode_moves(text: str) -> tuple[Move, ...]:
    """The moves of a compact-notation move list (inverse of :func:`encode_moves`).

    Moves are small frozen values from a small vocabulary, so decoded tokens are cached."""
    if not text:
        return ()
    cache = _DECODED
    moves = []
    for token in text.split():
        move = cache.get(token)
        if move is None:
            move = decode_move(token)
            if len(cache) < 100_000:
                cache[token] = move
        moves.append(move)
    return tuple(moves)


#: The ``games`` columns :func:`log_game_from_row` reads.
EXPORT_COLUMNS = (
    "game_id", "deal", "moves", "declarer", "skat_taken", "discard", "contract", "hand",
    "schneider_announced", "schwarz_announced", "ouvert", "recorded_rules", "extra_bids",
    "played_at", "forehand", "middlehand", "rearhand", "record_id", "session_id", "hand_no",
    "club", "table", "dealer",
    "recorded_result", "extra", "source", "source_line", "source_format", "value_check",
    "origin", "seed", "bots",
)


# ------------------------------------------------------------------ ids
def _utc_iso(when: datetime | None) -> str:
    if when is None:
        return ""
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when.isoformat()


def _hash64(data: bytes) -> int:
    return int.from_bytes(blake2b(data, digest_size=8).digest(), "big", signed=True)


def game_id_of(
    deal: Sequence[int],
    moves: str,
    players: Sequence[str] = ("", "", ""),
    played_at: datetime | None = None,
    record_id: str = "",
    session_id: str = "",
    seed: int | None = None,
) -> int:
    """The content id of a game: 64 bits of BLAKE2b over its deal, moves and identity.

    ``moves`` is the compact notation (:func:`encode_moves`). Source file, line and format
    are deliberately left out, so a game has one id wherever it is read from.
    """
    text = "\x1f".join((moves, *players, _utc_iso(played_at), record_id, session_id,
                        "" if seed is None else str(seed)))
    return _hash64(bytes(deal) + b"\x1e" + text.encode("utf-8", "surrogatepass"))


def reject_id_of(raw: str) -> int:
    """The content id of a rejected record: 64 bits of BLAKE2b over its raw text."""
    return _hash64(raw.encode("utf-8", "surrogatepass"))


# ------------------------------------------------------------------ rows from records
@dataclass(frozen=True, slots=True)
class SimulatedMeta:
    """What the simulator knows about a simulated hand beyond its record."""

    seed: int | None = None
    bots: str = ""
    players: tuple[str, str, str] = ("", "", "")
    session_id: str = ""
    hand_no: int | None = None
    dealer: int | None = None
    played_at: datetime | None = None
    source: str = "simulated"


_INT32 = (-(2**31), 2**31 - 1)


def _recorded_dict(recorded: RecordedResult | None) -> dict[str, Any] | None:
    """The recorded result as a struct value; numbers beyond int32 become null (raw keeps
    them)."""
    if recorded is None:
        return None
    out = asdict(recorded)
    for key, value in out.items():
        if type(value) is int and not _INT32[0] <= value <= _INT32[1]:
            out[key] = None
    return out


_PLAY_TOKENS = tuple(tuple(f"{seat}{name}" for name in _CARD_NAMES) for seat in range(3))
_CALL_CODES = {"bid": 0, "hold": 1, "pass": 2}


@dataclass(slots=True)
class ScannedMoves:
    """One pass over a game's moves: the compact text and what the rows need from them."""

    text: str
    play_cards: list[int]
    play_seats: list[int]
    call_seats: list[int]
    call_kinds: list[int]  # 0 bid, 1 hold, 2 pass (CALL_KINDS)
    call_values: list[int | None]
    skat_taken: bool
    discard: tuple[int, int] | None


def scan_moves(moves: Sequence[Move]) -> ScannedMoves:
    """Encode ``moves`` (:func:`encode_moves`) and collect plays and calls in one pass."""
    tokens: list[str] = []
    cards: list[int] = []
    seats: list[int] = []
    call_seats: list[int] = []
    call_kinds: list[int] = []
    call_values: list[int | None] = []
    current = 0
    skat_taken = False
    discard = None
    for move in moves:
        kind = type(move)
        if kind is Play:
            seat = move.seat
            card = move.card  # type: ignore[union-attr]
            tokens.append(_PLAY_TOKENS[seat][card])
            cards.append(card)
            seats.append(seat)
        elif kind is Bid:
            current = move.value  # type: ignore[union-attr]
            tokens.append(f"{move.seat}{current}")
            call_seats.append(move.seat)
            call_kinds.append(0)
            call_values.append(current)
        elif kind is Hold:
            tokens.append(f"{move.seat}y")
            call_seats.append(move.seat)
            call_kinds.append(1)
            call_values.append(current)
        elif kind is Pass:
            tokens.append(f"{move.seat}p")
            call_seats.append(move.seat)
            call_kinds.append(2)
            call_values.append(None)
        else:
            tokens.append(encode_move(move))
            if kind is PickUp:
                skat_taken = True
            elif kind is Discard:
                discard = move.cards  # type: ignore[union-attr]
    return ScannedMoves(" ".join(tokens), cards, seats, call_seats, call_kinds, call_values,
                        skat_taken, discard)


# Trick tables as arrays (from the engine's R8 tables) for the vectorised trick winners.
_EFFECTIVE = np.array(EFFECTIVE, dtype=np.int16)  # [contract, card] -> effective suit
_POWER = np.array(POWER, dtype=np.int16)          # [contract, card] -> strength in the suit
_POINTS = np.array(CARD_POINTS, dtype=np.uint8)
_CONTRACT_CODE = {c.label: int(c) for c in Contract}


def trick_winners(cards: np.ndarray, contracts: np.ndarray) -> np.ndarray:
    """Index (0..2, play order) of the winning card of each trick, vectorised.

    ``cards`` is (n, 3) card indices, ``contracts`` (n,) contract numbers. Same rule as
    :func:`skatlog.engine.tricks.trick_winner` (R8): the highest trump, else the highest card
    of the led effective suit (held equal by a differential test).
    """
    contracts = contracts[:, None]
    eff = _EFFECTIVE[contracts, cards]
    power = _POWER[contracts, cards].astype(np.int32)
    trump = eff == TRUMP
    follows = trump | (eff == eff[:, :1])
    key = np.where(follows, trump * 1000 + power, -1)
    return np.argmax(key, axis=1)


class GameRowsBuilder:
    """Accumulates ``games``, ``tricks`` and ``auction`` rows for a batch of games.

    Call :meth:`add_log_game` for validated log games, :meth:`add_simulated` for engine
    records, then :meth:`tables` for the three pyarrow tables and :meth:`clear` to reuse.
    Rows are kept as one tuple per game and flat lists of plays and calls; the tables are
    built column-wise (trick winners vectorised) when asked for.
    """

    def __init__(self, ingest_id: str | None = None) -> None:
        self.ingest_id = ingest_id
        self.clear()

    def clear(self) -> None:
        self._rows: list[tuple[Any, ...]] = []
        self._deals: list[bytes] = []
        self._results: list[tuple[Any, ...]] = []
        self._trick_counts: list[int] = []
        self._play_cards: list[int] = []
        self._play_seats: list[int] = []
        self._call_counts: list[int] = []
        self._call_seats: list[int] = []
        self._call_kinds: list[int] = []
        self._call_values: list[int | None] = []

    def __len__(self) -> int:
        return len(self._rows)

    # -- public adders
    def add_log_game(self, game: LogGame, game_id: int | None = None,
                     scanned: ScannedMoves | None = None) -> int:
        """Add a valid log game (``game.ok``); returns its game_id."""
        record = game.record
        if record is None or game.errors:
            raise ValueError("only valid games become games rows; invalid ones are rejects")
        if scanned is None:
            scanned = scan_moves(record.moves)
        meta = game.meta
        deal = bytes(record.deal.cards)
        if game_id is None:
            game_id = game_id_of(deal, scanned.text, meta.players, meta.played_at,
                                 meta.record_id, meta.session_id)
        rec = _recorded_dict(game.recorded)
        self._rows.append((
            game_id, "log", game.source, game.line, game.format,
            meta.record_id or None, meta.session_id or None, meta.hand_no, meta.played_at,
            meta.club or None, meta.table or None,
            meta.players[0] or None, meta.players[1] or None, meta.players[2] or None,
            meta.dealer,
            rec["value"] if rec is not None else None, game.value_check, rec,
            [w.code for w in game.warnings] or None,
            json.dumps(game.extra, sort_keys=True, default=str) if game.extra else None,
            None, None,
        ))
        self._add_record(game_id, deal, record, scanned, meta.players)
        return game_id

    def add_simulated(self, record: GameRecord, meta: SimulatedMeta = SimulatedMeta(),
                      game_id: int | None = None) -> int:
        """Add an engine-played hand; returns its game_id."""
        scanned = scan_moves(record.moves)
        deal = bytes(record.deal.cards)
        if game_id is None:
            game_id = game_id_of(deal, scanned.text, meta.players, meta.played_at, "",
                                 meta.session_id, meta.seed)
        self._rows.append((
            game_id, "simulated", meta.source, None, None,
            None, meta.session_id or None, meta.hand_no, meta.played_at, None, None,
            meta.players[0] or None, meta.players[1] or None, meta.players[2] or None,
            meta.dealer, None, "not_recorded", None, None, None, meta.seed, meta.bots or None,
        ))
        self._add_record(game_id, deal, record, scanned, meta.players)
        return game_id

    def _add_record(self, game_id: int, deal: bytes, record: GameRecord,
                    scanned: ScannedMoves, players: Sequence[str]) -> None:
        result = record.result
        decl = result.declaration
        score = result.score
        declarer = result.declarer
        if decl is not None and score is not None:
            played: tuple[Any, ...] = (
                decl.contract.label, decl.hand, decl.schneider_announced,
                decl.schwarz_announced, decl.ouvert, result.matadors, result.declarer_points,
                result.defender_points, result.declarer_tricks, result.defender_tricks,
                score.schneider, score.schwarz, score.won, score.overbid, score.game_value,
                score.multiplier, score.value,
            )
        else:
            played = (None,) * 16 + (0,)
        self._results.append((
            result.outcome == "passed", result.outcome, result.ending.value, declarer,
            (players[declarer] or None) if declarer is not None else None,
            scanned.skat_taken if declarer is not None else None,
            list(scanned.discard) if scanned.discard is not None else None,
            result.bid, *played, scanned.text, record.recorded,
            sorted(record.extra_bids) or None,
        ))
        self._deals.append(deal)
        n_tricks = len(scanned.play_cards) // 3 if decl is not None else 0
        self._trick_counts.append(n_tricks)
        if n_tricks:
            self._play_cards.extend(scanned.play_cards[:3 * n_tricks])
            self._play_seats.extend(scanned.play_seats[:3 * n_tricks])
        self._call_counts.append(len(scanned.call_seats))
        self._call_seats.extend(scanned.call_seats)
        self._call_kinds.extend(scanned.call_kinds)
        self._call_values.extend(scanned.call_values)

    # -- tables
    def tables(self, computed: bool = False) -> dict[str, pa.Table]:
        """The accumulated rows as ``{"games": ..., "tricks": ..., "auction": ...}``.

        With ``computed``, ``games`` and ``tricks`` also get the columns the views compute
        (:mod:`.computed`), here taken from what the engine played (the seats that played
        each card, the card points, the skat dealt), as the query schema has them: the
        values ``skatlog verify`` expects the views to show."""
        n = len(self._rows)
        ids = np.fromiter((row[0] for row in self._rows), np.int64, n)
        columns: dict[str, Any] = {}
        if n:
            for name, values in zip(_META_COLUMNS, zip(*self._rows, strict=True), strict=True):
                columns[name] = values
            for name, values in zip(_RESULT_COLUMNS, zip(*self._results, strict=True),
                                    strict=True):
                columns[name] = values
        deals = np.frombuffer(b"".join(self._deals), dtype=np.uint8).reshape(n, 32)
        columns["deal"] = deals
        bits = np.left_shift(np.uint32(1), deals.astype(np.uint32))
        for name, lo, hi in (("forehand_cards", 0, 10), ("middlehand_cards", 10, 20),
                             ("rearhand_cards", 20, 30)):
            columns[name] = np.bitwise_or.reduce(bits[:, lo:hi], axis=1)
        columns["ingest_id"] = pa.nulls(n, pa.string()) if self.ingest_id is None else \
            pa.array([self.ingest_id] * n, pa.string())
        games = table_from_columns("games", columns, n)
        tricks = self._tricks_table(ids, games)
        if computed:
            from .computed import insert_computed

            skat = np.bitwise_or.reduce(bits[:, 30:32], axis=1) if n else np.zeros(0, np.uint32)
            games = insert_computed("games", games, {"skat_cards": skat})
            cards = np.array(self._play_cards, dtype=np.uint8).reshape(-1, 3)
            seats = np.array(self._play_seats, dtype=np.uint8).reshape(-1, 3)
            tricks = insert_computed("tricks", tricks, {
                "seat1": seats[:, 0], "seat2": seats[:, 1], "seat3": seats[:, 2],
                "points": _POINTS[cards].sum(axis=1, dtype=np.uint8)})
        return {"games": games, "tricks": tricks, "auction": self._auction_table(ids)}

    def _tricks_table(self, ids: np.ndarray, games: pa.Table) -> pa.Table:
        counts = np.array(self._trick_counts, dtype=np.int64)
        total = int(counts.sum())
        if total == 0:
            return empty_table("tricks")
        cards = np.array(self._play_cards, dtype=np.uint8).reshape(total, 3)
        seats = np.array(self._play_seats, dtype=np.uint8).reshape(total, 3)
        codes = np.array([_CONTRACT_CODE.get(c, 0) if c is not None else 0
                          for c in games.column("contract").to_pylist()], dtype=np.int64)
        contracts = np.repeat(codes, counts)
        winner_idx = trick_winners(cards, contracts)
        rows = np.arange(total)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        return table_from_columns("tricks", {
            "game_id": np.repeat(ids, counts),
            "trick_no": (rows - starts + 1).astype(np.uint8),
            "leader": seats[:, 0],
            "card1": cards[:, 0], "card2": cards[:, 1], "card3": cards[:, 2],
            "winner": seats[rows, winner_idx],
        }, total)

    def _auction_table(self, ids: np.ndarray) -> pa.Table:
        counts = np.array(self._call_counts, dtype=np.int64)
        total = int(counts.sum())
        if total == 0:
            return empty_table("auction")
        rows = np.arange(total)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        kinds = pa.DictionaryArray.from_arrays(
            pa.array(np.array(self._call_kinds, dtype=np.int32)), pa.array(CALL_KINDS))
        return table_from_columns("auction", {
            "game_id": np.repeat(ids, counts),
            "call_no": (rows - starts + 1).astype(np.uint8),
            "seat": np.array(self._call_seats, dtype=np.uint8),
            "kind": kinds,
            "value": pa.array(self._call_values, pa.int16()),
        }, total)


_META_COLUMNS = (
    "game_id", "origin", "source", "source_line", "source_format", "record_id", "session_id",
    "hand_no", "played_at", "club", "table", "forehand", "middlehand", "rearhand", "dealer",
    "recorded_value", "value_check", "recorded_result", "warnings", "extra", "seed", "bots",
)
_RESULT_COLUMNS = (
    "passed", "outcome", "ending", "declarer", "declarer_name", "skat_taken", "discard", "bid",
    "contract", "hand", "schneider_announced", "schwarz_announced", "ouvert", "matadors",
    "declarer_points", "defender_points", "declarer_tricks", "defender_tricks", "schneider",
    "schwarz", "won", "overbid", "game_value", "multiplier", "value", "moves",
    "recorded_rules", "extra_bids",
)
assert set(_META_COLUMNS) | set(_RESULT_COLUMNS) | {
    "deal", "forehand_cards", "middlehand_cards", "rearhand_cards", "ingest_id",
} == set(GAMES_SCHEMA.names)


def log_game_id(game: LogGame, moves_text: str | None = None) -> int:
    """The content id of a valid log game (see :func:`game_id_of`)."""
    record = game.record
    if record is None:
        raise ValueError("a game without a record has no game_id; use reject_id_of")
    if moves_text is None:
        moves_text = encode_moves(record.moves)
    meta = game.meta
    return game_id_of(bytes(record.deal.cards), moves_text, meta.players, meta.played_at,
                      meta.record_id, meta.session_id)


def _utf8_ok(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unstorable_text(game: LogGame) -> str:
    """Why a game's names or ids cannot be stored as UTF-8 (a lone surrogate from a JSON
    ``\\ud800`` escape), or ``""`` when they can."""
    meta = game.meta
    for what, text in (("a player name", meta.players[0]), ("a player name", meta.players[1]),
                       ("a player name", meta.players[2]), ("the record id", meta.record_id),
                       ("the session id", meta.session_id), ("the club", meta.club),
                       ("the table", meta.table), ("the source name", game.source)):
        if not _utf8_ok(text):
            return f"{what} {text!r} is not valid Unicode text (a lone surrogate)"
    return ""


def _clean(text: str | None) -> str | None:
    """Text made storable: lone surrogates become ``?`` (rejects only, for diagnostics)."""
    if text is None or _utf8_ok(text):
        return text
    return text.encode("utf-8", "replace").decode("utf-8")


class RejectRowsBuilder:
    """Accumulates ``rejects`` rows for invalid log games."""

    def __init__(self, ingest_id: str | None = None) -> None:
        self.ingest_id = ingest_id
        self.clear()

    def clear(self) -> None:
        self.columns: dict[str, list[Any]] = {f.name: [] for f in REJECTS_SCHEMA}

    def __len__(self) -> int:
        return len(self.columns["reject_id"])

    def add(self, game: LogGame, reject_id: int | None = None) -> int:
        """Add an invalid game; returns its reject_id."""
        if reject_id is None:
            reject_id = reject_id_of(game.raw)
        errors = game.errors or (GameError("syntax", "no record could be built", game.line),)
        first = errors[0]
        c = self.columns
        c["reject_id"].append(reject_id)
        c["source"].append(_clean(game.source))
        c["line"].append(game.line)
        c["source_format"].append(game.format)
        c["record_id"].append(_clean(game.meta.record_id) or None)
        c["code"].append(first.code)
        c["message"].append(_clean(first.message))
        c["move"].append(first.move)
        c["rule"].append(first.rule or None)
        c["errors"].append([{"code": e.code, "message": _clean(e.message), "line": e.line,
                             "move": e.move, "rule": e.rule or None} for e in errors])
        c["raw"].append(_clean(game.raw))
        c["ingest_id"].append(self.ingest_id)
        return reject_id

    def table(self) -> pa.Table:
        return table_from_columns("rejects", self.columns, len(self))


def ingest_table(
    *,
    ingest_id: str,
    kind: str,
    started_at: datetime,
    finished_at: datetime,
    fmt: str | None,
    files: Sequence[tuple[str, str, int]],
    seen: int,
    stored: int,
    duplicates: int,
    rejected: int,
    rejects_stored: int,
    rejected_by_code: Mapping[str, int],
    skatlog_version: str,
) -> pa.Table:
    """The one-row ``ingests`` table describing a run (files as (path, sha256, bytes))."""
    columns = {
        "ingest_id": [ingest_id],
        "kind": [kind],
        "started_at": [started_at],
        "finished_at": [finished_at],
        "seconds": [(finished_at - started_at).total_seconds()],
        "format": [fmt],
        "files": [[{"path": p, "sha256": h, "bytes": b} for p, h, b in files]],
        "seen": [seen],
        "stored": [stored],
        "duplicates": [duplicates],
        "rejected": [rejected],
        "rejects_stored": [rejects_stored],
        "rejected_by_code": [[{"code": k, "count": v}
                              for k, v in sorted(rejected_by_code.items())]],
        "skatlog_version": [skatlog_version],
        "schema_version": [SCHEMA_VERSION],
    }
    return table_from_columns("ingests", columns, 1)


# ------------------------------------------------------------------ rows back to games
def log_game_from_row(row: Mapping[str, Any]) -> LogGame:
    """Rebuild the :class:`LogGame` a ``games`` row was made from (for export).

    The moves are replayed through the engine's validated path, so a row that does not
    replay raises the engine's typed error instead of exporting a wrong game. A row
    stored without ``moves`` needs its ``tricks`` and ``calls`` lists in ``row`` (see
    :mod:`.rebuild`).
    """
    from skatlog.engine import Deal, replay  # local: keeps import cycles out of the way

    deal = Deal.from_cards(row["deal"])
    if row["moves"] is None:  # rebuilt from the rows (module doc); ``tricks``/``calls``
        from .rebuild import moves_from_rows  # are the lists rebuild.child_rows_sql gives

        moves = moves_from_rows(row, row.get("tricks"), row.get("calls"))
    else:
        moves = decode_moves(row["moves"])
    record = replay(deal, moves, recorded=bool(row["recorded_rules"]),
                    extra_bids=frozenset(row.get("extra_bids") or ()))
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
    recorded = RecordedResult(**rec) if rec is not None else None
    extra = json.loads(row["extra"]) if row.get("extra") else {}
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
