"""The compiled ISS kernel: parse and replay every record line of a byte chunk with numba.

One call of :func:`scan_chunk` walks a chunk of raw ISS bytes line by line. For each record
(``(;`` ... ``;)`` on one line) it reads the tags, replays the ``MV`` moves by the rules core
(:mod:`skatlog.engine.core`: R3/R4 auction steps, R5-R7 declaration checks, R8 legal cards and
trick winner, R9/R17 endings, R12 matadors, R10-R16 score) under the rule set's flags, and
compares the result with the recorded ``R[...]``. This module knows the ISS notation and the
bookkeeping of a replay, no rule. It writes one row per line into preallocated arrays (see
the ``F_*`` column indices below).

The kernel decides only what it is sure of: status ``OK`` means the engine would accept the
game and compute exactly these values, and the recorded result agrees with them. Every other
status (a rule error, a ``??`` card, a value that differs from the record, anything unusual)
sends the line to the slow path, the reference validator, which gives the precise diagnosis;
except a revoke, a card not held or a ``??`` card in the card play that the reference is sure
to reject the same way (``F_DECIDED``, :func:`_decided`), and a played game whose recorded
result differs (its key and move text kept), whose verdicts
:mod:`skatlog.ingest.fast.verdicts` builds without the slow path.
"""

# The kernel is numba code: plain comparisons and loops compile, `in (...)`/all() do not.
# _game_line and _replay are inlined (inline="always"): a call passing their ~30 arrays costs
# reference counting on every argument, which measured ~2 us per record line.
# ruff: noqa: SIM109, SIM110

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from skatlog.engine import core
from skatlog.engine.bits import ctpop, cttz
from skatlog.engine.rules import ISKO_ISS

#: The rule set ISS records are read under unless the caller says otherwise (R17, R18, R7).
ISS_FLAGS = ISKO_ISS.flags

# ------------------------------------------------------------------ status codes
OK = 0
# 1..12 follow skatlog.ingest.model.ERROR_CODES (index + 1).
SYNTAX = 1
TRUNCATED = 2
BAD_DEAL = 3
ILLEGAL_BID = 4
WRONG_PLAYER = 5
WRONG_PHASE = 6
ILLEGAL_DECLARATION = 7
CARD_NOT_IN_HAND = 8
REVOKE = 9
PLAY_AFTER_END = 10
CORRUPT_CARD = 11
SCORE_MISMATCH = 12
#: The replay is legal but the recorded result differs in some field: the slow path classifies.
RESULT_DIFFERS = 20
#: Something the kernel does not decide (an escape in a value the game reads, ouvert card
#: lists, off-ladder bids, ...).
UNSURE = 21
#: Not a complete one-line record (part of a multi-line record, or junk): slow path.
FRAGMENT = 22
#: A blank or comment line: no game at all.
NO_GAME = 23

# ------------------------------------------------------------------ outcome / ending codes
OUT_PLAYED, OUT_PASSED, OUT_PENALTY = 0, 1, 2
# The rules core's endings (the order of skatlog.engine.game.Ending).
END_ALL_PASSED = core.END_ALL_PASSED
END_TEN_TRICKS = core.END_TEN_TRICKS
END_NULL_TRICK = core.END_NULL_TRICK
END_DEFENDERS_TRICK = core.END_DEFENDERS_TRICK
END_DEFENDERS_31 = core.END_DEFENDERS_31
END_DECLARER_RESIGNED = core.END_DECLARER_RESIGNED
END_DEFENDERS_RESIGNED = core.END_DEFENDERS_RESIGNED
END_DECLARER_ABSENT = core.END_DECLARER_ABSENT
END_DEFENDER_ABSENT = core.END_DEFENDER_ABSENT
END_PENALTY = core.END_PENALTY

# ------------------------------------------------------------------ per-game int32 columns
F_LINE = 0  # 0-based line index within the chunk
F_START = 1  # byte offset of the line in the chunk
F_END = 2
F_STATUS = 3
F_ERR_MOVE = 4  # move number of the first problem (deal = 0), -1 if none
F_OUTCOME = 5
F_ENDING = 6
F_DECLARER = 7  # -1 when nobody declared
F_CONTRACT = 8  # -1 when no game was declared
F_HAND = 9
F_SCHN_ANN = 10
F_SCHW_ANN = 11
F_OUVERT = 12
F_SKAT_TAKEN = 13
F_BID = 14
F_MATADORS = 15
F_DPOINTS = 16
F_DTRICKS = 17
F_DEFPOINTS = 18
F_DEFTRICKS = 19
F_SCHNEIDER = 20
F_SCHWARZ = 21
F_WON = 22
F_OVERBID = 23
F_VALUE = 24
F_GAME_VALUE = 25
F_MULT = 26
F_NTRICKS = 27
F_CALL_OFF = 28  # first auction call in the flat call arrays
F_CALL_N = 29
F_DISC0 = 30  # discarded cards, -1 if none
F_DISC1 = 31
F_REC_KIND = 32  # 0 no R tag, 1 passed, 2 unknown, 3 fields
F_REC_D = 33
F_REC_WIN = 34  # 1 win, 0 loss, 2 penalty, -1 absent
F_REC_V = 35
F_REC_M = 36
F_REC_OVERBID = 37  # 1 overbid, 0 bidok, -1 absent
F_REC_P = 38
F_REC_T = 39
F_REC_S = 40
F_REC_Z = 41
F_DT_DAY = 42  # DT as days since 1970-01-01 and seconds of the day; -1 if missing
F_DT_SEC = 43
F_NMOVES = 44
F_KEY_S = 45  # game-id key (deal, moves, players, date, ids) in the key buffer
F_KEY_E = 46
F_MOVES_S = 47  # the compact move notation (skatlog.ingest.moves_codec) inside the key
F_MOVES_E = 48
F_EXT_S = 49  # the ``extra`` JSON (other tags) in the extra buffer
F_EXT_E = 50
F_R_S = 51  # the raw R[...] text in the chunk, -1 if absent
F_R_E = 52
F_DT_S = 53  # the DT value in the chunk
F_DT_E = 54
# A rule error the kernel settles itself (:func:`_decided`): 1 when the status is the
# reference validator's verdict too; the seat, card, the card led, the seat's hand (two
# 16-bit halves) and the contract at that move, for the verdict's message.
F_DECIDED = 55
F_ERR_SEAT = 56
F_ERR_CARD = 57
F_ERR_LED = 58
F_ERR_HAND_LO = 59
F_ERR_HAND_HI = 60
F_ERR_CONTRACT = 61
N_FIELDS = 62

#: Statuses the kernel may settle (``F_DECIDED``): its verdict is the reference's.
DECIDED_STATUSES = (CARD_NOT_IN_HAND, REVOKE, CORRUPT_CARD)

#: Tags whose value offsets are kept (F_META[g, 2*i], F_META[g, 2*i+1]); -1 when missing.
META_TAGS = ("P0", "P1", "P2", "ID", "SE", "PC")
N_META = len(META_TAGS)

ABSENT = -(2**31)  # "not recorded" in the F_REC_* columns

# Per-trick columns (trick array [g, t, k]): the three cards in play order, leader, winner.
T_C0, T_C1, T_C2, T_LEADER, T_WINNER = 0, 1, 2, 3, 4
# Auction call kinds.
CALL_BID, CALL_HOLD, CALL_PASS = 0, 1, 2

PH_AUCTION, PH_SKAT, PH_DISCARD, PH_PLAY, PH_DONE = 0, 1, 2, 3, 4

MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
MAX_TAGS = 32


def tag_code(name: str) -> int:
    """A tag name (1-7 of ``A-Z0-9``) packed left-aligned into an int: sorts like the name."""
    code = 0
    for k in range(7):
        code = code * 256 + (ord(name[k]) if k < len(name) else 0)
    return code


TAG_MV, TAG_R, TAG_DT, TAG_GM = tag_code("MV"), tag_code("R"), tag_code("DT"), tag_code("GM")
TAG_P0, TAG_P1, TAG_P2 = tag_code("P0"), tag_code("P1"), tag_code("P2")
TAG_ID, TAG_SE, TAG_PC = tag_code("ID"), tag_code("SE"), tag_code("PC")
#: Tags that change how the slow path reads a record: never decided here.
TAG_OW, TAG_RU = tag_code("OW"), tag_code("RU")
#: The words of an ISS result R[...].
RESULT_WORDS = ("passed", "unknown", "win", "loss", "penalty", "bidok", "overbid")


# Every index into the line and the output buffers goes through _u: numba wraps a negative
# signed index around (``buf[-1]``, the last byte), which costs a shift, a mask and an add on
# each byte read or written and keeps the buffer's length in a register; an unsigned index
# has no wraparound. No index here is ever negative (kernel CPU -12%).
@njit(inline="always")
def _u(i):
    """``i`` (never negative) as an unsigned array index."""
    return np.uint64(i)


@njit(cache=True)
def _is_space(b):
    return b == 32 or b == 9 or b == 10 or b == 13


#: Byte lanes of a 64-bit word: the search below reads a word where a byte at a time was the
#: kernel's hottest loop (finding a tag's ``]``: a quarter of its time). Little-endian CPUs
#: only (x86-64, arm64); elsewhere it reads byte by byte.
_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)
_BY_WORD = sys.byteorder == "little"


@njit(inline="always")
def _zero_bytes(x):
    """High bit set in each byte of ``x`` that is 0, exact up to its lowest zero byte."""
    return (x - _ONES) & ~x & _HIGHS


@njit(inline="always")
def _find(buf, lanes, i, end, a, b):
    """The first index in ``[i, end)`` whose byte is ``a`` or ``b``, else ``end``.

    ``lanes`` is ``buf`` as 64-bit words (its whole words): where ``i`` sits at a word's
    start and the word lies before ``end``, eight bytes are tested at once."""
    spread_a = np.uint64(a) * _ONES
    spread_b = np.uint64(b) * _ONES
    while i < end:
        if _BY_WORD and (i & 7) == 0 and i + 8 <= end:
            word = lanes[_u(i >> 3)]
            hit = _zero_bytes(word ^ spread_a) | _zero_bytes(word ^ spread_b)
            if hit == 0:
                i += 8
                continue
            return i + np.int64(cttz(hit) >> np.uint64(3))
        c = buf[_u(i)]
        if c == a or c == b:
            return i
        i += 1
    return end


@njit(cache=True)
def _open_cards(hands, trick, ntrick_cards):
    """The cards not yet won: the three hands and the unfinished trick (R17 concessions)."""
    rem = hands[0] | hands[1] | hands[2]
    for k in range(ntrick_cards):
        rem |= np.int64(1) << trick[k]
    return rem


@njit(cache=True)
def _parse_int(buf, s, e):
    """A signed decimal integer in buf[s:e]; returns (ok, value). No leading zeros allowed."""
    if s >= e:
        return False, 0
    neg = False
    if buf[_u(s)] == 45:  # '-'
        neg = True
        s += 1
        if s >= e:
            return False, 0
    if e - s > 9:
        return False, 0
    if buf[_u(s)] == 48 and e - s > 1:
        return False, 0
    v = 0
    for i in range(s, e):
        d = buf[_u(i)] - 48
        if d < 0 or d > 9:
            return False, 0
        v = v * 10 + d
    return True, -v if neg else v


@njit(cache=True)
def _days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    mp = (m + 9) % 12
    doy = (153 * mp + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


@njit(cache=True)
def _digits(buf, s, e):
    """The unsigned number in buf[s:e] (leading zeros allowed); -1 if not all digits."""
    v = 0
    for i in range(s, e):
        d = buf[_u(i)] - 48
        if d < 0 or d > 9:
            return -1
        v = v * 10 + d
    return v


@njit(cache=True)
def _parse_dt(buf, s, e, row):
    """``YYYY-MM-DD/HH:MM:SS/UTC`` into F_DT_DAY/F_DT_SEC; False unless exactly that form
    with a real date (anything else is left to the slow path's reader)."""
    if e - s != 23:
        return False
    if buf[_u(s + 4)] != 45 or buf[_u(s + 7)] != 45 or buf[_u(s + 10)] != 47 \
            or buf[_u(s + 13)] != 58 or buf[_u(s + 16)] != 58 or buf[_u(s + 19)] != 47 \
            or buf[_u(s + 20)] != 85 or buf[_u(s + 21)] != 84 or buf[_u(s + 22)] != 67:
        return False
    y = _digits(buf, s, s + 4)
    mo = _digits(buf, s + 5, s + 7)
    d = _digits(buf, s + 8, s + 10)
    hh = _digits(buf, s + 11, s + 13)
    mi = _digits(buf, s + 14, s + 16)
    ss = _digits(buf, s + 17, s + 19)
    if y < 1 or mo < 1 or mo > 12 or d < 1 or hh < 0 or hh > 23 or mi < 0 or mi > 59 \
            or ss < 0 or ss > 59:
        return False
    leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
    mdays = 29 if mo == 2 and leap else MONTH_DAYS[mo - 1]
    if d > mdays:
        return False
    row[F_DT_DAY] = _days_from_civil(y, mo, d)
    row[F_DT_SEC] = hh * 3600 + mi * 60 + ss
    return True


@njit(cache=True)
def _is_word(buf, s, e, word):
    """True when buf[s:e] is exactly the bytes of ``word`` (a uint8 array)."""
    if e - s != word.shape[0]:
        return False
    for k in range(e - s):
        if buf[_u(s + k)] != word[k]:
            return False
    return True


@njit(cache=True)
def _parse_result(buf, s, e, row, words):
    """The ``R[...]`` fields into the F_REC_* columns.

    Returns False (the kernel is not sure) on anything beyond the plain archive form, so that
    the slow path's reader decides: unknown words, bad numbers, contradicting flags.
    ``words``: passed, unknown, win, loss, penalty, bidok, overbid as uint8 arrays.
    """
    row[F_REC_KIND] = 3
    i = s
    ntok = 0
    special = False
    while i < e:
        while i < e and _is_space(buf[_u(i)]):
            i += 1
        if i >= e:
            break
        j = i
        colon = -1
        while j < e and not _is_space(buf[_u(j)]):
            if buf[_u(j)] == 58 and colon < 0:
                colon = j
            j += 1
        ntok += 1
        c0 = buf[_u(i)]
        if colon >= 0:
            ok, v = _parse_int(buf, colon + 1, j)
            if not ok:
                return False
            if colon == i + 1:
                if c0 == 100:
                    row[F_REC_D] = v
                elif c0 == 118:
                    row[F_REC_V] = v
                elif c0 == 109:
                    row[F_REC_M] = v
                elif c0 == 112:
                    row[F_REC_P] = v
                elif c0 == 116:
                    row[F_REC_T] = v
                elif c0 == 115:
                    row[F_REC_S] = v
                elif c0 == 122:
                    row[F_REC_Z] = v
        elif _is_word(buf, i, j, words[0]) or _is_word(buf, i, j, words[1]):
            special = True
            row[F_REC_KIND] = 1 if c0 == 112 else 2
        elif _is_word(buf, i, j, words[2]) or _is_word(buf, i, j, words[3]) \
                or _is_word(buf, i, j, words[4]):
            if row[F_REC_WIN] != -1:
                return False
            row[F_REC_WIN] = 1 if c0 == 119 else (0 if c0 == 108 else 2)
        elif _is_word(buf, i, j, words[5]) or _is_word(buf, i, j, words[6]):
            if row[F_REC_OVERBID] != -1:
                return False
            row[F_REC_OVERBID] = 0 if c0 == 98 else 1
        else:
            return False
        i = j
    if special and ntok != 1:
        return False
    if ntok == 0:
        row[F_REC_KIND] = 2
    return True


@njit(cache=True)
def _fail(row, status, move):
    row[F_STATUS] = status
    row[F_ERR_MOVE] = move
    return status


@njit(inline="always")
def _next_pair(buf, i, me):
    """The next ``<who> <action>`` pair of an MV value from ``buf[i]``: the who's start and
    end, the action's start and end, and where reading goes on. The who's start is -1 at
    the end of the list, the action's start -1 when a who has no action after it."""
    # The common case first, " <seat> <XX>" with single spaces (a card, a two-digit bid):
    # five fixed bytes, where the loops below branch on every byte's kind. A byte above 32
    # is never a space (_is_space), so this gives what the loops give.
    if i + 5 <= me and buf[_u(i)] == 32 and buf[_u(i + 1)] > 32 and buf[_u(i + 2)] == 32 \
            and buf[_u(i + 3)] > 32 and buf[_u(i + 4)] > 32 \
            and (i + 5 == me or buf[_u(i + 5)] == 32):
        return i + 1, i + 2, i + 3, i + 5, i + 5
    while i < me and _is_space(buf[_u(i)]):
        i += 1
    if i >= me:
        return -1, -1, -1, -1, i
    ws = i
    while i < me and not _is_space(buf[_u(i)]):
        i += 1
    we = i
    while i < me and _is_space(buf[_u(i)]):
        i += 1
    if i >= me:
        return ws, we, -1, -1, i
    as_ = i
    while i < me and not _is_space(buf[_u(i)]):
        i += 1
    return ws, we, as_, i, i


@njit(cache=True)
def _decided(row, status, move, seat, card, led, hand, contract, clean, buf, i, me, card_code):
    """Fail with a rule error found in the card play, and settle it (``F_DECIDED``) when the
    reference validator is sure to give the same verdict.

    The reference reader parses the whole move list before it replays a move, so a fault
    that reading finds later in the list wins over a rule error. Here the rest of the list
    (from ``buf[i]``) must be plain card plays, ``<seat> <card>``; a ``??`` card among them
    is that reader's verdict instead (``corrupt_card`` at its move, where reading stops).
    Anything else in the rest (a resignation, a bid, an odd token) leaves the record to the
    slow path, as does ``clean`` False (an off-ladder bid before: the reader warns of it).
    ``status`` CORRUPT_CARD (a ``??`` played) is settled as it stands: reading stops there.
    """
    row[F_STATUS] = status
    row[F_ERR_MOVE] = move
    if not clean:
        return status
    row[F_ERR_SEAT] = seat
    row[F_ERR_CARD] = card
    row[F_ERR_LED] = led
    row[F_ERR_HAND_LO] = hand & 0xFFFF
    row[F_ERR_HAND_HI] = (hand >> 16) & 0xFFFF
    row[F_ERR_CONTRACT] = contract
    if status != CORRUPT_CARD:
        while True:
            ws, we, as_, ae, i = _next_pair(buf, i, me)
            if ws < 0:
                break
            if as_ < 0:
                return status  # a player without a move: the reader's syntax error
            move += 1
            if we - ws != 1 or buf[_u(ws)] < 48 or buf[_u(ws)] > 50 or ae - as_ != 2:
                return status
            if buf[_u(as_)] == 63 and buf[_u(as_ + 1)] == 63:
                row[F_STATUS] = CORRUPT_CARD
                row[F_ERR_MOVE] = move
                row[F_DECIDED] = 1
                return CORRUPT_CARD
            if card_code[buf[_u(as_)], buf[_u(as_ + 1)]] < 0:
                return status
    row[F_DECIDED] = 1
    return status


# The key and call cursors live in local variables (``kp``, ``cp``) while a line is read, and
# go back to ``cur`` once: numba tells LLVM nothing about aliasing, so a byte stored in ``kb``
# made it reload ``cur[0]`` for the next one, a chain through memory on every byte written.
@njit(inline="always")
def _put2(kb, kp, b0, b1):
    """Two bytes at ``kb[kp]``; the new end."""
    kb[_u(kp)] = b0
    kb[_u(kp + 1)] = b1
    return kp + 2


@njit(inline="always")
def _tok(kb, kp, first, seat):
    """Start a move token at ``kb[kp]``: a space unless it is the first (``kp == first``, where
    the move text starts), then the seat digit; the new end."""
    if kp != first:
        kb[_u(kp)] = 32
        kp += 1
    kb[_u(kp)] = 48 + seat
    return kp + 1


@njit(inline="always")
def _put_discard(kb, kp, first, seat, c1, c2, card_name):
    """The discard token ``<seat>dXX.YY``; the new end."""
    kp = _tok(kb, kp, first, seat)
    kb[_u(kp)] = 100
    kb[_u(kp + 1)] = card_name[c1, 0]
    kb[_u(kp + 2)] = card_name[c1, 1]
    kb[_u(kp + 3)] = 46
    kb[_u(kp + 4)] = card_name[c2, 0]
    kb[_u(kp + 5)] = card_name[c2, 1]
    return kp + 6


@njit(cache=True, inline="always")
def _replay(buf, ms, me, row, deal_out, tricks_out, calls, kb, kp, cp, tabs, hands, taken_p,
            taken_t, trick, flags):
    """Replay the MV text buf[ms:me] into ``row`` under the rule-set ``flags``; returns the
    status, the key's end and the calls' end.

    Writes the deal (32 bytes), 0x1e and the compact move notation to ``kb`` from ``kp``
    and the auction calls to ``calls`` from ``cp``.
    """
    card_code, contract_code, card_name, contract_letter = tabs
    i = ms
    move = 0
    # ---- the deal: "w" then 32 cards
    while i < me and _is_space(buf[_u(i)]):
        i += 1
    if i + 1 >= me or buf[_u(i)] != 119 or not _is_space(buf[_u(i + 1)]):
        return _fail(row, SYNTAX, 0), kp, cp
    i += 1
    while i < me and _is_space(buf[_u(i)]):
        i += 1
    seen = 0
    ncards = 0
    while i < me and not _is_space(buf[_u(i)]):
        if i + 1 >= me:
            return _fail(row, SYNTAX, 0), kp, cp
        c = card_code[buf[_u(i)], buf[_u(i + 1)]]
        if c < 0:
            if buf[_u(i)] == 63 and buf[_u(i + 1)] == 63:
                return _fail(row, CORRUPT_CARD, 0), kp, cp
            return _fail(row, SYNTAX, 0), kp, cp
        if ncards >= 32:
            return _fail(row, BAD_DEAL, 0), kp, cp
        if (seen >> c) & 1:
            return _fail(row, BAD_DEAL, 0), kp, cp
        seen |= np.int64(1) << c
        deal_out[ncards] = c
        ncards += 1
        i += 2
        if i < me and (buf[_u(i)] == 46 or buf[_u(i)] == 124):  # '.', or '|' between the hands
            i += 1
            if i >= me or _is_space(buf[_u(i)]):
                return _fail(row, SYNTAX, 0), kp, cp
        elif i < me and not _is_space(buf[_u(i)]):
            return _fail(row, SYNTAX, 0), kp, cp
    if ncards != 32:
        return _fail(row, BAD_DEAL, 0), kp, cp
    for k in range(32):
        kb[_u(kp + k)] = deal_out[k]
    kb[_u(kp + 32)] = 30
    kp += 33
    first = kp  # where the move text starts
    for s in range(3):
        h = np.int64(0)
        for k in range(10):
            h |= np.int64(1) << deal_out[s * 10 + k]
        hands[s] = h
        taken_p[s] = 0
        taken_t[s] = 0
    skat_mask = (np.int64(1) << deal_out[30]) | (np.int64(1) << deal_out[31])

    # ---- state (the bookkeeping of skatlog.engine.game.GameState)
    phase = PH_AUCTION
    a_stage, a_speaker, a_listener, a_to_act, a_bid = core.AUCTION_START
    declarer = -1
    bid = 0
    skat_taken = False
    disc0, disc1 = -1, -1
    contract = -1
    hand = False
    schn_ann = False
    schw_ann = False
    ouvert = False
    ntricks = 0
    ntrick_cards = 0
    leader = 0
    resigned = 0  # bit per seat
    ending = -1
    decided = core.END_NONE  # R17: the decisive ending reached; the record may stop or go on
    credited_p = 0
    credited_t = 0
    extra_bid = False
    call_off = cp
    row[F_CALL_OFF] = call_off
    expect_skat = False  # the world's skat reveal must follow the pick-up

    while True:
        ws, we, as_, ae, i = _next_pair(buf, i, me)
        if ws < 0:
            break
        if as_ < 0:
            return _fail(row, SYNTAX, move + 1), kp, cp
        move += 1
        n = ae - as_
        if we - ws != 1:
            return _fail(row, SYNTAX, move), kp, cp
        who = buf[_u(ws)]
        b0 = buf[_u(as_)]
        if who == 119:  # 'w': the world
            if expect_skat:
                # "w XX.YY": the skat revealed after the pick-up; it must be the dealt skat.
                if n != 5 or buf[_u(as_ + 2)] != 46:
                    return _fail(row, UNSURE, move), kp, cp
                c1 = card_code[buf[_u(as_)], buf[_u(as_ + 1)]]
                c2 = card_code[buf[_u(as_ + 3)], buf[_u(as_ + 4)]]
                if c1 < 0 or c2 < 0 or c1 == c2 or not ((skat_mask >> c1) & 1) \
                        or not ((skat_mask >> c2) & 1):
                    return _fail(row, UNSURE, move), kp, cp
                expect_skat = False
                continue
            if n == 4 and buf[_u(as_ + 2)] == 46 and (
                (b0 == 84 and buf[_u(as_ + 1)] == 73) or (b0 == 76 and buf[_u(as_ + 1)] == 69)
            ):  # TI.n / LE.n (R17)
                if phase == PH_DONE:
                    return _fail(row, PLAY_AFTER_END, move), kp, cp
                seat = buf[_u(as_ + 3)] - 48
                if seat < 0 or seat > 2:
                    return _fail(row, UNSURE, move), kp, cp
                kp = _tok(kb, kp, first, seat)
                kp = _put2(kb, kp, b0, buf[_u(as_ + 1)])
                if contract < 0:
                    ending = END_PENALTY
                elif seat == declarer:
                    ending = END_DECLARER_ABSENT
                else:
                    ending = END_DEFENDER_ABSENT
                    credited_p, credited_t = core.concession_credit(
                        contract, _open_cards(hands, trick, ntrick_cards), skat_mask,
                        skat_taken and disc0 < 0, ntricks)
                if decided != core.END_NONE:
                    ending = decided  # a game already decided keeps its decisive ending
                phase = PH_DONE
                continue
            return _fail(row, UNSURE, move), kp, cp
        seat = who - 48
        if seat < 0 or seat > 2:
            return _fail(row, UNSURE, move), kp, cp
        expect_skat = False  # the skat's reveal is optional: a player's move may follow at once
        if phase == PH_DONE:
            return _fail(row, PLAY_AFTER_END, move), kp, cp
        # ---- auction calls (R3, R4)
        if (48 <= b0 <= 57) or (n == 1 and (b0 == 121 or b0 == 112)):
            if phase != PH_AUCTION:
                return _fail(row, WRONG_PHASE, move), kp, cp
            value = 0
            if b0 >= 48 and b0 <= 57:
                ok, value = _parse_int(buf, as_, ae)
                if not ok:
                    return _fail(row, SYNTAX, move), kp, cp
                kind = CALL_BID
                call = value if value > core.CALL_HOLD else 2  # 0 and 1 are no bids at all
            elif b0 == 121:
                kind = CALL_HOLD
                call = core.CALL_HOLD
            else:
                kind = CALL_PASS
                call = core.CALL_PASS
            error = core.auction_error(a_stage, a_listener, a_to_act, a_bid, seat, call, flags)
            if error == core.A_NOT_YOUR_TURN:
                return _fail(row, WRONG_PLAYER, move), kp, cp
            if error != 0:
                return _fail(row, ILLEGAL_BID, move), kp, cp
            if kind == CALL_BID and core.BID_KIND[value] == 2:
                extra_bid = True  # R18: accepted, with a warning the slow path writes
            calls[cp, 0] = seat
            calls[cp, 1] = kind
            calls[cp, 2] = a_bid if kind == CALL_HOLD else value
            cp += 1
            kp = _tok(kb, kp, first, seat)
            if kind == CALL_BID:
                for k in range(as_, ae):
                    kb[_u(kp)] = buf[_u(k)]
                    kp += 1
            else:
                kb[_u(kp)] = b0
                kp += 1
            a_stage, a_speaker, a_listener, a_to_act, a_bid, a_decl = core.auction_step(
                a_stage, a_speaker, a_listener, a_to_act, a_bid, seat, call)
            if a_stage == core.AUCTION_DONE:
                if a_decl < 0:
                    ending = END_ALL_PASSED
                    phase = PH_DONE
                else:
                    declarer = a_decl
                    bid = a_bid
                    phase = PH_SKAT
            continue
        if phase == PH_AUCTION:
            return _fail(row, WRONG_PHASE, move), kp, cp
        # ---- card play (R8)
        if n == 2 and card_code[b0, buf[_u(as_ + 1)]] >= 0:
            card = card_code[b0, buf[_u(as_ + 1)]]
            if phase != PH_PLAY:
                return _fail(row, WRONG_PHASE, move), kp, cp
            to_play = (leader + ntrick_cards) % 3
            if seat != to_play:
                return _fail(row, WRONG_PLAYER, move), kp, cp
            h = hands[seat]
            if not (h >> card) & 1:
                return _decided(row, CARD_NOT_IN_HAND, move, seat, card, -1, h, contract,
                                not extra_bid, buf, i, me, card_code), kp, cp
            if ntrick_cards > 0:
                legal = core.legal_cards(h, core.follow_mask(contract, trick[0]))
                if not (legal >> card) & 1:
                    return _decided(row, REVOKE, move, seat, card, trick[0], h, contract,
                                    not extra_bid, buf, i, me, card_code), kp, cp
            hands[seat] = h & ~(np.int64(1) << card)
            kp = _tok(kb, kp, first, seat)
            kp = _put2(kb, kp, b0, buf[_u(as_ + 1)])
            trick[ntrick_cards] = card
            ntrick_cards += 1
            if ntrick_cards == 3:
                winner = (leader + core.trick_winner(contract, trick[0], trick[1], trick[2])) % 3
                pts = core.trick_points(trick[0], trick[1], trick[2])
                tricks_out[ntricks, 0] = trick[0]
                tricks_out[ntricks, 1] = trick[1]
                tricks_out[ntricks, 2] = trick[2]
                tricks_out[ntricks, 3] = leader
                tricks_out[ntricks, 4] = winner
                ntricks += 1
                taken_p[winner] += pts
                taken_t[winner] += 1
                ntrick_cards = 0
                leader = winner
                reached, over = core.after_trick(
                    contract, schn_ann, schw_ann, declarer, winner, ntricks,
                    taken_p[0] + taken_p[1] + taken_p[2] - taken_p[declarer], decided, flags)
                if over:  # R9: the null declarer took a trick; or ten tricks
                    ending = reached
                    phase = PH_DONE
                elif reached != core.END_NONE:
                    decided = reached  # R17: decided; the record may stop here or play on
            continue
        if n == 2 and b0 == 63 and buf[_u(as_ + 1)] == 63:  # "<seat> ??": reading stops here
            return _decided(row, CORRUPT_CARD, move, seat, -1, -1, 0, contract, not extra_bid,
                            buf, i, me, card_code), kp, cp
        # ---- RE (resign) and SC (show cards), R17
        if n == 2 and b0 == 82 and buf[_u(as_ + 1)] == 69:
            if contract < 0:
                return _fail(row, WRONG_PHASE, move), kp, cp
            kp = _tok(kb, kp, first, seat)
            kp = _put2(kb, kp, 82, 69)
            if seat == declarer:
                ending = decided if decided != core.END_NONE else END_DECLARER_RESIGNED
                phase = PH_DONE
            else:
                resigned |= 1 << seat
                if ctpop(resigned) == 2:
                    credited_p, credited_t = core.concession_credit(
                        contract, _open_cards(hands, trick, ntrick_cards), skat_mask,
                        skat_taken and disc0 < 0, ntricks)
                    ending = decided if decided != core.END_NONE else END_DEFENDERS_RESIGNED
                    phase = PH_DONE
            continue
        if n == 2 and b0 == 83 and buf[_u(as_ + 1)] == 67:
            if seat != declarer:
                return _fail(row, WRONG_PLAYER, move), kp, cp
            if contract < 0:
                return _fail(row, WRONG_PHASE, move), kp, cp
            kp = _tok(kb, kp, first, seat)
            kp = _put2(kb, kp, 83, 67)
            continue
        # ---- pick up the skat (R5)
        if n == 1 and b0 == 115:
            if seat != declarer:
                return _fail(row, WRONG_PLAYER, move), kp, cp
            if phase != PH_SKAT:
                return _fail(row, WRONG_PHASE, move), kp, cp
            skat_taken = True
            kp = _tok(kb, kp, first, seat)
            kb[_u(kp)] = 115
            kp += 1
            hands[declarer] |= skat_mask
            phase = PH_DISCARD
            expect_skat = True
            continue
        # ---- a bare discard "XX.YY" (the split form's second half)
        if n == 5 and buf[_u(as_ + 2)] == 46 and card_code[b0, buf[_u(as_ + 1)]] >= 0:
            c1 = card_code[b0, buf[_u(as_ + 1)]]
            c2 = card_code[buf[_u(as_ + 3)], buf[_u(as_ + 4)]]
            if c2 < 0:
                return _fail(row, UNSURE, move), kp, cp
            if seat != declarer:
                return _fail(row, WRONG_PLAYER, move), kp, cp
            if phase != PH_DISCARD or disc0 >= 0:
                return _fail(row, WRONG_PHASE, move), kp, cp
            if c1 == c2:
                return _fail(row, ILLEGAL_DECLARATION, move), kp, cp
            if not (hands[declarer] >> c1) & 1 or not (hands[declarer] >> c2) & 1:
                return _fail(row, CARD_NOT_IN_HAND, move), kp, cp
            disc0, disc1 = c1, c2
            kp = _put_discard(kb, kp, first, seat, c1, c2, card_name)
            hands[declarer] &= ~((np.int64(1) << c1) | (np.int64(1) << c2))
            if contract >= 0:
                phase = PH_PLAY
                leader = 0
            continue
        # ---- a declaration, possibly with discards "D.ST.H8" (R5-R7)
        con = contract_code[b0]
        if con < 0:
            return _fail(row, SYNTAX, move), kp, cp
        k = as_ + 1
        m_h = m_s = m_z = m_o = 0
        while k < ae and buf[_u(k)] != 46:
            ch = buf[_u(k)]
            if ch == 72:
                m_h += 1
            elif ch == 83:
                m_s += 1
            elif ch == 90:
                m_z += 1
            elif ch == 79:
                m_o += 1
            else:
                return _fail(row, SYNTAX, move), kp, cp
            k += 1
        if m_h > 1 or m_s > 1 or m_z > 1 or m_o > 1:
            return _fail(row, SYNTAX, move), kp, cp
        d_o = m_o == 1
        d_hand, d_s, d_z = core.normalize_declaration(con, m_h == 1, m_s == 1, m_z == 1, d_o)
        # trailing cards ".XX.YY...": after a pick-up the two discards, and an ouvert game's ten
        # open cards may follow (12 in all); in a hand game (or after the discard) ten open
        # cards or none. The open cards are shown, not moves (the reader keeps none of them).
        nd = 0
        dc1 = -1
        dc2 = -1
        if k < ae:
            n_listed = (ae - k) // 3
            if (ae - k) % 3 != 0:
                return _fail(row, UNSURE, move), kp, cp
            for j in range(n_listed):
                if buf[_u(k + 3 * j)] != 46 \
                        or card_code[buf[_u(k + 3 * j + 1)], buf[_u(k + 3 * j + 2)]] < 0:
                    return _fail(row, UNSURE, move), kp, cp  # not a plain card list: slow path
            if phase == PH_DISCARD and disc0 < 0:
                if n_listed != 2 and n_listed != 12:
                    return _fail(row, UNSURE, move), kp, cp
                dc1 = card_code[buf[_u(k + 1)], buf[_u(k + 2)]]
                dc2 = card_code[buf[_u(k + 4)], buf[_u(k + 5)]]
                nd = 2
            elif n_listed != 10:
                return _fail(row, UNSURE, move), kp, cp
        if seat != declarer:
            return _fail(row, WRONG_PLAYER, move), kp, cp
        if (phase != PH_SKAT and phase != PH_DISCARD) or contract >= 0:
            return _fail(row, WRONG_PHASE, move), kp, cp
        if nd == 2 and disc0 >= 0:
            return _fail(row, WRONG_PHASE, move), kp, cp
        # R5-R7: the declaration as normalized, and a null's value against the bid
        if core.declaration_error(con, d_hand, d_s, d_z, d_o, skat_taken) != 0 \
                or core.bid_error(con, d_hand, d_o, bid, flags) != 0:
            return _fail(row, ILLEGAL_DECLARATION, move), kp, cp
        if nd == 2:
            if dc1 == dc2:
                return _fail(row, ILLEGAL_DECLARATION, move), kp, cp
            if not (hands[declarer] >> dc1) & 1 or not (hands[declarer] >> dc2) & 1:
                return _fail(row, CARD_NOT_IN_HAND, move), kp, cp
            disc0, disc1 = dc1, dc2
            kp = _put_discard(kb, kp, first, seat, dc1, dc2, card_name)
            hands[declarer] &= ~((np.int64(1) << dc1) | (np.int64(1) << dc2))
        # Declaration.iss: suit/grand ouvert is written "<letter>O" (R6)
        kp = _tok(kb, kp, first, seat)
        kp = _put2(kb, kp, 61, contract_letter[con])
        if d_o and con != 5:
            kb[_u(kp)] = 79
            kp += 1
        else:
            if d_hand:
                kb[_u(kp)] = 72
                kp += 1
            if d_z:
                kb[_u(kp)] = 90
                kp += 1
            elif d_s:
                kb[_u(kp)] = 83
                kp += 1
            if d_o:
                kb[_u(kp)] = 79
                kp += 1
        contract = con
        hand = d_hand
        schn_ann = d_s
        schw_ann = d_z
        ouvert = d_o
        if phase == PH_SKAT or disc0 >= 0:
            phase = PH_PLAY
            leader = 0  # R8: Forehand leads the first trick
    # ------------------------------------------------------------ end of the moves
    row[F_NMOVES] = move
    row[F_CALL_N] = cp - call_off
    if phase == PH_PLAY and decided != core.END_NONE and ntrick_cards == 0:
        ending = decided  # R17: a record may stop at (or after) its decisive trick
        phase = PH_DONE
    if expect_skat or phase != PH_DONE:
        return _fail(row, TRUNCATED, move), kp, cp
    row[F_ENDING] = ending
    row[F_DECLARER] = declarer
    row[F_BID] = bid
    row[F_NTRICKS] = ntricks
    row[F_SKAT_TAKEN] = skat_taken
    row[F_DISC0] = disc0
    row[F_DISC1] = disc1
    if ending == END_ALL_PASSED or contract < 0:
        row[F_OUTCOME] = OUT_PASSED if ending == END_ALL_PASSED else OUT_PENALTY
        row[F_CONTRACT] = -1
        if extra_bid:
            return _fail(row, UNSURE, -1), kp, cp
        return OK, kp, cp
    row[F_OUTCOME] = OUT_PLAYED
    row[F_CONTRACT] = contract
    row[F_HAND] = hand
    row[F_SCHN_ANN] = schn_ann
    row[F_SCHW_ANN] = schw_ann
    row[F_OUVERT] = ouvert
    # ---- points and tricks (R10, R17)
    dpoints = taken_p[declarer] + credited_p + core.skat_points(disc0, disc1, deal_out[30],
                                                                deal_out[31])
    defpoints = taken_p[0] + taken_p[1] + taken_p[2] - taken_p[declarer]
    dtricks = taken_t[declarer] + credited_t
    deftricks = ntricks - taken_t[declarer]
    conceded = ending == END_DECLARER_RESIGNED or ending == END_DECLARER_ABSENT
    # ---- matadors over the dealt hand plus the original skat (R12), and the score
    held = skat_mask
    for k in range(10):
        held |= np.int64(1) << deal_out[declarer * 10 + k]
    mats = core.matadors(held, contract)
    won, signed, game_value, mult, overbid, schneider, schwarz = core.score(
        contract, hand, schn_ann, schw_ann, ouvert, bid, mats, dpoints, defpoints, dtricks,
        deftricks, conceded)
    row[F_MATADORS] = mats
    row[F_DPOINTS] = dpoints
    row[F_DTRICKS] = dtricks
    row[F_DEFPOINTS] = defpoints
    row[F_DEFTRICKS] = deftricks
    row[F_SCHNEIDER] = schneider
    row[F_SCHWARZ] = schwarz
    row[F_WON] = won
    row[F_OVERBID] = overbid
    row[F_VALUE] = signed
    row[F_GAME_VALUE] = game_value
    row[F_MULT] = mult
    if extra_bid:
        return _fail(row, UNSURE, -1), kp, cp
    return OK, kp, cp


@njit(cache=True)
def _check_recorded(row):
    """OK when the recorded R[...] agrees with the replay in every field, else RESULT_DIFFERS."""
    kind = row[F_REC_KIND]
    outcome = row[F_OUTCOME]
    if outcome == OUT_PASSED:
        return OK if kind == 1 else RESULT_DIFFERS
    if kind != 3:
        return RESULT_DIFFERS
    if outcome == OUT_PENALTY:
        if row[F_REC_WIN] == 2 and row[F_REC_V] == 0 and row[F_REC_D] == -1:
            return OK
        return RESULT_DIFFERS
    if row[F_REC_WIN] != row[F_WON] or row[F_REC_D] != row[F_DECLARER]:
        return RESULT_DIFFERS
    if row[F_REC_V] != row[F_VALUE] or row[F_REC_M] != row[F_MATADORS]:
        return RESULT_DIFFERS
    if row[F_REC_OVERBID] != row[F_OVERBID]:
        return RESULT_DIFFERS
    if row[F_REC_P] != row[F_DPOINTS] or row[F_REC_T] != row[F_DTRICKS]:
        return RESULT_DIFFERS
    if row[F_REC_S] != row[F_SCHNEIDER] or row[F_REC_Z] != row[F_SCHWARZ]:
        return RESULT_DIFFERS
    return OK


@njit(cache=True)
def _utf8_ok(buf, s, e):
    """True when buf[s:e] is valid UTF-8 (the slow path replaces bad bytes: not sure then)."""
    i = s
    while i < e:
        b = buf[_u(i)]
        if b < 0x80:
            i += 1
            continue
        if 0xC2 <= b <= 0xDF:
            n = 1
        elif 0xE0 <= b <= 0xEF:
            n = 2
        elif 0xF0 <= b <= 0xF4:
            n = 3
        else:
            return False
        if i + n >= e:
            return False
        for k in range(1, n + 1):
            if (buf[_u(i + k)] & 0xC0) != 0x80:
                return False
        c1 = buf[_u(i + 1)]
        if (b == 0xE0 and c1 < 0xA0) or (b == 0xED and c1 > 0x9F) \
                or (b == 0xF0 and c1 < 0x90) or (b == 0xF4 and c1 > 0x8F):
            return False
        i += n + 1
    return True


_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
#: json.dumps's short escapes: \b \t \n \f \r (0 where it writes \u00XX).
_SHORT_ESCAPE = np.zeros(32, dtype=np.uint8)
for _code, _letter in ((8, "b"), (9, "t"), (10, "n"), (12, "f"), (13, "r")):
    _SHORT_ESCAPE[_code] = ord(_letter)


@njit(cache=True)
def _put_u4(eb, ext, code):
    """``\\uXXXX`` (lower-case hex, as json.dumps writes it) at ``eb[ext]``; the new end."""
    eb[_u(ext)] = 92
    eb[_u(ext + 1)] = 117
    for j in range(4):
        eb[_u(ext + 2 + j)] = _HEX[(code >> (12 - 4 * j)) & 15]
    return ext + 6


@njit(cache=True)
def _put_json_escape(eb, ext, code):
    """One code point as json.dumps(ensure_ascii=True) escapes it; returns the new end."""
    if code < 32 and _SHORT_ESCAPE[code] != 0:
        eb[_u(ext)] = 92
        eb[_u(ext + 1)] = _SHORT_ESCAPE[code]
        return ext + 2
    if code > 0xFFFF:  # a surrogate pair
        code -= 0x10000
        ext = _put_u4(eb, ext, 0xD800 | (code >> 10))
        return _put_u4(eb, ext, 0xDC00 | (code & 0x3FF))
    return _put_u4(eb, ext, code)


@njit(inline="always")
def _put_range(kb, kp, buf, s, e):
    """buf[s:e] at ``kb[kp]`` (nothing when ``s`` < 0, a missing tag); the new end."""
    if s < 0:
        return kp
    for k in range(s, e):
        kb[_u(kp)] = buf[_u(k)]
        kp += 1
    return kp


@njit(cache=True, inline="always")
def _game_line(buf, lanes, s, e, row, meta, deal_out, tricks_out, calls, kb, eb, cur, tabs, words,
               hands, taken_p, taken_t, trick, tags, flags):
    """Parse and replay one record line buf[s:e] (without its newline) into ``row``."""
    while s < e and _is_space(buf[_u(s)]):
        s += 1
    while e > s and _is_space(buf[_u(e - 1)]):
        e -= 1
    if s == e or buf[_u(s)] == 35:  # blank or "# comment"
        row[F_STATUS] = NO_GAME
        return
    if e - s < 4 or buf[_u(s)] != 40 or buf[_u(s + 1)] != 59 or buf[_u(e - 2)] != 59 \
            or buf[_u(e - 1)] != 41:
        row[F_STATUS] = FRAGMENT
        return
    i = s + 2
    end = e - 2
    mv_s = mv_e = dt_s = dt_e = -1
    gm_ok = True
    ntags = 0
    while True:
        while i < end and _is_space(buf[_u(i)]):
            i += 1
        if i >= end:
            break
        ts = i
        lower = False
        while i < end and (65 <= buf[_u(i)] <= 90 or 48 <= buf[_u(i)] <= 57
                           or 97 <= buf[_u(i)] <= 122):
            lower |= buf[_u(i)] >= 97
            i += 1
        te = i
        if te == ts or i >= end or buf[_u(i)] != 91:
            row[F_STATUS] = FRAGMENT
            return
        if lower:  # a tag of another program, or a simulated hand's claim: the reader's
            row[F_STATUS] = UNSURE  # (one whole line: one record, not a fragment)
            return
        i += 1
        vs = i
        escaped = False
        while True:  # to the value's "]", over backslash escapes
            i = _find(buf, lanes, i, end, 93, 92)
            if i >= end or buf[_u(i)] == 93:
                break
            escaped = True
            i += 2
        if i >= end:
            row[F_STATUS] = FRAGMENT
            return
        ve = i
        i += 1
        if te - ts > 7 or ntags >= MAX_TAGS:
            row[F_STATUS] = UNSURE
            return
        code = 0
        for k in range(7):
            code = code * 256 + (buf[_u(ts + k)] if ts + k < te else 0)
        if escaped and (code == TAG_MV or code == TAG_R or code == TAG_DT or code == TAG_GM
                        or code == TAG_P0 or code == TAG_P1 or code == TAG_P2
                        or code == TAG_ID or code == TAG_SE or code == TAG_PC
                        or code == TAG_OW or code == TAG_RU):
            # an escape in a value the game or its id reads: the reader's; one in another
            # program's tag (a comment, a rating) is undone as the JSON below is written
            row[F_STATUS] = UNSURE
            return
        for k in range(ntags):
            if tags[k, 0] == code:  # a tag twice: a syntax error for the reader
                row[F_STATUS] = UNSURE
                return
        tags[ntags, 0] = code
        tags[ntags, 1] = vs
        tags[ntags, 2] = ve
        tags[ntags, 3] = ts
        tags[ntags, 4] = te
        tags[ntags, 5] = 0  # 1: an "extra" tag, kept verbatim as JSON
        ntags += 1
        if code == TAG_MV:
            mv_s, mv_e = vs, ve
        elif code == TAG_R:
            row[F_R_S], row[F_R_E] = vs, ve
        elif code == TAG_DT:
            dt_s, dt_e = vs, ve
        elif code == TAG_GM:
            gm_ok = _is_word(buf, vs, ve, words[7])
        elif code == TAG_P0 or code == TAG_P1 or code == TAG_P2:
            seat = buf[_u(ts + 1)] - 48
            meta[2 * seat], meta[2 * seat + 1] = vs, ve
        elif code == TAG_ID:
            meta[6], meta[7] = vs, ve
        elif code == TAG_SE:
            meta[8], meta[9] = vs, ve
        elif code == TAG_OW or code == TAG_RU:
            row[F_STATUS] = UNSURE
            return
        else:
            if code == TAG_PC:
                meta[10], meta[11] = vs, ve
            tags[ntags - 1, 5] = 1
    if mv_s < 0 or not gm_ok:
        row[F_STATUS] = UNSURE
        return
    for k in range(5):
        if meta[2 * k] >= 0 and not _utf8_ok(buf, meta[2 * k], meta[2 * k + 1]):
            row[F_STATUS] = UNSURE
            return
    has_dt = False
    if dt_s >= 0 and dt_e > dt_s:
        if not _parse_dt(buf, dt_s, dt_e, row):
            row[F_STATUS] = UNSURE
            return
        has_dt = True
        row[F_DT_S], row[F_DT_E] = dt_s, dt_e
    # ---- replay; the key for the game id: deal 0x1e moves (0x1f field)* (ids.game_id_of)
    kp = cur[0]
    row[F_KEY_S] = kp
    row[F_MOVES_S] = kp + 33
    status, kp, cp = _replay(buf, mv_s, mv_e, row, deal_out, tricks_out, calls, kb, kp, cur[1],
                             tabs, hands, taken_p, taken_t, trick, flags)
    if status != OK:
        row[F_STATUS] = status
        return
    row[F_MOVES_E] = kp
    for k in range(3):
        kb[_u(kp)] = 31
        kp = _put_range(kb, kp + 1, buf, meta[2 * k], meta[2 * k + 1])
    kb[_u(kp)] = 31
    kp += 1
    if has_dt:  # datetime.isoformat(): 2010-12-06T18:59:24
        kp = _put_range(kb, kp, buf, dt_s, dt_s + 10)
        kb[_u(kp)] = 84
        kp = _put_range(kb, kp + 1, buf, dt_s + 11, dt_s + 19)
    kb[_u(kp)] = 31
    kp = _put_range(kb, kp + 1, buf, meta[6], meta[7])
    kb[_u(kp)] = 31
    kp = _put_range(kb, kp + 1, buf, meta[8], meta[9])
    kb[_u(kp)] = 31
    kp += 1
    row[F_KEY_E] = kp
    cur[0] = kp
    cur[1] = cp
    # ---- the recorded result
    if row[F_R_S] >= 0 and not _parse_result(buf, row[F_R_S], row[F_R_E], row, words):
        row[F_STATUS] = UNSURE
        return
    # ---- the other tags as the reader keeps them: json.dumps({"tags": {...}}, sort_keys)
    row[F_EXT_S] = cur[3]
    for k in range(ntags):  # insertion sort of the tag rows by name
        j = k
        while j > 0 and tags[j - 1, 0] > tags[j, 0]:
            for c in range(6):
                tmp = tags[j - 1, c]
                tags[j - 1, c] = tags[j, c]
                tags[j, c] = tmp
            j -= 1
    ext = cur[3]
    for b in words[8]:  # '{"tags": {'
        eb[_u(ext)] = b
        ext += 1
    first = True
    for k in range(ntags):
        if tags[k, 5] == 0:
            continue
        if not first:
            eb[_u(ext)] = 44
            eb[_u(ext + 1)] = 32
            ext += 2
        first = False
        eb[_u(ext)] = 34
        ext += 1
        for p in range(tags[k, 3], tags[k, 4]):
            eb[_u(ext)] = buf[_u(p)]
            ext += 1
        eb[_u(ext)] = 34
        eb[_u(ext + 1)] = 58
        eb[_u(ext + 2)] = 32
        eb[_u(ext + 3)] = 34
        ext += 4
        p = tags[k, 1]
        while p < tags[k, 2]:
            b = buf[_u(p)]
            if b == 92:  # an ISS escape (parse_properties): the next character as it is
                p += 1
                if p >= tags[k, 2]:
                    break
                b = buf[_u(p)]
            if b >= 32 and b < 128:
                if b == 34 or b == 92:  # json.dumps: \" and \\
                    eb[_u(ext)] = 92
                    ext += 1
                eb[_u(ext)] = b
                ext += 1
                p += 1
                continue
            # json.dumps (ensure_ascii) writes a control character or a non-ASCII one as
            # \uXXXX (a surrogate pair above U+FFFF; \n \r \t \b \f for those five)
            if ext + 12 > eb.shape[0]:
                row[F_STATUS] = UNSURE
                return
            if b < 32:
                code = b
                width = 1
            else:
                width = 2 if b < 0xE0 else (3 if b < 0xF0 else 4)
                if p + width > tags[k, 2] or not _utf8_ok(buf, p, p + width):
                    row[F_STATUS] = UNSURE
                    return
                code = b & (0x1F if width == 2 else (0x0F if width == 3 else 0x07))
                for q in range(1, width):
                    code = (code << 6) | (buf[_u(p + q)] & 0x3F)
            p += width
            ext = _put_json_escape(eb, ext, code)
        eb[_u(ext)] = 34
        ext += 1
    eb[_u(ext)] = 125
    eb[_u(ext + 1)] = 125
    ext += 2
    cur[3] = ext
    row[F_EXT_E] = ext
    row[F_STATUS] = _check_recorded(row)


@njit(cache=True, nogil=True)
def scan_chunk(buf, tabs, words, rows, meta, deals, tricks, calls, kb, eb, flags=ISS_FLAGS):
    """Scan every line of ``buf`` (complete lines) into the output arrays, replaying under
    the rule-set ``flags`` (:attr:`skatlog.engine.rules.Rules.flags`; ISS's by default).

    One row per non-blank line: ``rows`` (n x N_FIELDS int32), ``meta`` (n x 2*N_META int32),
    ``deals`` (n x 32 uint8), ``tricks`` (n x 10 x 5 int8). Auction calls go to ``calls``
    (m x 3 int16: seat, kind, value), the game-id keys and move texts to ``kb``, the extra
    JSON to ``eb`` (sizes: see :func:`skatlog.ingest.fast.columns.buffers_for`). Rows whose
    status is neither OK nor RESULT_DIFFERS have no valid key, calls or JSON. Returns (rows,
    calls, key bytes, extra bytes) used.
    """
    cur = np.zeros(4, dtype=np.int64)  # key pos, call pos, (unused), extra pos
    hands = np.zeros(3, dtype=np.int64)
    taken_p = np.zeros(3, dtype=np.int64)
    taken_t = np.zeros(3, dtype=np.int64)
    trick = np.zeros(3, dtype=np.int64)
    deal_tmp = np.zeros(32, dtype=np.int64)
    trick_tmp = np.zeros((10, 5), dtype=np.int64)
    tags = np.zeros((MAX_TAGS, 6), dtype=np.int64)
    g = _scan_lines(buf, tabs, words, rows, meta, deals, tricks, calls, kb, eb, flags, cur,
                    hands, taken_p, taken_t, trick, deal_tmp, trick_tmp, tags)
    return g, cur[1], cur[0], cur[3]


# Compiled without numba's reference counting (``_nrt=False``): it allocates nothing, and
# the counts numba kept on the arrays it passes around, atomic, were a seventh of the time.
@njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]  # (not in the stubs)
def _scan_lines(buf, tabs, words, rows, meta, deals, tricks, calls, kb, eb, flags, cur, hands,
                taken_p, taken_t, trick, deal_tmp, trick_tmp, tags):
    """The line loop of :func:`scan_chunk` over its scratch arrays; returns the rows used."""
    n = buf.shape[0]
    lanes = buf[:n - n % 8].view(np.uint64)  # (``scan`` gives an 8-byte aligned buffer)
    g = 0
    line = 0
    s = 0
    while s < n:
        e = _find(buf, lanes, s, n, 10, 10)
        row = rows[g]
        for k in range(N_FIELDS):  # (explicit loops: numba's slice fill allocates)
            row[k] = 0
        for k in (F_ERR_MOVE, F_DECLARER, F_CONTRACT, F_OUTCOME, F_ENDING, F_DISC0, F_DISC1,
                  F_DT_DAY, F_DT_SEC, F_REC_WIN, F_REC_OVERBID, F_R_S, F_R_E, F_DT_S, F_DT_E):
            row[k] = -1
        for k in (F_REC_D, F_REC_V, F_REC_M, F_REC_P, F_REC_T, F_REC_S, F_REC_Z):
            row[k] = ABSENT
        row[F_LINE] = line
        row[F_START] = s
        row[F_END] = e
        for k in range(2 * N_META):
            meta[g, k] = -1
        key0, call0, ext0 = cur[0], cur[1], cur[3]
        _game_line(buf, lanes, s, e, row, meta[g], deal_tmp, trick_tmp, calls, kb, eb, cur, tabs,
                   words, hands, taken_p, taken_t, trick, tags, flags)
        status = row[F_STATUS]
        if status != OK and status != RESULT_DIFFERS:  # only accepted games, and games whose
            # record differs (their verdict reads the move text, .verdicts), keep their key,
            # calls and JSON
            cur[0], cur[1], cur[3] = key0, call0, ext0
        if row[F_STATUS] != NO_GAME:
            for k in range(32):
                deals[g, k] = deal_tmp[k]
            for t in range(row[F_NTRICKS]):
                for k in range(5):
                    tricks[g, t, k] = trick_tmp[t, k]
            g += 1
        line += 1
        s = e + 1
    return g
