"""Log lines of a batch of simulated hands, built in one compiled pass (no replay per hand).

:func:`batch_lines` turns a batch of the batch simulator (:class:`skatlog.engine.batch.BatchGames`)
into the ISS (``.sgf``) or skatlog/1 (``.jsonl``) lines ``skatlog simulate --out`` writes: the
same bytes as replaying every hand through the engine and writing it with
:func:`~.iss.write_iss` / :func:`~.jsonl.write_jsonl` (``result="computed"``), which a test
holds byte for byte. Nothing here decides a rule: the moves, trick winners and every scored
figure are the simulator's arrays, and the text of everything that is the same for every
hand of a run (players, tags, declarations) is made in Python by the writers' own helpers and
handed to the compiled pass as templates.

The compiled pass is a small interpreter over a *program* (one list of steps per format, the
same for every hand): copy a template, copy the template of this hand's dealer, write the
hand index, write the deal, the moves, the result. As in :mod:`.sim_rows`, everything the
compiled code reads comes in as arguments, never as another module's globals (numba's cache
checks only this file).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from skatlog.engine.batch.games import BatchGames
from skatlog.engine.batch.kernel import GAME_COLUMNS
from skatlog.engine.batch.tables import DECL_T
from skatlog.engine.contract import Contract, Declaration
from skatlog.engine.jit import njit
from skatlog.engine.rules import ISKO, ISKO_ISS
from skatlog.engine.session import HANDS_PER_SESSION

from .iss import _escape
from .sim_rows import CARD_NAME_T, DECL_LEN_T, DECL_NAME_T
from .simulated import Claim, simulated_meta, simulated_tags

#: Positions in ``GAME_COLUMNS`` of what the pass reads, in the order of the ``_C_*`` names.
COLUMNS_READ = np.array([GAME_COLUMNS.index(name) for name in (
    "declarer", "pickup", "declare_first", "decl", "n_cards", "won", "value", "matadors",
    "overbid", "declarer_points", "declarer_tricks", "schneider", "schwarz")], dtype=np.int64)
(_C_DECLARER, _C_PICKUP, _C_FIRST, _C_DECL, _C_NCARDS, _C_WON, _C_VALUE, _C_MATADORS,
 _C_OVERBID, _C_POINTS, _C_TRICKS, _C_SCHNEIDER, _C_SCHWARZ) = range(13)

# Steps of a program: (op, argument).
OP_TEXT = 0         # copy template ``argument``
OP_DEALER_TEXT = 1  # copy template ``argument + dealer`` (three templates, one per dealer)
OP_INDEX = 2        # the hand index
OP_SESSION = 3      # the session number (index // HANDS_PER_SESSION)
OP_SESSION_HAND = 4  # the hand's number in its session, from 1
OP_CARDS = 5        # deal positions lo .. hi - 1 (argument lo * 64 + hi), joined by "."
OP_ISS_MOVES = 6    # the ISS moves after the deal
OP_ISS_RESULT = 7   # the ISS result text
OP_JSON_AUCTION = 8  # the skatlog/1 auction calls, comma-separated
OP_JSON_PLAY = 9    # declarer, skat, declaration, discard, declared_first (each led by ",")
OP_JSON_TRICKS = 10  # the skatlog/1 tricks, comma-separated
OP_JSON_RESULT = 11  # the skatlog/1 result object

#: Fixed snippets the compiled pass writes, as templates 0 .. len - 1 (the ``_T_*`` names).
_FIXED = (
    "passed", " win", " loss", " overbid", " bidok", " p0:0 p1:0 p2:0 l:-1 to:-1 r:0",
    "true", "false", '"hold"', '"pass"', ',"declarer":', ',"skat":"taken"', ',"skat":"hand"',
    ',"discard":"', ',"declared_first":true', '{"leader":', ',"cards":[',
    '{"passed":true,"penalty":false,"declarer":null,"won":null,"value":null,'
    '"matadors":null,"overbid":null,"declarer_points":null,"declarer_tricks":null,'
    '"schneider":null,"schwarz":null,"raw":""}',
    '{"passed":false,"penalty":false,"declarer":', ',"won":', ',"value":', ',"matadors":',
    ',"overbid":', ',"declarer_points":', ',"declarer_tricks":', ',"schneider":',
    ',"schwarz":', ',"raw":""}',
)
(_T_PASSED, _T_WIN, _T_LOSS, _T_OVERBID, _T_BIDOK, _T_TAIL, _T_TRUE, _T_FALSE, _T_HOLD,
 _T_PASS, _T_DECLARER, _T_TAKEN, _T_HAND, _T_DISCARD, _T_FIRST, _T_LEADER, _T_CARDS,
 _T_PASSED_JSON, _T_R_DECLARER, _T_R_WON, _T_R_VALUE, _T_R_MATADORS, _T_R_OVERBID,
 _T_R_POINTS, _T_R_TRICKS, _T_R_SCHNEIDER, _T_R_SCHWARZ, _T_R_END) = range(len(_FIXED))
#: The first template of the declarations' skat/1 objects (one per ``DECL_T`` row).
_T_DECL_JSON = len(_FIXED)
#: Bytes of a hand's text besides its calls and its program's own templates: the deal, the
#: declaration steps, 30 cards, ten tricks, the result (about 1,000 at most in skatlog/1;
#: generous: a bound, not a size).
_HAND_BOUND = 2048
#: Bytes at most per auction call (``,[2,264]`` or `` 2 264``).
_CALL_BOUND = 16


def _decl_json() -> list[str]:
    """The ``,"declaration":{...}`` text of every row of ``DECL_T``, as the skatlog/1 writer
    makes it."""
    out = []
    for row in DECL_T:
        d = Declaration(Contract(int(row[0])), bool(row[1]), bool(row[2]), bool(row[3]),
                        bool(row[4]))
        obj = {"contract": d.contract.label, "hand": d.hand,
               "schneider_announced": d.schneider_announced,
               "schwarz_announced": d.schwarz_announced, "ouvert": d.ouvert}
        out.append(',"declaration":' + json.dumps(obj, separators=(",", ":")))
    return out


@dataclass(frozen=True)
class Program:
    """A format's steps for one run, and the templates they copy."""

    steps: np.ndarray      # (n, 2) int64: op, argument
    text: np.ndarray       # uint8: every template, concatenated
    offsets: np.ndarray    # int64: template k is text[offsets[k]:offsets[k + 1]]

    @property
    def copied(self) -> int:
        """Bytes a hand copies from templates by its ``OP_TEXT`` and ``OP_DEALER_TEXT``
        steps at most (the other steps' text is in :data:`_HAND_BOUND`)."""
        sizes = np.diff(self.offsets)
        total = 0
        for op, arg in self.steps:
            if op == OP_TEXT:
                total += int(sizes[arg])
            elif op == OP_DEALER_TEXT:
                total += int(sizes[arg:arg + 3].max())
        return total


class _Builder:
    """Collects templates and steps."""

    def __init__(self) -> None:
        self.templates: list[bytes] = [s.encode("utf-8") for s in _FIXED]
        self.templates += [s.encode("utf-8") for s in _decl_json()]
        self.steps: list[tuple[int, int]] = []

    def text(self, value: str) -> None:
        if value:
            self.steps.append((OP_TEXT, len(self.templates)))
            self.templates.append(value.encode("utf-8"))

    def by_dealer(self, values: list[str]) -> None:
        self.steps.append((OP_DEALER_TEXT, len(self.templates)))
        self.templates += [v.encode("utf-8") for v in values]

    def op(self, op: int, argument: int = 0) -> None:
        self.steps.append((op, argument))

    def program(self) -> Program:
        lengths = np.array([0] + [len(t) for t in self.templates], dtype=np.int64)
        return Program(np.array(self.steps, dtype=np.int64).reshape(-1, 2),
                       np.frombuffer(b"".join(self.templates), dtype=np.uint8).copy(),
                       np.cumsum(lengths))


def _claims(seed: int, bots: tuple[str, str, str], sessions: bool) -> list[Claim]:
    """A hand of each dealer (index 0, 1, 2): what differs between hands of a run by dealer."""
    return [Claim(seed, bots, index, sessions) for index in range(3)]


def iss_program(seed: int, bots: tuple[str, str, str], sessions: bool) -> Program:
    """The steps of a run's ISS lines, as :func:`~.iss.format_iss` writes a simulated hand
    (its meta data from :func:`~.simulated.simulated_meta`, its tags from
    :func:`~.simulated.simulated_tags`, ``RU[isko]``, the computed result)."""
    claims = _claims(seed, bots, sessions)
    b = _Builder()
    b.text(f"(;GM[Skat]SE[{_escape(f'sim-{seed}-') if sessions else ''}")
    if sessions:
        b.op(OP_SESSION)
    b.text(f"]ID[{_escape(f'sim-{seed}-')}")
    b.op(OP_INDEX)
    dealer_text = []
    for claim in claims:
        meta = simulated_meta(claim)
        tags = simulated_tags(claim)
        _check_tag_order(tags, sessions)
        fields = [("DT", ""), *((f"P{s}", meta.players[s]) for s in range(3)),
                  ("seed", tags["seed"]), ("bots", tags["bots"])]
        dealer_text.append("]" + "".join(f"{t}[{_escape(v)}]" for t, v in fields) + "hand[")
    b.by_dealer(dealer_text)
    b.op(OP_INDEX)
    rules = "" if ISKO == ISKO_ISS else f"RU[{_escape(str(ISKO))}]"
    b.text("]" + ("sessions[1]" if sessions else "") + rules + "MV[w ")
    b.op(OP_CARDS, 0 * 64 + 32)
    b.op(OP_ISS_MOVES)
    b.text(" ]R[")
    b.op(OP_ISS_RESULT)
    b.text("] ;)\n")
    return b.program()


def json_program(seed: int, bots: tuple[str, str, str], sessions: bool) -> Program:
    """The steps of a run's skatlog/1 lines, as :func:`~.jsonl.game_object` writes a
    simulated hand (compact JSON, the computed result without ``raw``)."""
    claims = _claims(seed, bots, sessions)

    def dumps(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    b = _Builder()
    prefix = dumps(f"sim-{seed}-")[:-1]  # the id's opening quote and fixed part
    b.text('{"format":"skatlog/1","id":' + prefix)
    b.op(OP_INDEX)
    if sessions:
        b.text('","session":{"id":' + prefix)
        b.op(OP_SESSION)
        b.text('","hand":')
        b.op(OP_SESSION_HAND)
        b.text("}")
    else:
        b.text('"')
    players = [dumps(list(simulated_meta(c).players)) for c in claims]
    b.by_dealer([f',"dealer":2,"players":{p},"deal":{{"forehand":"' for p in players])
    for lo, key in ((0, "middlehand"), (10, "rearhand"), (20, "skat")):
        b.op(OP_CARDS, lo * 64 + lo + 10)
        b.text(f'","{key}":"')
    b.op(OP_CARDS, 30 * 64 + 32)
    b.text('"},"auction":[')
    b.op(OP_JSON_AUCTION)
    b.text("]")
    b.op(OP_JSON_PLAY)
    b.text(',"tricks":[')
    b.op(OP_JSON_TRICKS)
    b.text('],"result":')
    b.op(OP_JSON_RESULT)
    tags = [simulated_tags(c) for c in claims]
    b.by_dealer([',"tags":{"seed":' + dumps(t["seed"]) + ',"bots":' + dumps(t["bots"])
                 + ',"hand":"' for t in tags])
    b.op(OP_INDEX)
    b.text('"' + (',"sessions":"1"' if sessions else "") + "}}\n")
    for t in tags:
        _check_tag_order(t, sessions)
    return b.program()


def _check_tag_order(tags: dict[str, str], sessions: bool) -> None:
    """The programs write the tags in the order :func:`~.simulated.simulated_tags` gives."""
    if list(tags) != ["seed", "bots", "hand", *(["sessions"] if sessions else [])]:
        raise AssertionError(f"simulated_tags gives {list(tags)}: update sim_text")


# ------------------------------------------------------------------ the compiled pass
@njit(inline="always", error_model="numpy")
def _put(out: np.ndarray, pos: int, text: np.ndarray, offsets: np.ndarray, k: int) -> int:
    """Copy template ``k`` to ``pos``; returns the new position."""
    for j in range(offsets[k], offsets[k + 1]):
        out[pos] = text[j]
        pos += 1
    return pos


@njit(inline="always", error_model="numpy")
def _int(out: np.ndarray, pos: int, value: int) -> int:
    """The decimal text of ``value`` (any sign) at ``pos``; returns the new position."""
    if value < 0:
        out[pos] = 45  # -
        pos += 1
        value = -value
    digits = 1
    rest = value // 10
    while rest > 0:
        digits += 1
        rest //= 10
    for k in range(digits - 1, -1, -1):
        out[pos + k] = 48 + value % 10
        value //= 10
    return pos + digits


@njit(inline="always", error_model="numpy")
def _card(out: np.ndarray, pos: int, names: np.ndarray, card: int) -> int:
    out[pos] = names[card, 0]
    out[pos + 1] = names[card, 1]
    return pos + 2


@njit(inline="always", error_model="numpy")
def _bool(out: np.ndarray, pos: int, text: np.ndarray, offsets: np.ndarray, value: int) -> int:
    return _put(out, pos, text, offsets, _T_TRUE if value != 0 else _T_FALSE)


@njit(nogil=True, error_model="numpy")
def _lines(start: int, session_hands: int, deal: np.ndarray, n_calls: np.ndarray,
           calls: np.ndarray, call_seats: np.ndarray, game: np.ndarray, discard: np.ndarray,
           cards: np.ndarray, winners: np.ndarray, cols: np.ndarray, names: np.ndarray,
           decl_names: np.ndarray, decl_lens: np.ndarray, steps: np.ndarray,
           text: np.ndarray, offsets: np.ndarray, decl_json: int, out: np.ndarray) -> int:
    """Write every hand's line to ``out`` (big enough: see :func:`batch_lines`); returns
    the bytes written."""
    pos = 0
    for i in range(game.shape[0]):
        index = start + i
        decl = game[i, cols[_C_DECL]]
        d = game[i, cols[_C_DECLARER]]
        n_cards = game[i, cols[_C_NCARDS]]
        for s in range(steps.shape[0]):
            op = steps[s, 0]
            arg = steps[s, 1]
            if op == OP_TEXT:
                pos = _put(out, pos, text, offsets, arg)
            elif op == OP_DEALER_TEXT:
                pos = _put(out, pos, text, offsets, arg + index % 3)
            elif op == OP_INDEX:
                pos = _int(out, pos, index)
            elif op == OP_SESSION:
                pos = _int(out, pos, index // session_hands)
            elif op == OP_SESSION_HAND:
                pos = _int(out, pos, index % session_hands + 1)
            elif op == OP_CARDS:
                lo = arg // 64
                hi = arg % 64
                for k in range(lo, hi):
                    if k > lo:
                        out[pos] = 46  # .
                        pos += 1
                    pos = _card(out, pos, names, deal[i, k])
            elif op == OP_ISS_MOVES:
                for k in range(n_calls[i]):
                    out[pos] = 32
                    out[pos + 1] = 48 + call_seats[i, k]
                    out[pos + 2] = 32
                    pos += 3
                    code = calls[i, k]
                    if code == 0:
                        out[pos] = 112  # p
                        pos += 1
                    elif code == 1:
                        out[pos] = 121  # y
                        pos += 1
                    else:
                        pos = _int(out, pos, code)
                if decl < 0:
                    continue
                out[pos] = 32
                out[pos + 1] = 48 + d
                out[pos + 2] = 32
                pos += 3
                if game[i, cols[_C_PICKUP]]:
                    out[pos] = 115  # s
                    out[pos + 1] = 32
                    out[pos + 2] = 119  # w
                    out[pos + 3] = 32
                    pos = _card(out, pos + 4, names, deal[i, 30])
                    out[pos] = 46
                    pos = _card(out, pos + 1, names, deal[i, 31])
                    out[pos] = 32
                    out[pos + 1] = 48 + d
                    out[pos + 2] = 32
                    pos += 3
                    if game[i, cols[_C_FIRST]]:  # two moves: the declaration, the discard
                        for k in range(decl_lens[decl]):
                            out[pos + k] = decl_names[decl, k]
                        pos += decl_lens[decl]
                        out[pos] = 32
                        out[pos + 1] = 48 + d
                        out[pos + 2] = 32
                        pos += 3
                    else:  # one move: the declaration with the cards laid away
                        for k in range(decl_lens[decl]):
                            out[pos + k] = decl_names[decl, k]
                        pos += decl_lens[decl]
                        out[pos] = 46
                        pos += 1
                    pos = _card(out, pos, names, discard[i, 0])
                    out[pos] = 46
                    pos = _card(out, pos + 1, names, discard[i, 1])
                else:
                    for k in range(decl_lens[decl]):
                        out[pos + k] = decl_names[decl, k]
                    pos += decl_lens[decl]
                leader = 0
                for k in range(n_cards):
                    out[pos] = 32
                    out[pos + 1] = 48 + (leader + k % 3) % 3
                    out[pos + 2] = 32
                    pos = _card(out, pos + 3, names, cards[i, k])
                    if k % 3 == 2:
                        leader = winners[i, k // 3]
            elif op == OP_ISS_RESULT:
                if decl < 0:
                    pos = _put(out, pos, text, offsets, _T_PASSED)
                    continue
                out[pos] = 100  # d
                out[pos + 1] = 58  # :
                pos = _int(out, pos + 2, d)
                won = game[i, cols[_C_WON]] != 0
                pos = _put(out, pos, text, offsets, _T_WIN if won else _T_LOSS)
                for key, c in ((118, _C_VALUE), (109, _C_MATADORS)):  # v, m
                    out[pos] = 32
                    out[pos + 1] = key
                    out[pos + 2] = 58
                    pos = _int(out, pos + 3, game[i, cols[c]])
                over = game[i, cols[_C_OVERBID]] != 0
                pos = _put(out, pos, text, offsets, _T_OVERBID if over else _T_BIDOK)
                for key, c in ((112, _C_POINTS), (116, _C_TRICKS), (115, _C_SCHNEIDER),
                               (122, _C_SCHWARZ)):  # p, t, s, z
                    out[pos] = 32
                    out[pos + 1] = key
                    out[pos + 2] = 58
                    value = game[i, cols[c]]
                    if c >= _C_SCHNEIDER:  # schneider, schwarz: flags, 0 or 1
                        value = 1 if value != 0 else 0
                    pos = _int(out, pos + 3, value)
                pos = _put(out, pos, text, offsets, _T_TAIL)
            elif op == OP_JSON_AUCTION:
                for k in range(n_calls[i]):
                    if k > 0:
                        out[pos] = 44  # ,
                        pos += 1
                    out[pos] = 91  # [
                    out[pos + 1] = 48 + call_seats[i, k]
                    out[pos + 2] = 44
                    pos += 3
                    code = calls[i, k]
                    if code == 0:
                        pos = _put(out, pos, text, offsets, _T_PASS)
                    elif code == 1:
                        pos = _put(out, pos, text, offsets, _T_HOLD)
                    else:
                        pos = _int(out, pos, code)
                    out[pos] = 93  # ]
                    pos += 1
            elif op == OP_JSON_PLAY:
                if decl < 0:
                    continue
                pos = _put(out, pos, text, offsets, _T_DECLARER)
                pos = _int(out, pos, d)
                pickup = game[i, cols[_C_PICKUP]] != 0
                pos = _put(out, pos, text, offsets, _T_TAKEN if pickup else _T_HAND)
                pos = _put(out, pos, text, offsets, decl_json + decl)
                if pickup:
                    pos = _put(out, pos, text, offsets, _T_DISCARD)
                    pos = _card(out, pos, names, discard[i, 0])
                    out[pos] = 46
                    pos = _card(out, pos + 1, names, discard[i, 1])
                    out[pos] = 34  # "
                    pos += 1
                    if game[i, cols[_C_FIRST]]:
                        pos = _put(out, pos, text, offsets, _T_FIRST)
            elif op == OP_JSON_TRICKS:
                leader = 0
                for k in range(n_cards):
                    if k % 3 == 0:
                        if k > 0:
                            out[pos] = 93  # ]
                            out[pos + 1] = 125  # }
                            out[pos + 2] = 44  # ,
                            pos += 3
                        pos = _put(out, pos, text, offsets, _T_LEADER)
                        pos = _int(out, pos, leader)
                        pos = _put(out, pos, text, offsets, _T_CARDS)
                    else:
                        out[pos] = 44
                        pos += 1
                    out[pos] = 34
                    pos = _card(out, pos + 1, names, cards[i, k])
                    out[pos] = 34
                    pos += 1
                    if k % 3 == 2:
                        leader = winners[i, k // 3]
                if n_cards > 0:
                    out[pos] = 93
                    out[pos + 1] = 125
                    pos += 2
            elif op == OP_JSON_RESULT:
                if decl < 0:
                    pos = _put(out, pos, text, offsets, _T_PASSED_JSON)
                    continue
                pos = _put(out, pos, text, offsets, _T_R_DECLARER)
                pos = _int(out, pos, d)
                pos = _put(out, pos, text, offsets, _T_R_WON)
                pos = _bool(out, pos, text, offsets, game[i, cols[_C_WON]])
                pos = _put(out, pos, text, offsets, _T_R_VALUE)
                pos = _int(out, pos, game[i, cols[_C_VALUE]])
                pos = _put(out, pos, text, offsets, _T_R_MATADORS)
                pos = _int(out, pos, game[i, cols[_C_MATADORS]])
                pos = _put(out, pos, text, offsets, _T_R_OVERBID)
                pos = _bool(out, pos, text, offsets, game[i, cols[_C_OVERBID]])
                pos = _put(out, pos, text, offsets, _T_R_POINTS)
                pos = _int(out, pos, game[i, cols[_C_POINTS]])
                pos = _put(out, pos, text, offsets, _T_R_TRICKS)
                pos = _int(out, pos, game[i, cols[_C_TRICKS]])
                pos = _put(out, pos, text, offsets, _T_R_SCHNEIDER)
                pos = _bool(out, pos, text, offsets, game[i, cols[_C_SCHNEIDER]])
                pos = _put(out, pos, text, offsets, _T_R_SCHWARZ)
                pos = _bool(out, pos, text, offsets, game[i, cols[_C_SCHWARZ]])
                pos = _put(out, pos, text, offsets, _T_R_END)
    return pos


def program(kind: str, seed: int, bots: tuple[str, str, str], sessions: bool) -> Program:
    """The program of a run's lines: ``kind`` ``sgf`` (ISS) or ``jsonl`` (skatlog/1)."""
    if kind == "sgf":
        return iss_program(seed, bots, sessions)
    if kind == "jsonl":
        return json_program(seed, bots, sessions)
    raise ValueError(f"unknown log format {kind!r}")


def batch_lines(batch: BatchGames, prog: Program) -> bytes:
    """Every hand's line of ``batch`` (each ending in a newline), as ``prog`` writes them."""
    b = batch
    bound = len(b) * (prog.copied + _HAND_BOUND) + _CALL_BOUND * int(b.n_calls.sum())
    out = np.empty(bound, dtype=np.uint8)
    size = _lines(b.start, HANDS_PER_SESSION, b.deal, b.n_calls, b.calls, b.call_seats,
                  b.game, b.discard, b.cards, b.winners, COLUMNS_READ, CARD_NAME_T,
                  DECL_NAME_T, DECL_LEN_T, prog.steps, prog.text, prog.offsets,
                  _T_DECL_JSON, out)
    return out[:size].tobytes()


__all__ = ["Program", "batch_lines", "iss_program", "json_program", "program"]
