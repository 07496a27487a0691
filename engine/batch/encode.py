"""Compiled text and id encoders for simulated hands (no Python loop per hand).

:func:`moves_text` writes every hand's move list in the archive's compact notation
(``skatlog.ingest.schema.encode_moves``: ``"1p 2p 018 0s 0dST.H8 0=C 0CJ ..."``) as one UTF-8
buffer plus offsets, ready to become an Arrow string column; a test holds it equal to
``encode_moves``. :func:`game_ids` derives each simulated game's 64-bit id from its content
(deal, moves, seed and bots), so the same run stored twice is recognised as duplicates.
"""

from __future__ import annotations

import numpy as np

from ..cards import DECK
from ..contract import Contract, Declaration
from .jit import njit
from .kernel import GAME_COLUMNS
from .tables import DECL_T

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
_COL_DECLARER = GAME_COLUMNS.index("declarer")
_COL_PICKUP = GAME_COLUMNS.index("pickup")
_COL_FIRST = GAME_COLUMNS.index("declare_first")
_COL_DECL = GAME_COLUMNS.index("decl")
_COL_NCARDS = GAME_COLUMNS.index("n_cards")


@njit
def _int_text(out: np.ndarray, pos: int, value: int, write: bool) -> int:
    """Decimal digits of a positive ``value`` at ``pos``; returns the new position."""
    digits = 1 if value < 10 else (2 if value < 100 else 3)
    if write:
        for k in range(digits - 1, -1, -1):
            out[pos + k] = 48 + value % 10
            value //= 10
    return pos + digits


@njit
def _encode_row(i: int, n_calls: np.ndarray, calls: np.ndarray, call_seats: np.ndarray,
                game: np.ndarray, discard: np.ndarray, cards: np.ndarray,
                winners: np.ndarray, out: np.ndarray, pos: int, write: bool) -> int:
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
    decl = game[i, _COL_DECL]
    if decl < 0:
        return pos
    d = game[i, _COL_DECLARER]
    # the declarer's steps: declare (2) alone, or pick up (0), then discard (1) and declare
    # in the order they were made; packed as base-4 digits, no array per row
    n_steps = 1
    steps = 2
    if game[i, _COL_PICKUP]:
        n_steps = 3
        steps = 0 + 4 * 2 + 16 * 1 if game[i, _COL_FIRST] else 0 + 4 * 1 + 16 * 2
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
                out[pos + 1] = CARD_NAME_T[a, 0]
                out[pos + 2] = CARD_NAME_T[a, 1]
                out[pos + 3] = 46  # .
                out[pos + 4] = CARD_NAME_T[b, 0]
                out[pos + 5] = CARD_NAME_T[b, 1]
            pos += 6
        else:
            if write:
                out[pos] = 61  # =
                for k in range(DECL_LEN_T[decl]):
                    out[pos + 1 + k] = DECL_NAME_T[decl, k]
            pos += 1 + DECL_LEN_T[decl]
    if not write:
        return pos + 4 * game[i, _COL_NCARDS]
    leader = 0
    for k in range(game[i, _COL_NCARDS]):
        trick = k // 3
        seat = (leader + k % 3) % 3
        if write:
            card = cards[i, k]
            out[pos] = 32
            out[pos + 1] = 48 + seat
            out[pos + 2] = CARD_NAME_T[card, 0]
            out[pos + 3] = CARD_NAME_T[card, 1]
        pos += 4
        if k % 3 == 2:
            leader = winners[i, trick]
    return pos


@njit(nogil=True)
def _moves_text(n_calls: np.ndarray, calls: np.ndarray, call_seats: np.ndarray,
                game: np.ndarray, discard: np.ndarray, cards: np.ndarray,
                winners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    count = game.shape[0]
    offsets = np.zeros(count + 1, dtype=np.int32)
    scratch = np.zeros(1, dtype=np.uint8)
    for i in range(count):
        offsets[i + 1] = offsets[i] + _encode_row(i, n_calls, calls, call_seats, game,
                                                  discard, cards, winners, scratch, 0, False)
    out = np.empty(offsets[count], dtype=np.uint8)
    for i in range(count):
        _encode_row(i, n_calls, calls, call_seats, game, discard, cards, winners, out,
                    offsets[i], True)
    return offsets, out


def moves_text(batch: object) -> tuple[np.ndarray, np.ndarray]:
    """(int32 offsets, UTF-8 bytes) of every hand's compact move list."""
    b = batch
    return _moves_text(b.n_calls, b.calls, b.call_seats, b.game,  # type: ignore[attr-defined]
                       b.discard, b.cards, b.winners)  # type: ignore[attr-defined]


_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_S33 = np.uint64(33)
_M = np.uint64(0xFF51AFD7ED558CCD)


@njit(nogil=True)
def _game_ids(deal: np.ndarray, offsets: np.ndarray, text: np.ndarray, seed: int,
              salt: int, bots: np.ndarray) -> np.ndarray:
    count = deal.shape[0]
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        h = ((_FNV_OFFSET ^ np.uint64(seed)) * _FNV_PRIME ^ np.uint64(salt)) * _FNV_PRIME
        for k in range(32):
            h = (h ^ np.uint64(deal[i, k])) * _FNV_PRIME
        for k in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(text[k])) * _FNV_PRIME
        for k in range(bots.shape[1]):
            h = (h ^ np.uint64(bots[i, k] + 1)) * _FNV_PRIME
        h = (h ^ (h >> _S33)) * _M
        h = h ^ (h >> _S33)
        out[i] = np.int64(h)
    return out


def game_ids(deal: np.ndarray, offsets: np.ndarray, text: np.ndarray, seed: int,
             bots_by_seat: np.ndarray, salt: int = 0) -> np.ndarray:
    """64-bit content ids: FNV-1a over seed, ``salt`` (run options such as sessions), deal,
    moves text and each seat's bot code, finished with a 64-bit mixer."""
    return _game_ids(deal, offsets, text, seed, salt, bots_by_seat)


@njit(nogil=True)
def _hand_masks(deal: np.ndarray) -> np.ndarray:
    """``[n, 4]`` uint32 card masks of Forehand, Middlehand, Rearhand and the skat."""
    count = deal.shape[0]
    out = np.zeros((count, 4), dtype=np.uint32)
    for i in range(count):
        for k in range(32):
            part = 3 if k >= 30 else k // 10
            out[i, part] |= np.uint32(1) << np.uint32(deal[i, k])
    return out


def hand_masks(deal: np.ndarray) -> np.ndarray:
    """The deal as 32-bit masks (bit ``c`` set when card ``c`` is held), one column per
    hand and one for the skat: the archive's ``forehand_cards`` .. ``skat_cards``."""
    return _hand_masks(deal)


@njit(nogil=True)
def _trick_rows(ids: np.ndarray, cards: np.ndarray, winners: np.ndarray,
                points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    count = winners.shape[0]
    total = 0
    for i in range(count):
        for t in range(10):
            if winners[i, t] >= 0:
                total += 1
    game_id = np.empty(total, dtype=np.int64)
    small = np.empty((10, total), dtype=np.uint8)  # trick_no leader c1 c2 c3 s1 s2 s3 win pts
    row = 0
    for i in range(count):
        leader = 0
        for t in range(10):
            winner = winners[i, t]
            if winner < 0:
                break
            game_id[row] = ids[i]
            small[0, row] = t + 1
            small[1, row] = leader
            pts = 0
            for k in range(3):
                card = cards[i, 3 * t + k]
                small[2 + k, row] = card
                small[5 + k, row] = (leader + k) % 3
                pts += points[card]
            small[8, row] = winner
            small[9, row] = pts
            leader = winner
            row += 1
    return game_id, small


#: Column names of the ``small`` array :func:`trick_rows` returns, in order.
TRICK_SMALL_COLUMNS = ("trick_no", "leader", "card1", "card2", "card3", "seat1", "seat2",
                       "seat3", "winner", "points")


def trick_rows(ids: np.ndarray, cards: np.ndarray, winners: np.ndarray,
               points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``tricks`` rows of a batch: (game_id per row, uint8 ``[10, rows]`` array of the
    :data:`TRICK_SMALL_COLUMNS`), one row per completed trick in play order."""
    return _trick_rows(ids, cards, winners, points)


@njit(nogil=True)
def _auction_rows(ids: np.ndarray, n_calls: np.ndarray, calls: np.ndarray,
                  call_seats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                   np.ndarray, np.ndarray]:
    count = n_calls.shape[0]
    total = 0
    for i in range(count):
        total += n_calls[i]
    game_id = np.empty(total, dtype=np.int64)
    small = np.empty((2, total), dtype=np.uint8)  # call_no, seat
    kind = np.empty(total, dtype=np.int32)        # index into CALL_KINDS: bid hold pass
    value = np.empty(total, dtype=np.int16)
    is_pass = np.empty(total, dtype=np.bool_)
    row = 0
    for i in range(count):
        current = 0
        for k in range(n_calls[i]):
            code = calls[i, k]
            if code > current:
                current = code
            game_id[row] = ids[i]
            small[0, row] = k + 1
            small[1, row] = call_seats[i, k]
            kind[row] = 2 if code == 0 else (1 if code == 1 else 0)
            value[row] = current  # a hold repeats the bid it holds; null for a pass
            is_pass[row] = code == 0
            row += 1
    return game_id, small, kind, value, is_pass


def auction_rows(ids: np.ndarray, n_calls: np.ndarray, calls: np.ndarray,
                 call_seats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray, np.ndarray]:
    """The ``auction`` rows of a batch: (game_id, uint8 ``[2, rows]`` call_no and seat,
    int32 kind index (bid, hold, pass), int16 value, pass mask for the null values)."""
    return _auction_rows(ids, n_calls, calls, call_seats)
