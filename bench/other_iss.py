"""An independent ISS generator: records as other Skat programs write them, not skatlog.

skatlog's own ISS writer (:func:`skatlog.ingest.iss.format_iss`) and its synthetic corpora
(:mod:`skatlog.ingest.fast.synth`) write records exactly the way skatlog reads them best. This
module writes records the way other programs do, with its own formatting code and its own
choice of play, so that ``bench/ingest.py --independent`` and ``tests/test_other_iss.py``
measure and check skatlog on input it did not write:

* **Formatting**, one :class:`Program` per session (table): its own tag order, spacing between
  the moves (single or double spaces, a trailing space in ``MV`` or not, spaces between the
  properties, CRLF line ends), its ``PC[...]`` name, ratings, comments (some in UTF-8, one
  with an escaped bracket), dates or none, the ``MV`` variants ISS allows (the contract and the
  discards in one move or split, in either order; the skat reveal in either order; modifier
  letters short, complete or shuffled; ouvert declarations with their ten open cards; sorted
  hands; hands separated by ``|``), its ``R[...]`` field set and order, player names in UTF-8.
* **Play**: the engine says what is legal (:meth:`GameState.legal_calls` and
  :meth:`GameState.legal_cards`, declarations checked by :meth:`GameState.apply`); the
  choices are this module's (bid limits from a planned contract, discards, leads). Every
  contract type occurs: suit, grand, null, hand games, schneider and schwarz announced, suit
  and grand ouvert, null ouvert with and without the skat. The ISS-like program plays under
  ``isko+iss`` and stops where R17 lets a record stop (with its resignations, shown cards,
  time-outs and leaves); every other program plays under ``isko``, every game to ten tricks
  (a null ends at the declarer's first trick, R9), so its lost announced games play on after
  their decisive trick (R17).
* **The record's result** is written here from the engine's result of the game played.
* **Damage** (``damaged``, a share of the lines): a card not held, a revoke, a cut-off line,
  a wrong recorded value, a bad bid, junk text, a missing ``MV``, a ``??`` card.

Records are reproducible: record ``i`` of seed ``s`` depends only on ``(s, i)``, so files are
written in parallel chunks. Run ``.venv/bin/python bench/other_iss.py --games 200000
--damaged 0.03`` to write (and cache) a file under ``bench/out/``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

from skatlog.engine import (
    BID_LADDER,
    CARD_POINTS,
    ISKO,
    ISKO_ISS,
    Bid,
    Card,
    Contract,
    Deal,
    Declaration,
    Declare,
    Discard,
    GameState,
    Hold,
    Leave,
    Move,
    Pass,
    Phase,
    PickUp,
    Play,
    Rank,
    Resign,
    Rules,
    ShowCards,
    TimeOut,
    score_game,
)
from skatlog.engine.tricks import TRUMP, card_power, effective_suit, matadors

#: Bump when the records change: the cached files' names carry it.
GENERATOR_VERSION = 1
OUT = Path(__file__).resolve().parent / "out"
EPOCH = datetime(2015, 3, 1, 18, 0, tzinfo=UTC)

#: The kinds of damage, in the order of ``--damaged`` statistics.
DAMAGES = ("card_not_held", "revoke", "cut_off", "wrong_value", "bad_bid", "junk",
           "missing_mv", "unknown_card")
_JUNK = ("<br>", "~~~", "-- 8< --", "Ã¤Ã¶", "%%", "@@ Seite 2 @@", "<?>", "\\x00")
_OFF_LADDER = (19, 21, 25, 26, 28, 29, 31, 34, 37, 41)

_NAMES = ("zoot", "kermit", "foo", "Müller", "Grüße", "Jürgen", "Zoë", "Łukasz", "Дмитрий",
          "李雷", "Ångström", "José", "O'Brien", "Skat-Fan_77", "Kreuzbube", "Herz Dame",
          "ölfuß", "ßkat", "Ærø", "Nguyễn", "🂡ace", "bernd.k", "Heike", "Karl-Heinz",
          "Ute", "Gisela", "Jens", "Wolfgang")
_BOTS = ("xskat", "xskat:2", "xskat:3", "@9WScnU3", "bot_äh", "kerberos")
_COMMENTS = ("Liga Runde 3", "Tisch 2", "schöne Runde", "Spielabend bei Jürgen", "Pokal",
             "Runde [3]", "Übungsabend", "")
_ISS_RATINGS = ("", "0.0", "null", "1523.4", "?")


@dataclass(frozen=True, slots=True)
class Program:
    """How one program writes its records, and under which rules it lets games end."""

    name: str
    pc: str | None  # the PC tag's value (None: no PC tag)
    weight: float  # share of the sessions it writes
    rules: Rules  # ISKO: every game to ten tricks; ISKO_ISS: stop where R17 permits
    tags: tuple[str, ...]  # tag order (MV and R included)
    sep: str = " "  # between move pairs
    mv_trailing: str = ""  # after the last move, inside MV[...]
    prop_sep: str = ""  # between properties
    opening: str = "(;"
    closing: str = ";)"
    newline: str = "\n"
    reveal_swapped: float = 0.0  # the world's skat reveal in the other order
    no_reveal: float = 0.0  # pick-ups written without the world's skat reveal
    split_declare: float = 0.0  # "2 D" then "2 ST.H8"
    discard_first: float = 0.0  # "2 ST.H8" then "2 D"
    ouvert_cards: float = 0.0  # ouvert declarations that list the ten open cards
    modifiers: str = "short"  # short (GO, CHZ), full (GHSZO), shuffled (CSH, HOSZG...)
    result: str = "iss"  # iss (with p0.. r), short (nine fields), reordered
    ratings: tuple[str, ...] = ()  # values for R0-R2 (empty: tags absent)
    dated: float = 1.0  # records with a DT tag
    comment: float = 0.0  # records with a CO comment (else CO[] if CO is a tag)
    sorted_hands: bool = False
    hand_bars: float = 0.0  # deals written with '|' between the hands
    concessions: float = 0.0  # games with RE / SC / time-out / leave
    session_games: int = 12
    jump_bids: float = 0.0
    table_tag: bool = False  # TB[n]
    bots: bool = False  # player names like xskat:2


PROGRAMS: tuple[Program, ...] = (
    Program("iss-like", "International Skat Server", 0.28, ISKO_ISS,
            ("GM", "PC", "CO", "SE", "ID", "DT", "P0", "P1", "P2", "R0", "R1", "R2", "MV", "R"),
            mv_trailing=" ", closing=" ;)", split_declare=0.01, ouvert_cards=0.3,
            ratings=_ISS_RATINGS, concessions=0.03),
    Program("jskat-like", "JSkat 0.23.0", 0.24, ISKO,
            ("GM", "PC", "SE", "ID", "DT", "P0", "P1", "P2", "MV", "R"),
            sep="  ", split_declare=0.3, discard_first=0.1, ouvert_cards=1.0,
            modifiers="full", result="short", reveal_swapped=0.5, jump_bids=0.2),
    Program("xskat-like", "xskat 4.0", 0.20, ISKO,
            ("GM", "PC", "ID", "SE", "P0", "P1", "P2", "R0", "R1", "R2", "DT", "TB", "MV",
             "R"),
            prop_sep=" ", opening="(; ", closing=" ;)", result="reordered",
            sorted_hands=True, table_tag=True, bots=True, concessions=0.005,
            ratings=("1500", "1612", "1398")),
    Program("club-sheet", "Skatclub-Manager 2.1", 0.16, ISKO,
            ("GM", "PC", "CO", "DT", "SE", "ID", "P0", "P1", "P2", "MV", "R"),
            sep="  ", mv_trailing=" ", newline="\r\n", modifiers="shuffled", comment=0.1,
            dated=0.8, hand_bars=0.1, session_games=24, discard_first=0.2),
    Program("mobile-app", "SkatOnline App 5.4", 0.12, ISKO,
            ("GM", "PC", "SE", "ID", "P0", "P1", "P2", "DT", "MV", "R"),
            result="short", dated=0.5, no_reveal=0.1, reveal_swapped=0.3, jump_bids=0.1),
)

#: Planned contracts and their weights: (contract kind, hand, level) where level is 0 plain,
#: 1 schneider announced, 2 schwarz announced, 3 ouvert. "suit" picks the longest suit.
#: The announced games win many auctions (their limits are high), so their weights are
#: small: about 2 % of the games end up schneider announced or more, 1 % ouvert.
_PLANS: tuple[tuple[tuple[str, bool, int], float], ...] = (
    (("suit", False, 0), 0.60), (("grand", False, 0), 0.15), (("null", False, 0), 0.06),
    (("null", True, 0), 0.015), (("null", False, 3), 0.02), (("null", True, 3), 0.01),
    (("suit", True, 0), 0.06), (("grand", True, 0), 0.03), (("suit", True, 1), 0.004),
    (("grand", True, 1), 0.002), (("suit", True, 2), 0.002), (("grand", True, 2), 0.0015),
    (("suit", True, 3), 0.0015), (("grand", True, 3), 0.0015),
)
_PLAN_KINDS = tuple(p for p, _ in _PLANS)
_PLAN_WEIGHTS = tuple(w for _, w in _PLANS)
CARD_NAMES = tuple(card.name for card in Card)  # by the engine's card number
_SUIT_CONTRACTS = (Contract.DIAMONDS, Contract.HEARTS, Contract.SPADES, Contract.CLUBS)


@dataclass(slots=True)
class OtherRecord:
    """One generated line and what it holds (for statistics and tests)."""

    text: str  # the line, without its line end
    program: str
    kind: str  # passed, penalty, suit, grand, null (+ hand, schneider, schwarz, ouvert)
    damage: str | None = None
    plays_on: bool = False  # a game played on after its R17 decisive trick
    stops_early: bool = False  # a game stopped at its R17 decisive trick
    newline: str = "\n"


# ---------------------------------------------------------------- play
def _plan(rng: random.Random, cards: tuple[Card, ...]) -> tuple[Declaration, int] | None:
    """A seat's planned declaration and its bid limit (None: it will not bid)."""
    if rng.random() > 0.62:
        return None
    kind, hand, level = rng.choices(_PLAN_KINDS, _PLAN_WEIGHTS)[0]
    jacks = sum(1 for c in cards if c.rank is Rank.JACK)
    if kind == "grand" and jacks < 2 and rng.random() < 0.7:
        kind = "suit"
    if kind == "suit":
        lengths = Counter(c.suit for c in cards if c.rank is not Rank.JACK)
        best = max(lengths.values(), default=0)
        suit = rng.choice([s for s, n in lengths.items() if n == best]) if lengths else None
        contract = _SUIT_CONTRACTS[int(suit)] if suit is not None else Contract.CLUBS
    else:
        contract = Contract.GRAND if kind == "grand" else Contract.NULL
    declaration = Declaration.normalized(
        contract, hand=hand, schneider_announced=level in (1, 2) and kind != "null",
        schwarz_announced=level == 2, ouvert=level == 3)
    # the value of the planned game if won exactly (the engine scores it)
    points, tricks = (0, 0) if contract is Contract.NULL else (
        (120, 10) if level >= 2 else (90, 7) if level == 1 else (61, 5))
    mask = 0
    for c in cards:
        mask |= 1 << c
    score = score_game(declaration, bid=18, matadors=matadors(mask, contract),
                       declarer_points=points, declarer_tricks=tricks,
                       defender_tricks=10 - tricks, defender_points=120 - points)
    limit = max(v for v in BID_LADDER if v <= score.game_value)
    if contract is not Contract.NULL and rng.random() < 0.04:  # an optimistic bidder
        limit = BID_LADDER[min(BID_LADDER.index(limit) + rng.randint(1, 2),
                               len(BID_LADDER) - 1)]
    return declaration, limit


def _auction(state: GameState, limits: list[int], rng: random.Random, jump: float) -> None:
    """Each seat bids up to its limit among the calls the engine allows."""
    while state.phase is Phase.AUCTION:
        calls = state.legal_calls()
        seat = state.to_move
        assert seat is not None
        limit = limits[seat]
        first = calls[0]
        if type(first) is Hold:
            move = first if state.auction.bid <= limit else calls[1]
        else:
            bids = [c for c in calls if type(c) is Bid and c.value <= limit]
            if not bids:
                move = calls[-1]  # pass
            elif jump and len(bids) > 1 and rng.random() < jump:
                move = rng.choice(bids[:4])
            else:
                move = bids[0]
        state.apply_unchecked(move)


def _discards(held: list[Card], contract: Contract, rng: random.Random) -> tuple[Card, Card]:
    """Two cards to lay away: the null declarer's highest, else valuable non-trumps."""
    if rng.random() < 0.25:
        a, b = rng.sample(held, 2)
        return a, b
    if contract is Contract.NULL:
        ranked = sorted(held, key=lambda c: -card_power(c, contract))
    else:
        ranked = sorted(held, key=lambda c: (effective_suit(c, contract) == TRUMP,
                                             c.rank is Rank.ACE, -CARD_POINTS[c]))
    return ranked[0], ranked[1]


def _play(seat: int, card: Card) -> Play:
    """The engine's move for a card, the card as a plain int.

    Work-around, measured: ``GameState`` scores each trick with ``core.trick_points(*cards)``,
    and numba types a :class:`Card` (an IntEnum) argument by walking the enum's 32 members,
    about 0.3 ms a trick against 6 us for ints. Ints are the same cards to the engine (masks,
    tables, equality), so the games are the same and ten times faster to generate.
    """
    return Play(seat, cast(Card, int(card)))


def _choose_card(state: GameState, rng: random.Random) -> Card:
    legal = state.legal_cards()
    if len(legal) == 1:
        return legal[0]
    declaration = state.declaration
    assert declaration is not None
    contract = declaration.contract
    if not state.trick_cards and state.to_move == state.declarer \
            and contract is not Contract.NULL and rng.random() < 0.6:
        trumps = [c for c in legal if effective_suit(c, contract) == TRUMP]
        if trumps:
            return max(trumps, key=lambda c: card_power(c, contract))
    return rng.choice(legal)


def _concede(state: GameState, rng: random.Random, server: bool) -> tuple[list[Move], bool]:
    """A concession at a trick's end: the declarer resigns, or shows the cards and the
    defenders resign; on a server (``server``) also a time-out or a player leaving.

    Returns the moves and whether the record leaves the last one out: ISS writes a single
    defender's ``RE`` after ``SC`` and counts it as both resigning (the reader implies the
    other one), while the engine needs both to end the game."""
    declarer = state.declarer
    assert declarer is not None
    defenders = [s for s in range(3) if s != declarer]
    rng.shuffle(defenders)
    pick = rng.random() if server else rng.random() * 0.55
    if pick < 0.3:
        return [Resign(declarer)], False
    shown: list[Move] = [ShowCards(declarer), Resign(defenders[0]), Resign(defenders[1])]
    if pick < 0.55:
        return shown, False
    if pick < 0.65:
        return shown, True
    seat = rng.randrange(3)
    return [TimeOut(seat) if rng.random() < 0.6 else Leave(seat)], False


@dataclass(slots=True)
class _Game:
    deal_cards: list[Card]
    state: GameState
    revokes: list[tuple[int, Card]] = field(default_factory=list)  # (move index, held card)
    ended_by: str = ""
    implied_resign: bool = False  # the last move (a defender's RE) is left out of the record


def _play_game(rng: random.Random, program: Program) -> _Game:
    pack = list(Card)
    rng.shuffle(pack)
    if program.sorted_hands:  # suit by suit (clubs first), high ranks first
        for start in (0, 10, 20):
            pack[start:start + 10] = sorted(pack[start:start + 10], key=lambda c: -int(c))
    state = GameState(Deal.from_cards(pack), rules=program.rules)
    game = _Game(pack, state)
    plans = [_plan(rng, state.deal.hands[seat]) for seat in range(3)]
    limits = [p[1] if p else 0 for p in plans]
    _auction(state, limits, rng, program.jump_bids)
    if state.phase is Phase.DONE:
        return game
    declarer = state.declarer
    assert declarer is not None
    plan = plans[declarer]
    assert plan is not None
    declaration = plan[0]
    server = program.rules.early_endings
    if server and rng.random() < program.concessions * 0.1:  # gone before declaring
        state.apply(TimeOut(rng.randrange(3)) if rng.random() < 0.5 else Leave(declarer))
        game.ended_by = "penalty"
        return game
    if declaration.hand:
        state.apply(Declare(declarer, declaration))
    else:
        state.apply(PickUp(declarer))
        held = [c for c in Card if state.hands[declarer] >> c & 1]
        discard = Discard(declarer, _discards(held, declaration.contract, rng))
        if rng.random() < program.split_declare:
            state.apply(Declare(declarer, declaration))
            state.apply(discard)
        else:
            state.apply(discard)
            state.apply(Declare(declarer, declaration))
    concede_at = rng.randint(2, 8) if rng.random() < program.concessions else -1
    while not state.finished:
        if concede_at == len(state.tricks) and not state.trick_cards:
            moves, game.implied_resign = _concede(state, rng, server)
            for move in moves:
                state.apply(move)
            game.ended_by = "concession"
            break
        seat = state.to_move
        assert seat is not None
        card = _choose_card(state, rng)
        if state.trick_cards:
            legal = 0
            for c in state.legal_cards():
                legal |= 1 << c
            illegal = state.hands[seat] & ~legal
            if illegal:
                game.revokes.append((len(state.moves), Card(illegal.bit_length() - 1)))
        state.apply_unchecked(_play(seat, card))
    return game


def _plays_on(game: _Game) -> bool:
    """Whether an announced game went on past the trick where R17 lets a record stop."""
    declaration = game.state.declaration
    if declaration is None or not declaration.schneider_announced or \
            game.state.rules.early_endings:
        return False
    probe = GameState(game.state.deal, rules=ISKO_ISS)
    moves = game.state.moves
    for index, move in enumerate(moves):
        probe.apply_unchecked(move)
        if probe.finished:
            return index < len(moves) - 1
    return False


# ---------------------------------------------------------------- writing
def _contract_text(declaration: Declaration, style: str, rng: random.Random) -> str:
    letter = declaration.contract.letter
    mods = ""
    if declaration.hand:
        mods += "H"
    if declaration.schneider_announced:
        mods += "S"
    if declaration.schwarz_announced:
        mods += "Z"
    if declaration.ouvert:
        mods += "O"
    if style == "short":
        if declaration.ouvert and declaration.contract is not Contract.NULL:
            return letter + "O"
        return letter + mods.replace("SZ", "Z")
    if style == "shuffled":
        letters = list(mods)
        rng.shuffle(letters)
        return letter + "".join(letters)
    return letter + mods


def _cards_text(cards: list[Card] | tuple[Card, ...]) -> str:
    return ".".join(c.name for c in cards)


def _moves_text(game: _Game, program: Program, rng: random.Random) -> list[tuple[str, str]]:
    """The ``(who, action)`` pairs after the deal, in the program's spelling."""
    state = game.state
    moves = state.moves[:-1] if game.implied_resign else state.moves
    skat = state.deal.skat
    pairs: list[tuple[str, str]] = []
    discard_first = rng.random() < program.discard_first
    i = 0
    while i < len(moves):
        move = moves[i]
        kind = type(move)
        who = str(move.seat)
        if isinstance(move, Play):
            pairs.append((who, CARD_NAMES[move.card]))
        elif isinstance(move, Bid):
            pairs.append((who, str(move.value)))
        elif kind is Hold:
            pairs.append((who, "y"))
        elif kind is Pass:
            pairs.append((who, "p"))
        elif kind is PickUp:
            pairs.append((who, "s"))
            if rng.random() >= program.no_reveal:
                shown = (skat[1], skat[0]) if rng.random() < program.reveal_swapped else skat
                pairs.append(("w", _cards_text(shown)))
        elif kind is Discard or kind is Declare:
            pairs += _declaration_pairs(game, moves, i, program, rng, discard_first)
            if i + 1 < len(moves) and type(moves[i + 1]) in (Discard, Declare) \
                    and type(moves[i + 1]) is not kind:
                i += 1
        elif kind is Resign:
            pairs.append((who, "RE"))
        elif kind is ShowCards:
            pairs.append((who, "SC"))
        elif kind is TimeOut:
            pairs.append(("w", f"TI.{move.seat}"))
        elif kind is Leave:
            pairs.append(("w", f"LE.{move.seat}"))
        i += 1
    return pairs


def _declaration_pairs(game: _Game, moves: list[Move], i: int, program: Program,
                       rng: random.Random, discard_first: bool) -> list[tuple[str, str]]:
    """The declaration and the discards (moves i and maybe i + 1) as one or two pairs."""
    state = game.state
    declaration = state.declaration
    assert declaration is not None and state.declarer is not None
    who = str(state.declarer)
    contract = _contract_text(declaration, program.modifiers, rng)
    open_cards = ""
    if declaration.ouvert and rng.random() < program.ouvert_cards:
        dealt = state.deal.hands[state.declarer]
        if state.discard is None:
            shown = list(dealt)
        else:
            kept = (set(dealt) | set(state.deal.skat)) - set(state.discard)
            shown = [c for c in game.deal_cards if c in kept]
        open_cards = "." + _cards_text(shown)
    if state.discard is None:  # a hand game
        return [(who, contract + open_cards)]
    discard = _cards_text(state.discard)
    if type(moves[i]) is Declare:  # declared before discarding: always two moves
        return [(who, contract), (who, discard)]
    if discard_first:
        return [(who, discard), (who, contract)]
    return [(who, f"{contract}.{discard}{open_cards}")]


def _result_text(game: _Game, program: Program) -> str:
    state = game.state
    result = state.result()
    if result.outcome == "passed":
        return "passed"
    left = next((m.seat for m in state.moves if type(m) is Leave), -1)
    timed_out = next((m.seat for m in state.moves if type(m) is TimeOut), -1)
    resigned = int(any(type(m) is Resign for m in state.moves))
    if result.outcome == "penalty":
        flags = " ".join(f"p{s}:{int(s in (left, timed_out))}" for s in range(3))
        return (f"d:-1 penalty v:0 m:0 bidok p:0 t:0 s:0 z:0 {flags} l:{left}"
                f" to:{timed_out} r:{resigned}")
    score = result.score
    assert score is not None
    fields = {
        "d": f"d:{result.declarer}", "w": "win" if score.won else "loss",
        "v": f"v:{score.value}", "m": f"m:{result.matadors}",
        "b": "overbid" if score.overbid else "bidok", "p": f"p:{result.declarer_points}",
        "t": f"t:{result.declarer_tricks}", "s": f"s:{int(score.schneider)}",
        "z": f"z:{int(score.schwarz)}",
    }
    if program.result == "reordered":
        return " ".join(fields[k] for k in "vdmptszwb")
    text = " ".join(fields[k] for k in "dwvmbptsz")
    if program.result == "iss":
        text += f" p0:0 p1:0 p2:0 l:{left} to:{timed_out} r:{resigned}"
    return text


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


@dataclass(frozen=True, slots=True)
class _Table:
    """A session: who sits at the table, which program writes it, when it starts."""

    program: Program
    players: tuple[str, str, str]
    start: datetime
    number: int


def _table(seed: int, session: int, program_index: int) -> _Table:
    rng = random.Random(f"other-iss:{seed}:table:{session}")
    program = PROGRAMS[program_index]
    pool = _BOTS + _NAMES[:6] if program.bots else _NAMES
    a, b, c = rng.sample(pool, 3)
    start = EPOCH + timedelta(days=rng.randrange(3650), minutes=rng.randrange(600))
    return _Table(program, (a, b, c), start, 10_000 + session)


def _program_cycle() -> tuple[int, ...]:
    """Program indices for 25 consecutive blocks: each program's share of them (its weight),
    spread evenly, so that any nine consecutive blocks hold every program."""
    counts = [round(p.weight * 25) for p in PROGRAMS]
    keys = sorted(((k + 0.5) / n, i) for i, n in enumerate(counts) for k in range(n))
    return tuple(i for _, i in keys)


_CYCLE = _program_cycle()
BLOCK = 24  # records in a block: two 12-game sessions, or one 24-game club evening


def _session_of(seed: int, index: int) -> tuple[int, int, int]:
    """(session number, game number within it, program index) of record ``index``.

    Records are laid in blocks of :data:`BLOCK`; the block's program (by a cycle that the
    seed enters at its own place) decides how the block splits into sessions."""
    block, offset = divmod(index, BLOCK)
    program_index = _CYCLE[(block + seed * 7) % len(_CYCLE)]
    per = PROGRAMS[program_index].session_games
    return block * 2 + offset // per, offset % per, program_index


def make_record(seed: int, index: int, damaged: float = 0.0) -> OtherRecord:
    """Record ``index`` of the file of ``seed`` (a share ``damaged`` of them damaged)."""
    session, number, program_index = _session_of(seed, index)
    table = _table(seed, session, program_index)
    program = table.program
    rng = random.Random(f"other-iss:{seed}:game:{index}")
    game = _play_game(rng, program)
    state = game.state
    declaration = state.declaration
    kind = "passed" if state.declarer is None else (
        "penalty" if declaration is None else declaration.contract.label)
    if declaration is not None:
        for flag, name in ((declaration.hand, "hand"),
                           (declaration.schneider_announced, "schneider"),
                           (declaration.schwarz_announced, "schwarz"),
                           (declaration.ouvert, "ouvert")):
            if flag:
                kind += "+" + name
    pairs = _moves_text(game, program, rng)
    deal = game.deal_cards
    if rng.random() < program.hand_bars:
        deal_text = "|".join(_cards_text(deal[k:k + 10]) for k in (0, 10, 20)) \
            + "|" + _cards_text(deal[30:])
    else:
        deal_text = _cards_text(deal)
    seats = tuple(table.players[(number + s) % 3] for s in range(3))
    played_at = table.start + timedelta(seconds=150 * number + rng.randrange(120))
    values: dict[str, str] = {
        "GM": "Skat", "SE": str(table.number), "ID": str(700_000 + index),
        "P0": seats[0], "P1": seats[1], "P2": seats[2],
        "R": _result_text(game, program), "TB": str(1 + table.number % 7),
    }
    if program.pc is not None:
        values["PC"] = program.pc
    if rng.random() < program.dated:
        values["DT"] = played_at.strftime("%Y-%m-%d/%H:%M:%S/UTC")
    values["CO"] = rng.choice(_COMMENTS) if rng.random() < program.comment else ""
    for s, tag in enumerate(("R0", "R1", "R2")):
        if program.ratings:
            values[tag] = program.ratings[(index + s) % len(program.ratings)]
    damage = None
    if damaged and rng.random() < damaged:
        damage = _damage(rng, game, pairs, values)
    values["MV"] = "w " + deal_text + program.sep + program.sep.join(
        f"{who} {action}" for who, action in pairs) + program.mv_trailing
    if damage == "missing_mv":
        del values["MV"]
    props = [f"{tag}[{_escape(values[tag])}]" for tag in program.tags if tag in values]
    if damage == "junk":
        at = rng.randrange(1, len(props))
        props[at] = rng.choice(_JUNK) + props[at]
    text = program.opening + program.prop_sep.join(props) + program.closing
    if damage == "cut_off":
        text = text[:rng.randint(12, len(text) - len(program.closing) - 1)].rstrip()
    record = OtherRecord(text, program.name, kind, damage, newline=program.newline)
    if damage is None:
        record.plays_on = _plays_on(game)
        record.stops_early = program.rules.early_endings and state.phase is not Phase.DONE \
            and not game.ended_by
    return record


def _damage(rng: random.Random, game: _Game, pairs: list[tuple[str, str]],
            values: dict[str, str]) -> str:
    """Damage the record (its move pairs or tag values) in place; returns the kind."""
    damage = rng.choice(DAMAGES)
    state = game.state
    plays = [k for k, (who, action) in enumerate(pairs) if _is_play(who, action)]
    if damage == "revoke" and not game.revokes:
        damage = "card_not_held"
    if damage in ("card_not_held", "unknown_card") and len(plays) < 4:
        damage = "cut_off"
    if damage == "wrong_value" and (state.declaration is None or state.result().score is None):
        damage = "cut_off"
    if damage == "revoke":
        index, card = rng.choice(game.revokes)
        k = _pair_of_move(state.moves, index, pairs)
        pairs[k] = (pairs[k][0], card.name)
    elif damage == "card_not_held":
        k = rng.choice(plays[3:])
        who = pairs[k][0]
        earlier = [pairs[j][1] for j in plays if j < k and pairs[j][0] == who]
        others = [pairs[j][1] for j in plays if j < k]
        pairs[k] = (who, rng.choice(earlier or others))
    elif damage == "unknown_card":
        k = rng.choice(plays)
        pairs[k] = (pairs[k][0], "??")
    elif damage == "bad_bid":
        first = next(k for k, (who, _) in enumerate(pairs) if who != "w")
        pairs[first] = (pairs[first][0], str(rng.choice(_OFF_LADDER)))
    elif damage == "wrong_value":
        score = state.result().score
        assert score is not None and state.declaration is not None
        value = score.value
        if value < 0 and not state.declaration.schneider_announced and rng.random() < 0.5:
            wrong = value // 2  # a lost game counted single
        else:
            wrong = value + (state.declaration.base_value if value > 0
                             else -2 * state.declaration.base_value)
        values["R"] = values["R"].replace(f"v:{value}", f"v:{wrong}", 1)
    return damage


def _is_play(who: str, action: str) -> bool:
    """Whether a written pair plays a card (``1 HA``; not a bid like ``1 18``)."""
    return who != "w" and len(action) == 2 and action[0] in "CSHD" and action[1] in "789TJQKA"


def _pair_of_move(moves: list[Move], index: int, pairs: list[tuple[str, str]]) -> int:
    """The pair that holds the card of play move ``index`` (plays keep their order)."""
    nth = sum(1 for m in moves[:index] if type(m) is Play)
    seen = 0
    for k, (who, action) in enumerate(pairs):
        if _is_play(who, action):
            if seen == nth:
                return k
            seen += 1
    raise ValueError(f"no play move {index}")


# ---------------------------------------------------------------- files
def iter_records(seed: int, start: int, count: int, damaged: float = 0.0
                 ) -> Iterator[OtherRecord]:
    """Records ``start`` .. ``start + count - 1`` of the file of ``seed``."""
    for index in range(start, start + count):
        yield make_record(seed, index, damaged)


def _stats(record: OtherRecord, stats: Counter[str]) -> None:
    stats["records"] += 1
    stats[f"program {record.program}"] += 1
    stats[f"kind {record.kind.split('+')[0]}"] += 1
    for flag in record.kind.split("+")[1:]:
        stats[f"flag {flag}"] += 1
    if record.damage:
        stats[f"damage {record.damage}"] += 1
    if record.plays_on:
        stats["plays on after R17"] += 1
    if record.stops_early:
        stats["stops at R17"] += 1


def _chunk(job: tuple[int, int, int, float]) -> tuple[bytes, Counter[str]]:
    seed, start, count, damaged = job
    stats: Counter[str] = Counter()
    parts = []
    for record in iter_records(seed, start, count, damaged):
        parts.append(record.text + record.newline)
        _stats(record, stats)
    return "".join(parts).encode("utf-8"), stats


def write_file(path: Path, games: int, *, seed: int = 1, damaged: float = 0.0,
               workers: int = 2, chunk: int = 2_000) -> dict[str, int]:
    """Write ``games`` records to ``path`` (in ``workers`` processes); returns the counts
    (programs, contract kinds, damage, R17 endings), also saved beside it as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    jobs = [(seed, s, min(chunk, games - s), damaged) for s in range(0, games, chunk)]
    stats: Counter[str] = Counter()
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as out:
        if workers > 1:
            with mp.get_context("fork").Pool(workers) as pool:
                for block, counts in pool.imap(_chunk, jobs):
                    out.write(block)
                    stats.update(counts)
        else:
            for job in jobs:
                block, counts = _chunk(job)
                out.write(block)
                stats.update(counts)
    tmp.replace(path)
    summary = dict(sorted(stats.items()))
    stats_path(path).write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    return summary


def stats_path(path: Path) -> Path:
    return path.with_name(path.name + ".json")


def cached_file(games: int, *, seed: int = 1, damaged: float = 0.0, workers: int = 2,
                out: Path = OUT, quiet: bool = False) -> Path:
    """The file of these parameters under ``out``, written first if it is not there."""
    path = out / f"other-iss-{games}-seed{seed}-dmg{damaged:g}-v{GENERATOR_VERSION}.sgf"
    if path.exists() and stats_path(path).exists():
        if not quiet:
            print(f"corpus      {path} (cached)")
        return path
    if not quiet:
        print(f"corpus      writing {games:,} independent records to {path} ...", flush=True)
    start = time.perf_counter()
    write_file(path, games, seed=seed, damaged=damaged, workers=workers)
    took = time.perf_counter() - start
    if not quiet:
        print(f"            {took:.0f} s ({games / took:,.0f} records/s, {workers} workers)")
    return path


def load_stats(path: Path) -> dict[str, int]:
    result: dict[str, int] = json.loads(stats_path(path).read_text())
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200_000, help="records to write")
    parser.add_argument("--damaged", type=float, default=0.0, help="share of damaged lines")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, help="write here instead of the cache")
    args = parser.parse_args(argv)
    if not 0 <= args.damaged <= 1 or args.games < 1:
        parser.error("--games must be positive and --damaged between 0 and 1")
    if args.out is not None:
        stats = write_file(args.out, args.games, seed=args.seed, damaged=args.damaged,
                           workers=args.workers)
        path = args.out
    else:
        path = cached_file(args.games, seed=args.seed, damaged=args.damaged,
                           workers=args.workers)
        stats = load_stats(path)
    print(path)
    for key, count in stats.items():
        print(f"  {key:<28} {count:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
