"""The archive rows of a batch of simulated hands, in one compiled pass (no Python loop per hand).

:func:`batch_rows` makes every row array of a batch of the batch simulator
(:class:`skatlog.engine.batch.BatchGames`) in one compiled pass: each hand's move list in
the archive's compact notation (:func:`.moves_codec.encode_moves`:
``"1p 2p 018 0s 0dST.H8 0=C 0CJ ..."``) as one UTF-8 buffer plus offsets, ready to become an
Arrow string column (:func:`moves_text` alone; a test holds it equal to ``encode_moves``),
the card masks, and the ``tricks`` and ``auction`` rows. :mod:`.sim_tables` wraps them as
Arrow tables.

The compiled code reads the simulator's layout (the ``GAME_COLUMNS`` positions, the
declaration table) from arguments, never from globals: numba's on-disk cache checks only
this file, so a constant baked in from another module would go stale when that one changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skatlog.engine.batch.games import BatchGames
from skatlog.engine.batch.kernel import GAME_COLUMNS
from skatlog.engine.batch.tables import DECL_T
from skatlog.engine.cards import DECK
from skatlog.engine.contract import Contract, Declaration
from skatlog.engine.jit import njit

#: Two ASCII bytes per card name (``CJ``, ``ST``, ``D7``).
CARD_NAME_T = np.array([[ord(c.name[0]), ord(c.name[1])] for c in DECK], dtype=np.uint8)


def _decl_names() -> tuple[np.ndarray, np.ndarray]:
    names = []
    for row in DECL_T:
        decl = Declaration(Contract(int(row[0])), bool(row[1]), bool(row[2]), bool(row[3]),
                           bool(row[4]))
        names.append(decl.iss)
    width = max(len(n) for n in names)
    table = np.zeros((len(names), width), dtype=np.uint8)
    for i, name in enumerate(names):
        table[i, :len(name)] = np.frombuffer(name.encode("ascii"), dtype=np.uint8)
    return table, np.array([len(n) for n in names], dtype=np.int64)


#: DECL_NAME_T[decl] -> ISS declaration text (``G``, ``CHS``, ``NOH``), DECL_LEN_T its length.
DECL_NAME_T, DECL_LEN_T = _decl_names()
#: Positions in ``GAME_COLUMNS`` of what the row pass reads, in the order of ``_C_*``.
COLUMNS_READ = np.array([GAME_COLUMNS.index(name) for name in (
    "declarer", "pickup", "declare_first", "decl", "n_cards")], dtype=np.int64)
_C_DECLARER, _C_PICKUP, _C_FIRST, _C_DECL, _C_NCARDS = range(5)


@njit(inline="always", error_model="numpy")
def _int_text(out: np.ndarray, pos: int, value: int, write: bool) -> int:
    """Decimal digits of a positive ``value`` at ``pos``; returns the new position."""
    digits = 1 if value < 10 else (2 if value < 100 else 3)
    if write:
        for k in range(digits - 1, -1, -1):
            out[pos + k] = 48 + value % 10
            value //= 10
    return pos + digits


@njit(inline="always", error_model="numpy")
def _encode_row(i: int, n_calls: np.ndarray, calls: np.ndarray, call_seats: np.ndarray,
                game: np.ndarray, discard: np.ndarray, cards: np.ndarray,
                winners: np.ndarray, cols: np.ndarray, card_names: np.ndarray,
                decl_names: np.ndarray, decl_lens: np.ndarray, out: np.ndarray, pos: int,
                write: bool) -> int:
    start = pos
    for k in range(n_calls[i]):
        if pos > start:
            if write:
                out[pos] = 32
            pos += 1
        if write:
            out[pos] = 48 + call_seats[i, k]
        pos += 1
        code = calls[i, k]
        if code == 0:
            if write:
                out[pos] = 112  # p
            pos += 1
        elif code == 1:
            if write:
                out[pos] = 121  # y
            pos += 1
        else:
            pos = _int_text(out, pos, code, write)
    decl = game[i, cols[_C_DECL]]
    if decl < 0:
        return pos
    d = game[i, cols[_C_DECLARER]]
    # the declarer's steps: declare (2) alone, or pick up (0), then discard (1) and declare
    # in the order they were made; packed as base-4 digits, no array per row
    n_steps = 1
    steps = 2
    if game[i, cols[_C_PICKUP]]:
        n_steps = 3
        steps = 0 + 4 * 2 + 16 * 1 if game[i, cols[_C_FIRST]] else 0 + 4 * 1 + 16 * 2
    for s in range(n_steps):
        step = (steps >> (2 * s)) & 3
        if write:
            out[pos] = 32
            out[pos + 1] = 48 + d
        pos += 2
        if step == 0:
            if write:
                out[pos] = 115  # s
            pos += 1
        elif step == 1:
            if write:
                a = discard[i, 0]
                b = discard[i, 1]
                out[pos] = 100  # d
                out[pos + 1] = card_names[a, 0]
                out[pos + 2] = card_names[a, 1]
                out[pos + 3] = 46  # .
                out[pos + 4] = card_names[b, 0]
                out[pos + 5] = card_names[b, 1]
            pos += 6
        else:
            if write:
                out[pos] = 61  # =
                for k in range(decl_lens[decl]):
                    out[pos + 1 + k] = decl_names[decl, k]
            pos += 1 + decl_lens[decl]
    if not write:
        return pos + 4 * game[i, cols[_C_NCARDS]]
    leader = 0
    for k in range(game[i, cols[_C_NCARDS]]):
        trick = k // 3
        seat = (leader + k % 3) % 3
        if write:
            card = cards[i, k]
            out[pos] = 32
            out[pos + 1] = 48 + seat
            out[pos + 2] = card_names[card, 0]
            out[pos + 3] = card_names[card, 1]
        pos += 4
        if k % 3 == 2:
            leader = winners[i, trick]
    return pos


def moves_text(batch: BatchGames) -> tuple[np.ndarray, np.ndarray]:
    """(int32 offsets, UTF-8 bytes) of every hand's compact move list, as
    :func:`batch_rows` writes them for the hands it is asked to."""
    n = len(batch)
    rows = batch_rows(batch, np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.bool_))
    return rows.offsets, rows.text


def needs_moves_text(batch: BatchGames) -> np.ndarray:
    """Which hands' move lists the archive's rows cannot rebuild
    (:func:`.rebuild.moves_from_rows`): those where the declarer named the game before
    laying the skat away, an order no row records. Only they get ``moves``."""
    col = batch.column
    return (col("decl") >= 0) & (col("pickup") != 0) & (col("declare_first") != 0)


@njit(nogil=True, error_model="numpy")
def _batch_rows(ids: np.ndarray, deal: np.ndarray, n_calls: np.ndarray, calls: np.ndarray,
                call_seats: np.ndarray, game: np.ndarray, discard: np.ndarray,
                cards: np.ndarray, winners: np.ndarray, text_rows: np.ndarray,
                cols: np.ndarray, card_names: np.ndarray, decl_names: np.ndarray,
                decl_lens: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                           np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every row array of a batch in one pass over its hands (each hand read once, while
    it is in cache): moves text (for the hands ``text_rows`` marks, empty for the rest),
    card masks, trick rows and auction rows."""
    count = game.shape[0]
    offsets = np.zeros(count + 1, dtype=np.int32)
    scratch = np.zeros(1, dtype=np.uint8)
    n_tricks = 0
    n_rows = 0
    for i in range(count):
        offsets[i + 1] = offsets[i]
        if text_rows[i]:
            offsets[i + 1] += _encode_row(i, n_calls, calls, call_seats, game, discard,
                                          cards, winners, cols, card_names, decl_names,
                                          decl_lens, scratch, 0, False)
        n_tricks += game[i, cols[_C_NCARDS]] // 3
        n_rows += n_calls[i]
    text = np.empty(offsets[count], dtype=np.uint8)
    masks = np.zeros((3, count), dtype=np.uint32)
    trick_ids = np.empty(n_tricks, dtype=np.int64)
    trick = np.empty((6, n_tricks), dtype=np.uint8)  # TRICK_SMALL_COLUMNS
    call_ids = np.empty(n_rows, dtype=np.int64)
    call = np.empty((2, n_rows), dtype=np.uint8)      # call_no, seat
    kind = np.empty(n_rows, dtype=np.int32)           # index into CALL_KINDS: bid hold pass
    value = np.empty(n_rows, dtype=np.int16)
    is_pass = np.empty(n_rows, dtype=np.bool_)
    row = 0
    crow = 0
    for i in range(count):
        if text_rows[i]:
            _encode_row(i, n_calls, calls, call_seats, game, discard, cards, winners, cols,
                        card_names, decl_names, decl_lens, text, offsets[i], True)
        for part in range(3):
            mask = 0
            for k in range(10 * part, 10 * part + 10):
                mask |= 1 << int(deal[i, k])
            masks[part, i] = mask
        gid = ids[i]
        leader = 0
        for t in range(int(game[i, cols[_C_NCARDS]]) // 3):
            winner = int(winners[i, t])
            c0 = int(cards[i, 3 * t])
            c1 = int(cards[i, 3 * t + 1])
            c2 = int(cards[i, 3 * t + 2])
            trick_ids[row] = gid
            trick[0, row] = t + 1
            trick[1, row] = leader
            trick[2, row] = c0
            trick[3, row] = c1
            trick[4, row] = c2
            trick[5, row] = winner
            leader = winner
            row += 1
        current = 0
        for k in range(n_calls[i]):
            code = calls[i, k]
            if code > current:
                current = code
            call_ids[crow] = gid
            call[0, crow] = k + 1
            call[1, crow] = call_seats[i, k]
            kind[crow] = 2 if code == 0 else (1 if code == 1 else 0)
            value[crow] = current  # a hold repeats the bid it holds; null for a pass
            is_pass[crow] = code == 0
            crow += 1
    return (offsets, text, masks, trick_ids, trick, call_ids, call, kind, value, is_pass)


@dataclass(frozen=True)
class BatchRows:
    """The row arrays of a simulated batch, ready to wrap as Arrow columns (no copy).

    ``masks[part]`` is the ``forehand_cards`` .. ``rearhand_cards`` column; ``trick[k]`` the
    :data:`TRICK_SMALL_COLUMNS` column ``k`` of the ``tricks`` rows (``trick_ids`` their
    game ids); ``call[0]``/``call[1]`` the ``auction`` rows' call_no and seat, ``kind`` an
    index into (bid, hold, pass), ``value`` the bid named or held (null where ``is_pass``).
    """

    ids: np.ndarray
    offsets: np.ndarray
    text: np.ndarray
    masks: np.ndarray
    trick_ids: np.ndarray
    trick: np.ndarray
    call_ids: np.ndarray
    call: np.ndarray
    kind: np.ndarray
    value: np.ndarray
    is_pass: np.ndarray


def batch_rows(batch: BatchGames, ids: np.ndarray, text_rows: np.ndarray) -> BatchRows:
    """All row arrays of ``batch`` whose games get ``ids``; the moves text of the hands
    ``text_rows`` (a bool array) marks."""
    b = batch
    return BatchRows(ids, *_batch_rows(
        ids, b.deal, b.n_calls, b.calls, b.call_seats, b.game, b.discard, b.cards, b.winners,
        np.ascontiguousarray(text_rows, dtype=np.bool_), COLUMNS_READ, CARD_NAME_T,
        DECL_NAME_T, DECL_LEN_T))


#: Column names of :attr:`BatchRows.trick`, in order.
TRICK_SMALL_COLUMNS = ("trick_no", "leader", "card1", "card2", "card3", "winner")


