"""Kernel output -> archive columns: the ``games``, ``tricks`` and ``auction`` tables.

:func:`scan` runs the kernel over one chunk and returns a :class:`ChunkScan` (plain numpy
arrays, cheap to send between processes). :func:`archive_tables` turns the accepted games of a
scan into pyarrow tables with exactly the schemas of :mod:`skatlog.ingest.schema` (same column
names, dtypes and values as :class:`~skatlog.ingest.rows.GameRowsBuilder` gives for the
same games, including the content ``game_id``), so they can be appended to the archive as they
are. Strings (names, ids, moves, the extra JSON) are built from byte offsets, never decoded
game by game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from skatlog.engine.contract import Contract
from skatlog.engine.game import Ending
from skatlog.engine.rules import ISKO_ISS, Rules

from ..schema import CALL_KINDS, OUTCOMES, table_from_columns
from . import iss_kernel as K
from .blake import blake2b64
from .child_rows import auction_rows, trick_rows
from .gather import gather_string_columns
from .stream import count_newlines
from .tables import rule_tables

_TABLES = rule_tables()
_WORDS = tuple(np.frombuffer(w.encode(), dtype=np.uint8).copy()
               for w in (*K.RESULT_WORDS, "Skat", '{"tags": {'))
_CONTRACTS = pa.array([c.label for c in Contract], pa.string())
_ENDINGS = pa.array([e.value for e in Ending], pa.string())
_OUTCOMES = pa.array(list(OUTCOMES), pa.string())
_CALL_KINDS = pa.array(list(CALL_KINDS), pa.string())
#: The ISS reader admits R18's off-ladder bids in every ISS record (games.extra_bids).
_ISS_EXTRA_BIDS = [171, 189, 190]

assert [e.value for e in Ending][K.END_PENALTY] == "penalty"
assert OUTCOMES[K.OUT_PLAYED] == "played" and OUTCOMES[K.OUT_PENALTY] == "penalty"
assert CALL_KINDS[K.CALL_PASS] == "pass"


@dataclass
class ChunkScan:
    """The kernel's output for one chunk of complete lines.

    ``rows[:, F_*]`` are the per-line columns (see :mod:`.iss_kernel`); ``first_line`` is the
    1-based file line of the chunk's first line. ``keys``/``extra`` are the byte buffers the
    ``F_KEY_*``/``F_MOVES_*``/``F_EXT_*`` offsets point into; ``strings`` holds the players,
    ids and R texts of the accepted games, already gathered. ``rules``: the rule set the
    records were replayed under.
    """

    first_line: int
    rows: np.ndarray
    meta: np.ndarray
    deals: np.ndarray
    tricks: np.ndarray
    calls: np.ndarray
    keys: np.ndarray
    extra: np.ndarray
    chunk: bytes
    rules: Rules = ISKO_ISS

    @property
    def status(self) -> np.ndarray:
        return self.rows[:, K.F_STATUS]

    @property
    def accepted(self) -> np.ndarray:
        """Boolean mask of the games the kernel accepted (status OK)."""
        return self.rows[:, K.F_STATUS] == K.OK

    @property
    def lines(self) -> np.ndarray:
        """1-based file line of every row."""
        return self.rows[:, K.F_LINE].astype(np.int64) + self.first_line


def scan(chunk: bytes, first_line: int = 1, rules: Rules = ISKO_ISS) -> ChunkScan:
    """Run the kernel over ``chunk`` (whole lines) whose first line is file line ``first_line``,
    replaying records under ``rules`` (a record naming its own with ``RU[...]`` goes to the
    slow path)."""
    buf = np.frombuffer(chunk, dtype=np.uint8)
    if buf.ctypes.data % 8:  # the kernel reads it as 64-bit words too: align (bytes are)
        buf = buf.copy()
    nlines = count_newlines(buf) + 1
    rows = np.empty((nlines, K.N_FIELDS), dtype=np.int32)
    meta = np.empty((nlines, 2 * K.N_META), dtype=np.int32)
    deals = np.empty((nlines, 32), dtype=np.uint8)
    tricks = np.empty((nlines, 10, 5), dtype=np.int8)
    calls = np.empty((len(chunk) // 4 + 16, 3), dtype=np.int16)
    keys = np.empty(len(chunk) + 64 * nlines, dtype=np.uint8)
    extra = np.empty(2 * len(chunk) + 16 * nlines, dtype=np.uint8)
    n, ncalls, nkeys, nextra = K.scan_chunk(buf, _TABLES, _WORDS, rows, meta, deals, tricks,
                                            calls, keys, extra, rules.flags)
    # views of the filled parts, not copies: copying them cost about 0.02 CPU-s per 200,000
    # records (3 % of scan + tables; new memory to fault in), the buffers' untouched tails
    # take no memory, and a view is pickled as its own elements only
    return ChunkScan(first_line, rows[:n], meta[:n], deals[:n], tricks[:n], calls[:ncalls],
                     keys[:nkeys], extra[:nextra], chunk, rules)


# ------------------------------------------------------------------ arrow helpers
def _strings(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray,
             empty_is_null: bool = True) -> pa.Array:
    """A string array of buf[starts[i]:ends[i]]; a negative start (or empty) is null."""
    return _string_columns(buf, starts[:, None], ends[:, None], (empty_is_null,))[0]


def _string_columns(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                    empty_is_null: tuple[bool, ...]) -> list[pa.Array]:
    """:func:`_strings` for the columns of ``starts``/``ends`` (n x k), gathered in one
    pass over ``buf`` (:func:`.gather.gather_string_columns`)."""
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    ends = np.ascontiguousarray(ends, dtype=np.int64)
    offsets, data, bases = gather_string_columns(buf, starts, ends)
    out = []
    for c, nulls_for_empty in enumerate(empty_is_null):
        valid = starts[:, c] >= 0
        if nulls_for_empty:
            valid &= ends[:, c] > starts[:, c]
        mask = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
        out.append(pa.StringArray.from_buffers(
            len(starts), pa.py_buffer(offsets[c]), pa.py_buffer(data[bases[c]:bases[c + 1]]),
            mask, int((~valid).sum())))
    return out


def _dict(codes: np.ndarray, labels: pa.Array) -> pa.DictionaryArray:
    """A dictionary<int32, string> column from small integer codes (-1 = null)."""
    codes = codes.astype(np.int32)
    indices = pa.array(codes, pa.int32(), mask=codes < 0)
    return pa.DictionaryArray.from_arrays(indices, labels)


def _dict_strings(arr: pa.Array) -> pa.Array:
    encoded = arr.dictionary_encode()
    if encoded.type.index_type != pa.int32():
        encoded = encoded.cast(pa.dictionary(pa.int32(), pa.string()))
    return encoded


def _const_dict(value: str | None, n: int) -> pa.Array:
    if value is None:
        return pa.nulls(n, pa.dictionary(pa.int32(), pa.string()))
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)),
                                          pa.array([value], pa.string()))


def _opt(values: np.ndarray, valid: np.ndarray, type_: pa.DataType) -> pa.Array:
    return pa.array(values, type_, mask=~valid)


def _card_lists(cards: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """list<uint8> from an (n, k) card matrix; rows where ``valid`` is False are null."""
    n, k = cards.shape
    offsets = np.arange(0, n * k + 1, k, dtype=np.int32)
    flat = pa.array(cards.reshape(-1).astype(np.uint8), pa.uint8())
    if valid is None:
        return pa.ListArray.from_arrays(pa.array(offsets), flat)
    return pa.ListArray.from_arrays(pa.array(offsets), flat, mask=pa.array(~valid))


def game_ids(scan_: ChunkScan, rows: np.ndarray) -> np.ndarray:
    """ids.game_id_of for the given rows: BLAKE2b-64 over the kernel-built key bytes, all
    of the chunk's games in one compiled loop (:mod:`.blake`)."""
    return blake2b64(scan_.keys, rows[:, K.F_KEY_S].astype(np.int64),
                     rows[:, K.F_KEY_E].astype(np.int64))


def _masks(deals: np.ndarray) -> list[np.ndarray]:
    """The 32-bit masks of Forehand's, Middlehand's and Rearhand's cards."""
    bits = np.left_shift(np.uint32(1), deals[:, :30].astype(np.uint32))
    return [np.bitwise_or.reduce(bits[:, a:b], axis=1).astype(np.uint32)
            for a, b in ((0, 10), (10, 20), (20, 30))]


# ------------------------------------------------------------------ the tables
def archive_tables(scan_: ChunkScan, source: str, ingest_id: str | None = None
                   ) -> dict[str, pa.Table]:
    """``games``/``tricks``/``auction`` tables of the accepted games of ``scan_``.

    Columns and values are those :class:`~skatlog.ingest.rows.GameRowsBuilder` gives for
    the same games after validation (``value_check`` is ``ok`` for every accepted game).
    """
    sel = np.flatnonzero(scan_.accepted)
    rows = scan_.rows[sel]
    meta = scan_.meta[sel]
    deals = scan_.deals[sel]
    n = len(sel)
    chunk = np.frombuffer(scan_.chunk, dtype=np.uint8)
    ids = game_ids(scan_, rows)
    col = rows.T  # col[F_*] -> one column
    outcome = col[K.F_OUTCOME]
    played = outcome == K.OUT_PLAYED
    declared = col[K.F_CONTRACT] >= 0
    has_decl = col[K.F_DECLARER] >= 0

    declarer = col[K.F_DECLARER]
    # declarer_name: players[declarer] (pick the offsets of the declarer's P tag)
    seat = np.clip(declarer, 0, 2)
    name_s = np.where(has_decl, meta[np.arange(n), 2 * seat], -1)
    name_e = np.where(has_decl, meta[np.arange(n), 2 * seat + 1], -1)
    # the strings read from the chunk, all in one pass: P0, P1, P2, declarer, ID, SE, R
    *players, declarer_name, record_id, session_id, result_text = _string_columns(
        chunk, np.column_stack([meta[:, 0], meta[:, 2], meta[:, 4], name_s, meta[:, 6],
                                meta[:, 8], col[K.F_R_S]]),
        np.column_stack([meta[:, 1], meta[:, 3], meta[:, 5], name_e, meta[:, 7],
                         meta[:, 9], col[K.F_R_E]]),
        (True, True, True, True, True, True, False))

    day = col[K.F_DT_DAY].astype(np.int64)
    micros = (day * 86400 + col[K.F_DT_SEC]) * 1_000_000
    played_at = pa.array(micros, pa.timestamp("us", tz="UTC"), mask=day < 0)

    masks = _masks(deals)
    has_discard = col[K.F_DISC0] >= 0
    discard = np.stack([col[K.F_DISC0], col[K.F_DISC1]], axis=1).clip(0)
    rec_ok = {k: col[k] != K.ABSENT for k in (K.F_REC_V, K.F_REC_M, K.F_REC_P, K.F_REC_T,
                                               K.F_REC_S, K.F_REC_Z)}
    rec_fields = col[K.F_REC_KIND] == 3
    rec_d = col[K.F_REC_D]
    recorded_result = pa.StructArray.from_arrays([
        pa.array(col[K.F_REC_KIND] == 1),
        pa.array(col[K.F_REC_WIN] == 2),
        _opt(rec_d, rec_fields & (rec_d >= 0) & (rec_d <= 2), pa.int8()),
        _opt(col[K.F_REC_WIN] == 1, rec_fields & (col[K.F_REC_WIN] >= 0)
             & (col[K.F_REC_WIN] <= 1), pa.bool_()),
        _opt(col[K.F_REC_V], rec_fields & rec_ok[K.F_REC_V], pa.int16()),
        _opt(col[K.F_REC_M], rec_fields & rec_ok[K.F_REC_M], pa.int8()),
        _opt(col[K.F_REC_OVERBID] == 1, rec_fields & (col[K.F_REC_OVERBID] >= 0), pa.bool_()),
        _opt(col[K.F_REC_P], rec_fields & rec_ok[K.F_REC_P], pa.int16()),
        _opt(col[K.F_REC_T], rec_fields & rec_ok[K.F_REC_T], pa.int8()),
        _opt(col[K.F_REC_S] != 0, rec_fields & rec_ok[K.F_REC_S], pa.bool_()),
        _opt(col[K.F_REC_Z] != 0, rec_fields & rec_ok[K.F_REC_Z], pa.bool_()),
        result_text,
    ], names=["passed", "penalty", "declarer", "won", "value", "matadors", "overbid",
              "declarer_points", "declarer_tricks", "schneider", "schwarz", "raw"])
    keys = scan_.keys
    extra_bids = pa.ListArray.from_arrays(
        pa.array(np.arange(0, 3 * n + 1, 3, dtype=np.int32)),
        pa.array(np.tile(np.array(_ISS_EXTRA_BIDS, np.int16), n), pa.int16()))
    games = {
        "game_id": ids,
        "origin": _const_dict("log", n),
        "source": _const_dict(source, n),
        "source_line": (col[K.F_LINE].astype(np.int64) + scan_.first_line).astype(np.int32),
        "source_format": _const_dict("iss", n),
        "record_id": record_id,
        "session_id": session_id,
        "played_at": played_at,
        "forehand": _dict_strings(players[0]),
        "middlehand": _dict_strings(players[1]),
        "rearhand": _dict_strings(players[2]),
        "dealer": np.full(n, 2, np.int8),
        "deal": _card_lists(deals),
        "forehand_cards": masks[0],
        "middlehand_cards": masks[1],
        "rearhand_cards": masks[2],
        "passed": outcome == K.OUT_PASSED,
        "outcome": _dict(outcome, _OUTCOMES),
        "ending": _dict(col[K.F_ENDING], _ENDINGS),
        "declarer": _opt(declarer, has_decl, pa.int8()),
        "declarer_name": _dict_strings(declarer_name),
        "contract": _dict(col[K.F_CONTRACT], _CONTRACTS),
        "hand": _opt(col[K.F_HAND] != 0, declared, pa.bool_()),
        "schneider_announced": _opt(col[K.F_SCHN_ANN] != 0, declared, pa.bool_()),
        "schwarz_announced": _opt(col[K.F_SCHW_ANN] != 0, declared, pa.bool_()),
        "ouvert": _opt(col[K.F_OUVERT] != 0, declared, pa.bool_()),
        "skat_taken": _opt(col[K.F_SKAT_TAKEN] != 0, has_decl, pa.bool_()),
        "discard": _card_lists(discard, has_discard & has_decl),
        "bid": col[K.F_BID].astype(np.int16),
        "matadors": _opt(col[K.F_MATADORS], played, pa.int8()),
        "declarer_points": _opt(col[K.F_DPOINTS], played, pa.int16()),
        "defender_points": _opt(col[K.F_DEFPOINTS], played, pa.int16()),
        "declarer_tricks": _opt(col[K.F_DTRICKS], played, pa.int8()),
        "defender_tricks": _opt(col[K.F_DEFTRICKS], played, pa.int8()),
        "schneider": _opt(col[K.F_SCHNEIDER] != 0, played, pa.bool_()),
        "schwarz": _opt(col[K.F_SCHWARZ] != 0, played, pa.bool_()),
        "won": _opt(col[K.F_WON] != 0, played, pa.bool_()),
        "overbid": _opt(col[K.F_OVERBID] != 0, played, pa.bool_()),
        "game_value": _opt(col[K.F_GAME_VALUE], played, pa.int16()),
        "multiplier": _opt(col[K.F_MULT], played, pa.int8()),
        "value": np.where(played, col[K.F_VALUE], 0).astype(np.int16),
        "recorded_value": _opt(col[K.F_REC_V], rec_fields & rec_ok[K.F_REC_V], pa.int16()),
        "value_check": _const_dict("ok", n),
        "recorded_result": recorded_result,
        "moves": _strings(keys, rows[:, K.F_MOVES_S], rows[:, K.F_MOVES_E],
                          empty_is_null=False),
        "rules": _const_dict(str(scan_.rules), n),
        "recorded_rules": np.ones(n, dtype=bool),
        "extra_bids": extra_bids,
        "extra": _strings(scan_.extra, rows[:, K.F_EXT_S], rows[:, K.F_EXT_E]),
        "ingest_id": _const_dict(ingest_id, n),
    }
    return {
        "games": table_from_columns("games", games, n),
        "tricks": _tricks_table(scan_, sel, ids),
        "auction": _auction_table(scan_, rows, ids),
    }


def _tricks_table(scan_: ChunkScan, sel: np.ndarray, ids: np.ndarray) -> pa.Table:
    game_id, trick_no, leader, card1, card2, card3, winner = trick_rows(
        scan_.tricks, sel.astype(np.int64), scan_.rows[sel, K.F_NTRICKS].astype(np.int64), ids)
    columns = {"game_id": game_id, "trick_no": trick_no, "leader": leader, "card1": card1,
               "card2": card2, "card3": card3, "winner": winner}
    return table_from_columns("tricks", columns, len(game_id))


def _auction_table(scan_: ChunkScan, rows: np.ndarray, ids: np.ndarray) -> pa.Table:
    game_id, call_no, seat, kind, value = auction_rows(
        scan_.calls, rows[:, K.F_CALL_OFF].astype(np.int64),
        rows[:, K.F_CALL_N].astype(np.int64), ids)
    columns = {
        "game_id": game_id,
        "call_no": call_no,
        "seat": seat,
        "kind": _dict(kind, _CALL_KINDS),
        "value": pa.array(value, pa.int16(), mask=kind == K.CALL_PASS),
    }
    return table_from_columns("auction", columns, len(game_id))
