"""Batches of simulated hands as numpy arrays, and their translation into engine moves."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..cards import DECK
from ..contract import Contract, Declaration
from ..deal import Deal
from ..jit import HAVE_NUMBA
from ..moves import (
    Bid,
    Declare,
    Discard,
    FosterDeclare,
    Gucki,
    Hold,
    Kontra,
    Move,
    Pass,
    PickUp,
    Play,
    Re,
    Turn,
)
from ..rules import FOSTER, ISKO, Rules
from .config import BadBotConfig, split_bot
from .foster_kernel import FOSTER_EXTRA_COLUMNS, simulate_foster_into
from .kernel import (
    EXTRA_COLUMNS,
    GAME_COLUMNS,
    MAX_CALLS,
    RANDOM_BOT,
    RULES_BOT,
    SESSION_HANDS,
    bock_pass,
    list_in_card_order,
    simulate_into,
)
from .reference import play_batch
from .tables import CALL_HOLD, CALL_PASS, DECL_T

#: The code of a bot the compiled loop does not play: a line-up with one is played by the
#: engine's players (:mod:`.reference`), hand by hand, into the same arrays.
REFERENCE_BOT = 2
#: Bot names understood by the batch simulator, and their codes (``pimc``: the search bot
#: of :mod:`skatlog.engine.pimc`, ``pimc:k=N`` with N sampled deals a card, default 20).
BOT_CODES = {"random": RANDOM_BOT, "rules": RULES_BOT, "pimc": REFERENCE_BOT}
_COL = {name: i for i, name in enumerate(GAME_COLUMNS)}
_EXTRA = {name: i for i, name in enumerate(EXTRA_COLUMNS)}
_FOSTER_EXTRA = {name: i for i, name in enumerate(FOSTER_EXTRA_COLUMNS)}


class UnknownBot(ValueError):
    """A bot name the simulator does not know."""


def bot_kind(name: str) -> str:
    """The kind of a bot name (``random``, ``rules``, ``pimc``; ``rules:SETTINGS`` is a
    configured rules bot, :mod:`.config`, ``pimc:k=N`` a pimc bot sampling N deals a card);
    UnknownBot for a name the simulator does not know."""
    if name == "pimc" or name.startswith("pimc:"):
        pimc_samples(name)
        return "pimc"
    try:
        kind, _ = split_bot(name)
    except BadBotConfig as err:
        raise UnknownBot(f"bot {name!r}: {err}") from None
    if kind not in BOT_CODES:
        raise UnknownBot(f"unknown bot {kind!r}; choose from {', '.join(sorted(BOT_CODES))}"
                         " (rules:SETTING+... for a configured rules bot, pimc:k=N)")
    return kind


def pimc_samples(name: str) -> int:
    """The deals a ``pimc`` or ``pimc:k=N`` bot samples for each card; UnknownBot else."""
    from ..pimc import DEFAULT_K

    if name == "pimc":
        return DEFAULT_K
    key, _, value = name.removeprefix("pimc:").partition("=")
    if key != "k" or not value.isdigit() or not 1 <= int(value) <= 1000:
        raise UnknownBot(f"bot {name!r}: the pimc bot takes one setting, k=N (1-1000 "
                         "deals sampled a card), as in pimc:k=8")
    return int(value)


def compiled_bot(name: str) -> bool:
    """Whether the compiled loop plays this bot (``random``, ``rules:...``), so that a
    hand it played can be re-simulated in microseconds (claims, ``verify``)."""
    return BOT_CODES[bot_kind(name)] != REFERENCE_BOT


def bot_codes(bots: tuple[str, str, str] | list[str]) -> np.ndarray:
    """Kernel codes for three bot names (table positions 0, 1, 2)."""
    if len(bots) != 3:
        raise UnknownBot(f"give exactly three bots, not {len(bots)}")
    return np.array([BOT_CODES[bot_kind(b)] for b in bots], dtype=np.int64)


def bot_configs(bots: tuple[str, str, str] | list[str]) -> np.ndarray:
    """The rules-bot configurations of three bot names, one row per table position."""
    return np.array([split_bot(b)[1] if bot_kind(b) != "pimc" else split_bot("rules")[1]
                     for b in bots], dtype=np.float64)


def seat_positions(index: int) -> tuple[int, int, int]:
    """Table positions sitting Forehand, Middlehand, Rearhand in hand ``index``: the dealer
    is position ``index % 3`` and sits Rearhand (R1, R2)."""
    dealer = index % 3
    return ((dealer + 1) % 3, (dealer + 2) % 3, dealer)


@dataclass
class BatchGames:
    """Hands ``start .. start + len - 1`` of a simulation run (one row per hand).

    ``game`` holds the :data:`~.kernel.GAME_COLUMNS`; ``calls`` the auction codes (the value
    of a bid, 1 hold, 0 pass) with ``call_seats``; ``cards`` the cards in play order and
    ``winners`` each trick's winning seat (-1 pads both).
    """

    seed: int
    start: int
    bots: tuple[str, str, str]
    deal: np.ndarray
    n_calls: np.ndarray
    calls: np.ndarray
    call_seats: np.ndarray
    game: np.ndarray
    discard: np.ndarray
    cards: np.ndarray
    winners: np.ndarray
    #: The rule set the hands were played under (``isko``, or with the house options
    #: ``kontra_re``, ``ramsch``, ``bock``), and then its :data:`~.kernel.EXTRA_COLUMNS`
    #: a hand.
    rules: Rules = ISKO
    extra: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.deal.shape[0])

    def column(self, name: str) -> np.ndarray:
        """One of :data:`~.kernel.GAME_COLUMNS` (or, under the house options, of
        :data:`~.kernel.EXTRA_COLUMNS`; under ``foster`` of
        :data:`~.foster_kernel.FOSTER_EXTRA_COLUMNS`) for every hand."""
        if self.rules.foster and name in _FOSTER_EXTRA:
            assert self.extra is not None
            return self.extra[:, _FOSTER_EXTRA[name]]
        if name in _EXTRA:
            assert self.extra is not None, "no house options in this batch"
            return self.extra[:, _EXTRA[name]]
        return self.game[:, _COL[name]]

    @property
    def index(self) -> np.ndarray:
        """The global hand index of every row."""
        return np.arange(self.start, self.start + len(self), dtype=np.int64)

    def deal_of(self, row: int) -> Deal:
        return Deal.from_cards([int(c) for c in self.deal[row]])

    def declaration_of(self, row: int) -> Declaration | None:
        """The modern declaration of the hand (None when passed in, a Ramsch or under
        ``foster``, whose games are not modern declarations: :meth:`moves`)."""
        decl = int(self.game[row, _COL["decl"]])
        if decl < 0 or self.rules.foster:
            return None
        contract, hand, schneider, schwarz, ouvert = (int(x) for x in DECL_T[decl])
        return Declaration(Contract(contract), bool(hand), bool(schneider), bool(schwarz),
                           bool(ouvert))

    def moves(self, row: int) -> list[Move]:
        """The hand's moves as engine values, in the order they were made."""
        moves = self._calls(row)
        if self.rules.foster:
            return moves + self._foster_game(row)
        declaration = self.declaration_of(row)
        if declaration is None:  # passed in, or a Ramsch: Forehand leads (R20)
            return moves + self._plays(row, 0)
        declarer = int(self.game[row, _COL["declarer"]])
        declare = Declare(declarer, declaration)
        if self.game[row, _COL["pickup"]]:
            moves.append(PickUp(declarer))
            discard = Discard(declarer, (DECK[int(self.discard[row, 0])],
                                         DECK[int(self.discard[row, 1])]))
            if self.game[row, _COL["declare_first"]]:
                moves += [declare, discard]
            else:
                moves += [discard, declare]
        else:
            moves.append(declare)
        if self.extra is not None and self.extra[row, 0] >= 0:  # R19: before the first card
            moves.append(Kontra(int(self.extra[row, 0])))
            if self.extra[row, 1]:
                moves.append(Re(declarer))
        return moves + self._plays(row, 0)

    def _calls(self, row: int) -> list[Move]:
        moves: list[Move] = []
        for k in range(int(self.n_calls[row])):
            code = int(self.calls[row, k])
            seat = int(self.call_seats[row, k])
            if code == CALL_PASS:
                moves.append(Pass(seat))
            elif code == CALL_HOLD:
                moves.append(Hold(seat))
            else:
                moves.append(Bid(seat, code))
        return moves

    def _foster_game(self, row: int) -> list[Move]:
        """F5: the skat moves of a Foster hand (a turned card, gucki, or a solo named
        alone), the lay-out, and the cards; a Ramsch goes straight to the cards (F4)."""
        declarer = int(self.game[row, _COL["declarer"]])
        if declarer < 0:
            return self._plays(row, 0)
        x = self.extra
        assert x is not None
        kind = int(self.game[row, _COL["decl"]])
        declare = FosterDeclare(declarer, kind, bool(x[row, _FOSTER_EXTRA["schneider_announced"]]),
                                bool(x[row, _FOSTER_EXTRA["schwarz_announced"]]))
        moves: list[Move]
        turned = int(x[row, _FOSTER_EXTRA["turned"]])
        if not self.game[row, _COL["pickup"]]:
            moves = [declare]
        else:
            if turned >= 0:
                moves = [Turn(declarer, DECK[turned],
                              bool(x[row, _FOSTER_EXTRA["passt_mir_nicht"]])), declare]
            elif self.game[row, _COL["declare_first"]]:  # a gucki nullo, named first
                moves = [declare, Gucki(declarer)]
            else:
                moves = [Gucki(declarer), declare]
            moves.append(Discard(declarer, (DECK[int(self.discard[row, 0])],
                                            DECK[int(self.discard[row, 1])])))
        return moves + self._plays(row, 0)

    def _plays(self, row: int, leader: int) -> list[Move]:
        plays: list[Move] = []
        for k in range(int(self.game[row, _COL["n_cards"]])):
            trick, pos = divmod(k, 3)
            plays.append(Play((leader + pos) % 3, DECK[int(self.cards[row, k])]))
            if pos == 2:
                leader = int(self.winners[row, trick])
        return plays


def _threads() -> int:
    try:
        import numba
    except ImportError:  # pragma: no cover
        return 1
    return int(numba.get_num_threads())


def _slices(count: int, threads: int) -> list[tuple[int, int]]:
    """``count`` rows cut into at most ``threads`` contiguous slices (none when empty)."""
    parts = max(1, min(threads, count // 2048 or 1))
    bounds = [count * k // parts for k in range(parts + 1)]
    return [(bounds[k], bounds[k + 1]) for k in range(parts) if bounds[k + 1] > bounds[k]]


def simulate_batch(
    seed: int,
    start: int,
    count: int,
    bots: tuple[str, str, str] | list[str] = ("rules", "rules", "rules"),
    threads: int | None = None,
    in_card_order: bool = True,
    rules: Rules = ISKO,
) -> BatchGames:
    """Simulate hands ``start .. start + count - 1`` of the run ``seed``.

    ``bots`` sit at table positions 0, 1, 2; the dealer rotates with the hand index, so every
    bot plays every seat. The result depends only on (seed, hand index, bots), never on
    ``threads`` (default: ``numba.get_num_threads()``, see ``simulate.set_workers``).
    Each deal lists its hands and skat in card order (:func:`.kernel.list_in_card_order`);
    ``in_card_order=False`` keeps the shuffled order instead (the generator fingerprint,
    which dates from before, hashes that order, so run ids stay what they were).
    ``rules``: ``isko`` or ``isko`` with its house options ``kontra_re``, ``ramsch`` and
    ``bock`` (:func:`check_simulated_rules`), played by the compiled loop; under ``bock``
    the hands form 12-hand sessions by index (:func:`.kernel.bock_pass`); ``foster`` is
    played by its own loop (:func:`.foster_kernel.simulate_foster_into`) into the same
    arrays, his facts in ``extra``.
    """
    batch = _play(seed, start, count, bots, threads, in_card_order, rules)
    if rules.bock and count:
        assert batch.extra is not None
        bock_pass(start, batch.game, batch.extra, _bock_owed(seed, start, bots, rules),
                  rules.flags)
    return batch


def _play(
    seed: int,
    start: int,
    count: int,
    bots: tuple[str, str, str] | list[str] = ("rules", "rules", "rules"),
    threads: int | None = None,
    in_card_order: bool = True,
    rules: Rules = ISKO,
) -> BatchGames:
    """:func:`simulate_batch` before the Bock pass: the hands as played."""
    check_simulated_rules(rules)
    if seed < 0 or start < 0 or count < 0:
        raise ValueError("seed, start and count must be non-negative")
    if not HAVE_NUMBA:  # as plain Python the kernel's fixed-width integer tricks misfire
        raise RuntimeError("the batch simulator needs numba: pip install 'skatlog[fast]'")
    codes = bot_codes(bots)
    cfgs = bot_configs(bots)
    # The kernel writes every element but the unused tail of the calls: only those two come
    # zeroed (free on fresh pages), the rest uninitialised.
    deal = np.empty((count, 32), dtype=np.int8)
    n_calls = np.empty(count, dtype=np.int16)
    calls = np.zeros((count, MAX_CALLS), dtype=np.int16)
    call_seats = np.zeros((count, MAX_CALLS), dtype=np.int8)
    game = np.empty((count, len(GAME_COLUMNS)), dtype=np.int16)
    discard = np.empty((count, 2), dtype=np.int8)
    cards = np.empty((count, 30), dtype=np.int8)
    winners = np.empty((count, 10), dtype=np.int8)
    arrays = (deal, n_calls, calls, call_seats, game, discard, cards, winners)
    flags = rules.flags
    foster = rules.foster
    extra = np.zeros((count if flags else 0, len(EXTRA_COLUMNS)), dtype=np.int16)
    if foster:  # F5, F12: the turned card, gucki, announcements and Ramsch by seat
        extra = np.empty((count, len(FOSTER_EXTRA_COLUMNS)), dtype=np.int16)
    if (flags or foster) and (codes == REFERENCE_BOT).any():
        raise UnknownBot(f"the pimc bot plays {ISKO} only, not {rules}")
    slices = _slices(count, threads if threads is not None else _threads())
    reference = bool((codes == REFERENCE_BOT).any())
    if reference:  # the engine's players, a hand at a time: a slice a thread even for a few
        # hands (the solver's search releases the GIL; the players' Python between does not)
        parts = max(1, min(threads if threads is not None else _threads(), count))
        bounds = [count * k // parts for k in range(parts + 1)]
        slices = [(bounds[k], bounds[k + 1]) for k in range(parts) if bounds[k + 1] > bounds[k]]

    def play(begin: int, end: int) -> None:
        if reference:
            play_batch(seed, start + begin, bots, *(a[begin:end] for a in arrays))
        elif foster:
            simulate_foster_into(seed, start + begin, codes, cfgs,
                                 *(a[begin:end] for a in arrays), extra[begin:end])
        else:
            simulate_into(seed, start + begin, codes, cfgs, *(a[begin:end] for a in arrays),
                          flags, extra[begin:end])
        if in_card_order:
            list_in_card_order(deal[begin:end])

    if len(slices) == 1:
        play(*slices[0])
    elif slices:
        with ThreadPoolExecutor(max_workers=len(slices)) as pool:
            jobs = [pool.submit(play, b, e) for b, e in slices]
            for job in jobs:
                job.result()
    return BatchGames(seed, start, (bots[0], bots[1], bots[2]), deal, n_calls, calls,
                      call_seats, game, discard, cards, winners, rules,
                      extra if flags or foster else None)


def _bock_owed(seed: int, start: int, bots: tuple[str, str, str] | list[str],
               rules: Rules) -> int:
    """The Bock hands hand ``start``'s session owes before it (R21): the session's earlier
    hands are played again (microseconds each) and passed over."""
    first = start - start % SESSION_HANDS
    if first == start:
        return 0
    lead = _play(seed, first, start - first, bots, 1, True, rules)
    assert lead.extra is not None
    return int(bock_pass(first, lead.game, lead.extra, 0, rules.flags))


#: The options of ``isko`` the compiled loop plays (R19-R21). With ``bock`` a run is
#: dealt in sessions of 12 hands by hand index, each starting without Bock rounds.
SIMULATED_OPTIONS = frozenset({"kontra_re", "ramsch", "bock"})


def check_simulated_rules(rules: Rules) -> None:
    """UnsupportedRules unless the simulator plays ``rules``: ``isko`` with any of
    :data:`SIMULATED_OPTIONS`, or ``foster`` at a table of three (its compiled loop,
    :mod:`.foster_kernel`); ``isko+iss`` (the conventions of recorded logs) is not
    simulated."""
    if rules == FOSTER:
        return
    if rules.name != ISKO.name or not set(rules.options) <= SIMULATED_OPTIONS:
        raise UnsupportedRules(
            f"the simulator plays {FOSTER}, {ISKO} and its options "
            f"{', '.join(sorted(SIMULATED_OPTIONS))} (e.g. isko+kontra_re+ramsch), not "
            f"{rules}")


class UnsupportedRules(ValueError):
    """A rule set the batch simulator does not play."""
