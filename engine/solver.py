"""Perfect-information ("double dummy") Skat: best play by both sides with every card known.

A :class:`Position` is any moment of the card play: after the discard, or at any card of any
trick (:meth:`Position.from_state` reads one off a :class:`~.game.GameState`). The
:class:`Solver` answers, by the compiled search of :mod:`.solver_kernel`:

* :meth:`Solver.solve`: the declarer's card points with best play by both sides (suit and
  grand; skat and tricks already won included), or in null the tricks he cannot avoid (0 or
  1: a null ends at his first trick, R9), with a best line;
* :meth:`Solver.reaches` / :meth:`Solver.takes_all` / :meth:`Solver.wins`: the won/lost
  question alone, by a null window (is the value at least ``t``?), much faster than the value;
* :func:`target`: what the declarer must reach for the game as declared to be won -- found by
  asking the rules core's ``score`` (61 or 90 points, every trick, or nothing when overbid),
  never restated here.

The declarer's points and the defenders' points with best play add up to 120; a line the
solver returns, replayed through the engine, scores what the solver says (both tested).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import core
from . import solver_kernel as k
from .cards import DECK, Card
from .contract import Declaration
from .game import GameState, Phase
from .moves import Play
from .record import GameRecord

#: What a declarer needs (:func:`target`): card points, every trick, a null's no trick, or
#: nothing can win the game (overbid).
NEED_POINTS, NEED_ALL_TRICKS, NEED_NO_TRICK, NEED_UNWINNABLE = "points", "all tricks", \
    "no trick", "unwinnable"


#: Where :meth:`Solver._exact` places each null window in ``[lower, upper]`` (0.5 would be
#: bisection): measured on the rules bot's hands, 0.85-0.95 spend the fewest nodes.
PROBE_FROM_ABOVE = 0.9


@dataclass(frozen=True)
class Position:
    """A moment of the card play with every card known.

    ``hands`` are the three seats' card masks (cards on the table excluded); ``trick`` the
    cards on the table in play order, led by ``leader``; ``declarer_points`` and
    ``declarer_tricks`` what the declarer holds already (tricks won and the skat's points);
    ``tricks_played`` the tricks completed.
    """

    hands: tuple[int, int, int]
    contract: int
    declarer: int
    leader: int
    trick: tuple[int, ...] = ()
    declarer_points: int = 0
    declarer_tricks: int = 0
    tricks_played: int = 0

    def __post_init__(self) -> None:
        sizes = [bin(h).count("1") for h in self.hands]
        n = len(self.trick)
        if n > 2 or not 0 <= self.leader <= 2 or not 0 <= self.declarer <= 2:
            raise ValueError("a position has a leader and declarer 0..2 and at most 2 cards "
                             "on the table")
        want = [sizes[self.leader] + (1 if n > 0 else 0)] * 3
        for i in range(3):
            seat = (self.leader + i) % 3
            if sizes[seat] + (1 if i < n else 0) != want[0]:
                raise ValueError(f"hand sizes {sizes} do not fit a trick of {n} led by seat "
                                 f"{self.leader}")
        if self.tricks_played + want[0] != core.N_TRICKS:
            raise ValueError(f"{self.tricks_played} tricks played but {want[0]} cards a hand")

    @property
    def to_move(self) -> int:
        return (self.leader + len(self.trick)) % 3

    @property
    def null(self) -> bool:
        return self.contract == core.NULL

    @property
    def over(self) -> bool:
        """No card follows: ten tricks played, or a null whose declarer took a trick (R9)."""
        return self.tricks_played == core.N_TRICKS or (self.null and self.declarer_tricks > 0)

    @classmethod
    def from_state(cls, state: GameState) -> Position:
        """The position of a game in its card play (or finished), as the engine holds it."""
        if state.declaration is None or state.declarer is None or state.phase not in (
                Phase.PLAY, Phase.DONE):
            raise ValueError("the game has no card play yet (declare first)")
        return cls(
            (state.hands[0], state.hands[1], state.hands[2]), int(state.declaration.contract),
            state.declarer, state.leader, tuple(int(c) for c in state.trick_cards),
            state.declarer_points - state.credited_points,
            state.declarer_tricks - state.credited_tricks, len(state.tricks))

    def play(self, card: int) -> Position:
        """The position after ``card`` is played by the seat to move (assumed legal)."""
        seat = self.to_move
        hands = list(self.hands)
        hands[seat] &= ~(1 << card)
        trick = (*self.trick, card)
        if len(trick) < 3:
            return Position((hands[0], hands[1], hands[2]), self.contract, self.declarer,
                            self.leader, trick, self.declarer_points, self.declarer_tricks,
                            self.tricks_played)
        winner = (self.leader + int(core.trick_winner(self.contract, *trick))) % 3
        points, tricks = self.declarer_points, self.declarer_tricks
        if winner == self.declarer:
            points += int(core.trick_points(*trick))
            tricks += 1
        return Position((hands[0], hands[1], hands[2]), self.contract, self.declarer, winner,
                        (), points, tricks, self.tricks_played + 1)

    def legal(self) -> list[int]:
        """The cards the seat to move may play (R8, from the core)."""
        follow = core.follow_mask(self.contract, self.trick[0] if self.trick else -1)
        legal = int(core.legal_cards(self.hands[self.to_move], follow))
        return [c for c in range(32) if (legal >> c) & 1]


@dataclass(frozen=True)
class Solution:
    """A best-play result: ``value`` is the declarer's final card points (suit, grand) or
    tricks (null: 0 or 1); ``line`` the (seat, card) moves of one best line to the end."""

    value: int
    line: tuple[tuple[int, Card], ...]
    nodes: int = 0

    @property
    def defender_value(self) -> int:
        """The defenders' card points with the same best play (suit and grand)."""
        return 120 - self.value


def target(declaration: Declaration, bid: int, matadors: int) -> tuple[str, int]:
    """What the declarer must reach for ``declaration`` at ``bid`` to be won: ``(NEED_POINTS,
    p)`` card points, ``(NEED_ALL_TRICKS, 10)``, ``(NEED_NO_TRICK, 0)`` in null, or
    ``(NEED_UNWINNABLE, 0)`` (overbid whatever happens). Asked of :func:`core.score`, the
    one place that knows the objectives and the values (R11-R15)."""
    d = declaration
    args = (int(d.contract), d.hand, d.schneider_announced, d.schwarz_announced, d.ouvert,
            bid, matadors)
    if d.contract == core.NULL:
        won = core.score(*args, 0, 0, 0, core.N_TRICKS, False)[0]
        return (NEED_NO_TRICK, 0) if won else (NEED_UNWINNABLE, 0)
    for p in range(121):
        if core.score(*args, p, 120 - p, core.N_TRICKS - 1, 1, False)[0]:
            return NEED_POINTS, p
    if core.score(*args, 120, 0, core.N_TRICKS, 0, False)[0]:
        return NEED_ALL_TRICKS, core.N_TRICKS
    return NEED_UNWINNABLE, 0


def won_by_value(need: tuple[str, int], value: int) -> bool | None:
    """Whether the declarer reaches ``need`` (a :func:`target`), read off the exact
    ``value`` of :meth:`Solver.value` (card points; null: 1 if he cannot avoid a trick)
    where that answers it; None for every trick (:meth:`Solver.takes_all` asks that). Spares
    a won/lost search after the value (``skatlog analyze`` asks both)."""
    kind, amount = need
    if kind == NEED_POINTS:
        return value >= amount
    if kind == NEED_NO_TRICK:
        return value == 0
    if kind == NEED_UNWINNABLE:
        return False
    return None


@dataclass
class Solver:
    """The compiled search with its transposition table (4 MB, reused across calls).

    Each question gets a fresh generation of the table unless ``keep=True`` says it is the
    same game and the same question as the call before (positions of one game's play)."""

    _table: np.ndarray = field(default_factory=k.new_table, repr=False)
    _ctx: np.ndarray = field(default_factory=lambda: np.zeros(k.CTX_SIZE, np.int64), repr=False)
    _problem: tuple[int, ...] = ()
    nodes: int = 0

    # ------------------------------------------------------------- the raw search
    def _begin(self, pos: Position, mode: int, keep: bool) -> None:
        problem = (pos.contract, pos.declarer, mode)
        if keep and problem == self._problem:
            return
        gen = int(self._ctx[k.CTX_GEN]) + 1
        if gen >= 1 << k.GEN_BITS:  # generations run out: clear the table
            self._table[:, 0] = -1
            self._table[:, 1] = 0
            gen = 1
        self._ctx[:k.CTX_SIZE] = (pos.contract, pos.declarer, mode, gen, 0)
        self._problem = problem

    def _future(self, pos: Position, mode: int, alpha: int, beta: int) -> int:
        """The declarer's gain from ``pos`` on (fail-soft in ``(alpha, beta)``)."""
        if pos.over:
            return 0
        hands = np.array(pos.hands, dtype=np.int64)
        n = len(pos.trick)
        t0 = pos.trick[0] if n > 0 else -1
        t1 = pos.trick[1] if n > 1 else -1
        rest = int(core.mask_points(pos.hands[0] | pos.hands[1] | pos.hands[2]))
        before = int(self._ctx[k.CTX_NODES])
        value = int(k.search(hands, t0, t1, n, pos.leader, rest, alpha, beta, self._ctx,
                             self._table))
        self.nodes += int(self._ctx[k.CTX_NODES]) - before
        return value

    def _exact(self, pos: Position, mode: int) -> int:
        """The exact future gain, by null windows: each search asks "at least ``beta``?"
        and its fail-soft answer narrows ``[lower, upper]``; the table carries what one
        window learnt into the next. Fewer nodes than one wide window, whose bounds are
        rarely tight enough to cut.

        The windows are not halves: a "yes" must try every card of both defenders and a
        "no" every card of the declarer only, so a "yes" costs several times a "no". Each
        window is placed :data:`PROBE_FROM_ABOVE` of the way up ``[lower, upper]``: cheap
        "no"s come down from above, and the dear "yes"s fall near the value (nodes a hand
        -10 to -15 % against bisection on 100-200 hands, median and mean)."""
        if pos.over:
            return 0
        lower = 0
        if mode == k.MODE_POINTS:
            table = sum(1 << c for c in pos.trick)
            upper = int(core.mask_points(pos.hands[0] | pos.hands[1] | pos.hands[2] | table))
        elif mode == k.MODE_TRICKS:
            upper = core.N_TRICKS - pos.tricks_played
        else:
            upper = 1
        while lower < upper:
            beta = lower + 1 + int((upper - lower - 1) * PROBE_FROM_ABOVE + 0.5)
            g = self._future(pos, mode, beta - 1, beta)
            if g < beta:
                upper = g
            else:
                lower = g
        return lower

    @staticmethod
    def _mode(pos: Position, tricks: bool = False) -> int:
        if pos.null:
            return k.MODE_NULL
        return k.MODE_TRICKS if tricks else k.MODE_POINTS

    def _already(self, pos: Position, mode: int) -> int:
        if mode == k.MODE_POINTS:
            return pos.declarer_points
        if mode == k.MODE_TRICKS:
            return pos.declarer_tricks
        return 1 if pos.declarer_tricks > 0 else 0

    # ------------------------------------------------------------- questions
    def value(self, pos: Position, *, tricks: bool = False, keep: bool = False) -> int:
        """The declarer's final card points with best play (``tricks=True``: tricks); in
        null 1 if he cannot avoid a trick, else 0."""
        mode = self._mode(pos, tricks)
        self._begin(pos, mode, keep)
        if mode == k.MODE_NULL and pos.declarer_tricks > 0:
            return 1
        return self._already(pos, mode) + self._exact(pos, mode)

    def at_least(self, pos: Position, goal: int, *, tricks: bool = False,
                 keep: bool = False) -> bool:
        """Whether best play gives the declarer at least ``goal`` card points (tricks), by one
        null-window search; in null, whether the defenders can give him ``goal`` tricks."""
        mode = self._mode(pos, tricks)
        self._begin(pos, mode, keep)
        need = goal - self._already(pos, mode)
        if need <= 0:
            return True
        if pos.over:
            return False
        return self._future(pos, mode, need - 1, need) >= need

    def reaches(self, pos: Position, points: int, *, keep: bool = False) -> bool:
        """Whether the declarer takes at least ``points`` card points with best play."""
        return self.at_least(pos, points, keep=keep)

    def takes_all(self, pos: Position, *, keep: bool = False) -> bool:
        """Whether the declarer takes every trick with best play."""
        return self.at_least(pos, core.N_TRICKS, tricks=True, keep=keep)

    def avoids_every_trick(self, pos: Position, *, keep: bool = False) -> bool:
        """Null: whether the declarer can avoid every trick."""
        return not self.at_least(pos, 1, keep=keep)

    def wins(self, pos: Position, need: tuple[str, int], *, keep: bool = False) -> bool:
        """Whether the declarer reaches ``need`` (a :func:`target`) with best play."""
        kind, amount = need
        if kind == NEED_POINTS:
            return self.reaches(pos, amount, keep=keep)
        if kind == NEED_ALL_TRICKS:
            return self.takes_all(pos, keep=keep)
        if kind == NEED_NO_TRICK:
            return self.avoids_every_trick(pos, keep=keep)
        return False

    def solve(self, pos: Position, *, tricks: bool = False) -> Solution:
        """The exact value and one best line to the end of the game."""
        start = self.nodes
        mode = self._mode(pos, tricks)
        value = self.value(pos, tricks=tricks)
        line: list[tuple[int, Card]] = []
        here = pos
        while not here.over:
            seat = here.to_move
            maximize = (seat == here.declarer) != (mode == k.MODE_NULL)
            chosen = None
            for card in here.legal():
                after = here.play(card)
                got = self._already(after, mode)
                if after.over:
                    ok = got >= value if maximize else got <= value
                elif maximize:  # the card keeps the value when the rest is worth enough
                    f = value - got
                    ok = f <= 0 or self._future(after, mode, f - 1, f) >= f
                else:
                    f = value - got
                    ok = f >= 0 and self._future(after, mode, f, f + 1) <= f
                if ok:
                    chosen = card
                    break
            assert chosen is not None, "no card keeps the solved value"
            line.append((seat, DECK[chosen]))
            here = here.play(chosen)
        return Solution(value, tuple(line), self.nodes - start)


def position_after_discard(state: GameState) -> Position:
    """The position when the card play of ``state``'s game began: the hands after the skat
    and discard (the tricks played since put back), Forehand to lead, the skat's points."""
    if state.declaration is None or state.declarer is None:
        raise ValueError("the game has no card play yet (declare first)")
    hands = list(state.hands)
    for trick in state.tricks:
        for seat, card in zip(trick.seats, trick.cards, strict=True):
            hands[seat] |= 1 << card
    for i, card in enumerate(state.trick_cards):
        hands[(state.leader + i) % 3] |= 1 << card
    return Position((hands[0], hands[1], hands[2]), int(state.declaration.contract),
                    state.declarer, 0, (), state.skat_points, 0, 0)


def state_at(record: GameRecord, cards: int = 0) -> GameState:
    """``record``'s game replayed (validated path) to the start of its card play, then
    ``cards`` cards into it; ValueError when it has no card play or fewer cards, or is
    played under Foster's rule set (his hands are not :class:`GameState` games)."""
    if record.rules.name == "foster":
        raise ValueError("a game under Foster's rules: the solver plays the modern rules")
    state = GameState(record.deal, rules=record.rules)
    moves = iter(record.moves)
    for move in moves:
        if state.phase is Phase.PLAY:
            break
        state.apply(move)
    else:
        move = None
    if state.phase is not Phase.PLAY:
        raise ValueError("the game has no card play (all passed, or it ended before a card)")
    played = 0
    while played < cards:
        if not isinstance(move, Play):
            raise ValueError(f"the game has {played} cards of play, not {cards}")
        state.apply(move)
        played += 1
        move = next(moves, None)
    return state


def card_line(solution: Solution, pos: Position) -> list[str]:
    """The solution's line as one text line per trick, ``trick 3: FH CJ MH C7 RH CA``
    (the first trick may start mid-trick)."""
    seats = ("FH", "MH", "RH")
    lines: list[str] = []
    here = pos
    trick = [f"{seats[(pos.leader + i) % 3]} {DECK[c]}" for i, c in enumerate(pos.trick)]
    for seat, card in solution.line:
        trick.append(f"{seats[seat]} {card}")
        here = here.play(int(card))
        if not here.trick:
            lines.append(f"trick {here.tricks_played}: " + "  ".join(trick))
            trick = []
    if trick:
        lines.append(f"trick {here.tricks_played + 1}: " + "  ".join(trick))
    return lines


_DEFAULT: Solver | None = None


def default_solver() -> Solver:
    """One shared :class:`Solver` per process (its table is allocated once)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Solver()
    return _DEFAULT


def solve(pos: Position, *, tricks: bool = False) -> Solution:
    """:meth:`Solver.solve` on the shared solver."""
    return default_solver().solve(pos, tricks=tricks)


__all__ = ["NEED_ALL_TRICKS", "NEED_NO_TRICK", "NEED_POINTS", "NEED_UNWINNABLE", "Position",
           "Solution", "Solver", "card_line", "default_solver", "position_after_discard", "solve",
           "state_at",
           "target", "won_by_value"]
