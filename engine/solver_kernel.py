"""The perfect-information ("double dummy") search, compiled: alpha-beta over the rules core.

Every card is known. A position is the three hands (32-bit masks), the trick on the table
(``n`` cards ``t0``, ``t1`` led by ``leader``) and what the declarer's side is after:

* ``MODE_POINTS`` (suit and grand): the card points the declarer still takes;
* ``MODE_TRICKS`` (suit and grand, the "every trick" question): the tricks he still takes;
* ``MODE_NULL``: whether the declarer takes a trick (1) or not (0); a null ends at his
  first trick (R9), so the search stops there.

A search value is always the declarer's gain from the position on; the declarer maximizes it
in suit and grand, the defenders maximize it in null. Legal cards, the trick winner and the
trick's points come from :mod:`.core` (``follow_mask``, ``legal_cards``, ``trick_winner``,
``trick_points``); no rule is written here.

Speed comes from these:

* alpha-beta, fail-soft, with bounds at trick boundaries: the points still in the hands
  (points), the tricks still to play (tricks), 1 (null); less what each side is sure of:
  the trump tricks its trumps take whatever is played, those the other side's higher
  trumps cannot all beat (:func:`_trumps`, a matching), with the cheapest cards the other
  side must give to these tricks (:func:`_cheapest`), and the plain-suit winners the
  leader can cash now while both others must follow (:func:`_cash`), and the declarer on
  lead with enough top trumps drawing them and then cashing (:func:`_draw_and_cash`);
  with a defender on lead, when the defenders hold no trump and the declarer does, he is
  sure of the same: he follows, winning with a top card of the suit if he holds one, or
  trumps, keeping every winner until he is on lead, and then cashes them (exact nodes -4
  to -5 % median, -3 to -4 % mean; won/lost -5 to -22 % median, -5 to -7 % mean);
  all of these only after the table is probed and did not cut (about half the probes cut,
  and the sure amounts are then wasted work: CPU -5 %, nodes +2 % exact, even won/lost);
* a transposition table of lower/upper bounds and the best lead, keyed at trick boundaries
  by the three hands and the leader (a value is the gain *from* the position, so it holds
  whichever way the position was reached); the hands are first made canonical
  (:func:`_canonical`: the cards of a run of equal suit and points that are still in play
  renamed to the run's lowest), so positions that differ only in which of, say, the 7, 8
  and 9 were played meet in one entry; entries carry a generation, so a new problem needs
  no clearing, and the window searches of one problem (:meth:`.solver.Solver.value`
  narrows the value by null windows) share what they learnt; a node where every card
  failed keeps the best card stored before, not its least bad one (exact nodes -0.1 to
  -1.8 % median, -1 to -1.5 % mean; won/lost -0.1 to -0.5 % mean); a filter of one bit
  per four slots with the generation in each of its words (8 KB, it stays in the
  caches) sends a probe whose slot holds nothing of this generation (more than half of
  them: a problem writes some thousands of the 262,144 entries) away without reading
  the entry, a miss of the nearer caches (CPU -5 to -9 % with a 64 MB table, same nodes);
  the table is 4 MB (2**18 entries; it was 64 MB, 2**22): once dominated cards were
  dropped a hand writes fewer entries, and one that stays in the CPU's last cache costs
  1.5 % more nodes but 3 % less CPU (paired in one process), and a new solver no longer
  faults in 64 MB as it first searches (pimc bot +21 % hands/s, analyze even);
* move ordering: the table's lead first (tried before the other leads are scored and
  sorted, which is done only when it does not cut: scoring a lead looks at both other
  hands; this spares about a tenth of the CPU), then leads that take the trick when all three
  play to win it (:func:`_lead_wins`; the declarer's plain-suit winners before his trumps),
  then the declarer's other trumps: the jacks from the top, then the trump suit's cards
  cheapest first (before: its ace and ten first; nodes -15 % exact, -10 to -35 % won/lost);
  when the defenders hold no trump, the declarer's trumps come after all his plain cards
  (nodes -10 to -20 % exact, mean -3 to -20 % won/lost); the defenders lead, under the
  winners, the plain suits the declarer holds fewest of but not none first, and leading
  through him (he plays second) of those the suits the partner holds most of (exact
  nodes -8 to -16 % median, -2 to -7 % mean, won/lost +5 to -18 % median, -3 to -9 %
  mean on three hand sets; a void of his first: +10 to +100 %);
  second to play, the cards after which the mover's side takes the trick whatever the
  third player plays, the richest first, then (the declarer only) his cards beating the
  lead that the third may still beat, the cheapest first (nodes exact -0.4 to -4 % median,
  -6 to -8 % mean), else the cheapest (:func:`_second_hand`, which looks at the third
  player's cards); last to play, take a trick the opponents are winning
  as richly as possible (of equal points, the lowest card), smear points onto a partner's
  trick, otherwise throw the least;
* the last two tricks solved directly (:func:`_endgame`: at most eight lines of plain
  minimax), without nodes, table or bounds; the last three too, once the table and the
  bounds of their boundary did not cut (:func:`_endgame3`: alpha-beta over the first of
  them, in the node's window, the value stored in the table as a node's: exact nodes -18
  to -20 %, won/lost -15 to -22 % mean, CPU -4 to -6 % A/B; solved before the table is
  probed, the table's cuts there were lost: CPU +50 %); their last two tricks solved
  inline on the hands as scalars (:func:`_endgame2`: no array written back, no call, the
  last trick's leader from the winner's seat, not a signed modulo: CPU -7 % exact, -9 %
  won/lost A/B, same nodes);
* equivalent cards merged: two cards of one hand and effective suit with no card still in
  play between them in rank and equal points (tricks and null: any) lead to the same
  value, so only one is tried; where the runs rise with the cards' numbers (points and
  null) all the legal cards are tested at once, a few shifts of masks, not a walk down
  from each card (``RUN_SHIFT``; CPU -5 %);
* dominated cards dropped (:func:`_dominant`): two cards of one hand and effective suit with
  no card in play between them in rank win and lose the same tricks from here on whatever
  their points, so swapping them between this trick and the later one the other goes to
  moves their points only between those two tricks: when the mover's side takes this
  trick whatever the players after him do (always known for the third card; for the first
  and second when no opponent after him can beat it, or one of them must: :func:`_takes`),
  the richer is at least as good for it, when it loses it whatever they do, the cheaper,
  and the other is not tried (the rule is tested node by node against plain minimax;
  exact nodes -57 %, won/lost -49 % on 100 hands; CPU -45 % exact, a hand's median -40 %,
  -36 % won/lost A/B);
* a cheap node (about 90 ns): the helpers the loop calls take and return scalars (an
  array passed to a helper made numba count its references, atomically, at every child:
  17 % of the time), and the hands and the moves are :func:`.bits.borrowed`, uncounted
  (numba still counted them, a call out, at each view ``moves[d]`` and each helper given
  the hands: CPU -6 %), bits are counted by the CPU (:mod:`.bits`), and the walks over
  cards below a card, the trumps and the runs are precomputed tables, and whether any of
  a hand's cards beats the card winning a trick is one mask test (``BEATEN_BY``); the
  explicit stack is one array, a row a depth (before: twenty arrays, whose addresses the
  loop kept reloading from the machine stack; CPU -6 %); :func:`_canonical` copies the
  cards named as they are with one mask at the end, and :func:`_trumps`' walk stops at the
  last trump in play (CPU -3 % exact, -1 % won/lost A/B); :func:`_cash` is inlined into
  the search, not called (CPU -3 % exact, -1 to -4 % won/lost A/B).

:func:`minimax` is the plain reference search (no pruning, no table, no merging) that the
tests and ``bench/solver.py --check`` hold the solver to.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from . import core
from .bits import borrowed
from .bits import ctpop as _popcount  # one popcnt instruction
from .jit import njit

MODE_POINTS = 0
MODE_TRICKS = 1
MODE_NULL = 2

#: Slots of the context array the search reads and updates.
CTX_CONTRACT, CTX_DECLARER, CTX_MODE, CTX_GEN, CTX_NODES = 0, 1, 2, 3, 4
CTX_SIZE = 5

#: log2 of the transposition table's size.
TT_BITS = 18
TT_SIZE = 1 << TT_BITS
#: The second key word: a hand (32 bits), the leader (2), the generation (GEN_BITS); the
#: entry's lower and upper bound (7 bits each; 127 = none) and best lead + 1 (6) above it.
GEN_BITS = 10
KEY2_BITS = 34 + GEN_BITS
KEY2_MASK = (1 << KEY2_BITS) - 1
NO_BOUND = 127
#: The table's filter (rows after the entries): one bit for every 2**FILTER_SHIFT slots,
#: set when one of them is written; 32 bits a word, the generation they belong to above
#: them. A probe whose bit is clear (or of another generation) misses without reading the
#: entry: most probes of a problem meet no entry of its generation, and reading one is a
#: miss of the caches (the filter stays in them).
FILTER_SHIFT = 2
FILTER_ROWS = TT_SIZE >> (FILTER_SHIFT + 6)
MAX_DEPTH = 32
#: The columns of the search's explicit stack, one row a depth (one array: the loop keeps
#: one base address, not twenty).
(S_N, S_T0, S_T1, S_LEAD, S_REST, S_AL, S_BE, S_A0, S_B0, S_BEST, S_CHOSEN, S_COUNT, S_IDX,
 S_LAZY, S_CUR, S_GAIN, S_SLOT, S_KEY1, S_KEY2) = range(19)
STACK_COLS = 20  # the 19 columns and one spare
#: SEAT[i] -> i % 3 for the seats counted on from a leader (no signed modulo in the loop).
SEAT = np.array([0, 1, 2, 0, 1, 2], dtype=np.int64)
#: Trick boundaries with at most this many cards a hand are solved by :func:`_endgame`.
ENDGAME_CARDS = 2


def _play_order() -> np.ndarray:
    """ORDER[contract] -> the 32 cards sorted by effective suit, then strength (R8, from the
    core's ``EFFECTIVE`` and ``POWER``): neighbours in it are neighbours in rank."""
    order = np.zeros((core.N_CONTRACTS, 32), dtype=np.int64)
    for k in range(core.N_CONTRACTS):
        cards = sorted(range(32), key=lambda c: (int(core.EFFECTIVE[k, c]), int(core.POWER[k, c])))
        order[k] = cards
    return order


ORDER = _play_order()
#: RANK_AT[contract, card] -> the card's index in ORDER[contract].
RANK_AT = np.argsort(ORDER, axis=1).astype(np.int64)
EFFECTIVE = core.EFFECTIVE
POWER = core.POWER
POINTS = core.POINTS


def _runs(by_points: bool) -> np.ndarray:
    """RUN[contract, i] -> where in ORDER[contract] the run holding ORDER[contract, i]
    starts: a run is a stretch of neighbours in rank of one effective suit (and, when
    ``by_points``, of equal card points). Cards of one run differ only in rank among
    themselves, so which of them are still in play does not matter, only how many and
    who holds them (see :func:`_canonical`)."""
    run = np.zeros((core.N_CONTRACTS, 32), dtype=np.int64)
    for k in range(core.N_CONTRACTS):
        for i in range(32):
            c, start = ORDER[k, i], i
            if i > 0:
                b = ORDER[k, i - 1]
                if EFFECTIVE[k, b] == EFFECTIVE[k, c] and (not by_points
                                                           or POINTS[b] == POINTS[c]):
                    start = run[k, i - 1]
            run[k, i] = start
    return run


def _suit_ranges() -> np.ndarray:
    """SUIT_RANGE[contract, suit] -> (first, last + 1) of that effective suit in ORDER."""
    out = np.zeros((core.N_CONTRACTS, core.TRUMP + 1, 2), dtype=np.int64)
    for k in range(core.N_CONTRACTS):
        for suit in range(core.TRUMP + 1):
            where = [i for i in range(32) if EFFECTIVE[k, ORDER[k, i]] == suit]
            out[k, suit] = (where[0], where[-1] + 1) if where else (0, 0)
            # _cash takes a player's lowest cards of a plain suit as his cheapest ones
            if k != core.NULL and suit != core.TRUMP and any(
                    POINTS[ORDER[k, a]] > POINTS[ORDER[k, b]] for a, b in pairwise(where)):
                raise ValueError("plain-suit card points must not fall with rank")
    return out


SUIT_RANGE = _suit_ranges()


def _lower() -> np.ndarray:
    """LOWER[contract, card] -> the cards of its effective suit below it in rank, nearest
    first, -1 after the last (the walk :func:`_moves` makes, without looking up ranks)."""
    out = np.full((core.N_CONTRACTS, 32, 11), -1, dtype=np.int64)
    for k in range(core.N_CONTRACTS):
        for i in range(32):
            c = ORDER[k, i]
            below = [int(b) for b in ORDER[k, :i] if EFFECTIVE[k, b] == EFFECTIVE[k, c]]
            out[k, c, :len(below)] = below[::-1]
    return out


LOWER = _lower()
#: RUN_KEY[contract, card] -> the mask of the cards of its effective suit below it, and
#: above the 32 bits the suit times 12 (:func:`_dominant` names a run by both in one load).
RUN_KEY = np.array([[sum(1 << int(b) for b in LOWER[k, c] if b >= 0)
                     | (int(EFFECTIVE[k, c]) * 12) << 32 for c in range(32)]
                    for k in range(core.N_CONTRACTS)], dtype=np.int64)


def _trumps_down() -> np.ndarray:
    """TRUMPS_DOWN[contract] -> the trumps from the highest down, -1 after the last."""
    out = np.full((core.N_CONTRACTS, 12), -1, dtype=np.int64)
    for k in range(core.N_CONTRACTS):
        trumps = [int(c) for c in ORDER[k] if EFFECTIVE[k, c] == core.TRUMP]
        out[k, :len(trumps)] = trumps[::-1]
    return out


TRUMPS_DOWN = _trumps_down()

#: Runs for card points (MODE_POINTS), and for tricks and null where points do not count.
RUN_POINTS = _runs(True)
RUN_SUIT = _runs(False)


def _run_table(run: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                           np.ndarray]:
    """For :func:`_canonical`, per contract: the runs of two or more cards as rows of their
    cards (ascending rank, -1 padded), each run's mask, the masks of its lowest 0, 1, ...
    cards, the number of runs, and the mask of the cards in no such run (named as they are)."""
    cards = np.full((core.N_CONTRACTS, 8, 12), -1, dtype=np.int64)
    masks = np.zeros((core.N_CONTRACTS, 8), dtype=np.int64)
    lowest = np.zeros((core.N_CONTRACTS, 8, 13), dtype=np.int64)
    count = np.zeros(core.N_CONTRACTS, dtype=np.int64)
    single = np.zeros(core.N_CONTRACTS, dtype=np.int64)
    for k in range(core.N_CONTRACTS):
        for start in sorted(set(run[k].tolist())):
            members = [int(ORDER[k, i]) for i in range(32) if run[k, i] == start]
            if len(members) == 1:
                single[k] |= 1 << members[0]
                continue
            r = count[k]
            count[k] += 1
            for j, c in enumerate(members):
                cards[k, r, j] = c
                masks[k, r] |= 1 << c
                lowest[k, r, j + 1] = masks[k, r]
    return cards, masks, lowest, count, single


#: :func:`_run_table` of the points runs (index 1) and of the suit runs (index 0).
_POINTS_RUNS = _run_table(RUN_POINTS)
_SUIT_RUNS = _run_table(RUN_SUIT)
RUN_CARDS = np.stack([_SUIT_RUNS[0], _POINTS_RUNS[0]])
RUN_MASK = np.stack([_SUIT_RUNS[1], _POINTS_RUNS[1]])
RUN_LOWEST = np.stack([_SUIT_RUNS[2], _POINTS_RUNS[2]])
RUN_COUNT = np.stack([_SUIT_RUNS[3], _POINTS_RUNS[3]])
RUN_SINGLE = np.stack([_SUIT_RUNS[4], _POINTS_RUNS[4]])


def _run_shifts() -> tuple[np.ndarray, np.ndarray]:
    """For :func:`_moves`, per runs (index 0 suit, 1 points) and contract, where a run's
    cards rise in rank with their numbers (every run of points and of null; not the suits
    of suit and grand, whose ten ranks above the king) and only a card's own run can hold
    a card equivalent to it (cards of equal points rank next to each other in a suit): the
    distances from a card down to the cards of its run below it, nearest first, 0 after
    the last, with the mask of the cards having a run card at that distance below. A
    contract whose runs are not such has no distances (the walk over ``LOWER`` is used)."""
    shifts = np.zeros((2, core.N_CONTRACTS, 32), dtype=np.int64)
    masks = np.zeros((2, core.N_CONTRACTS, 32), dtype=np.int64)
    for pm, run in enumerate((RUN_SUIT, RUN_POINTS)):
        for k in range(core.N_CONTRACTS):
            found: dict[int, int] = {}
            fits = True
            for i in range(32):
                c = int(ORDER[k, i])
                for j in range(i):
                    b = int(ORDER[k, j])
                    if EFFECTIVE[k, b] != EFFECTIVE[k, c]:
                        continue
                    same = run[k, j] == run[k, i]
                    if pm == 1 and POINTS[b] == POINTS[c] and not same:
                        fits = False  # equal points apart in rank: not a run's
                    if same:
                        if b > c:
                            fits = False  # the run does not rise with the numbers
                        else:
                            found[c - b] = found.get(c - b, 0) | (1 << c)
            if fits:
                for x, dist in enumerate(sorted(found)):
                    shifts[pm, k, x] = dist
                    masks[pm, k, x] = found[dist]
    return shifts, masks


RUN_SHIFT, RUN_BELOW = _run_shifts()


def new_table() -> np.ndarray:
    """An empty transposition table: one row of two words per entry (read in one cache
    line), the key's first word, then the key's second word (``KEY2_BITS``) with the lower
    and upper bounds and the best lead packed above it (see :func:`search`)."""
    table = np.zeros((TT_SIZE + FILTER_ROWS, 2), dtype=np.int64)
    table[:, 0] = -1  # no key: two disjoint hands never make all 64 bits; no generation
    return table


@njit(inline="always")
def _written(table: np.ndarray, slot: int, gen: int) -> bool:
    """Whether ``slot`` may hold an entry of generation ``gen`` (see ``FILTER_SHIFT``):
    when not, its key cannot be a probe's of this generation."""
    g = slot >> FILTER_SHIFT
    w = table[TT_SIZE + (g >> 6), (g >> 5) & 1]
    return (w >> 32) == gen and (w >> (g & 31)) & 1 == 1


@njit(inline="always")
def _mark(table: np.ndarray, slot: int, gen: int) -> None:
    """Note in the filter that ``slot`` was written in generation ``gen``."""
    g = slot >> FILTER_SHIFT
    row = TT_SIZE + (g >> 6)
    col = (g >> 5) & 1
    w = table[row, col]
    if (w >> 32) != gen:
        w = gen << 32
    table[row, col] = w | (np.int64(1) << (g & 31))


@njit(inline="always")
def _moves(contract: int, mode: int, hand: int, legal: int, remaining: int, out: np.ndarray
           ) -> int:
    """The legal cards worth trying into ``out``, one per class of equivalent cards; their
    number. A card is skipped when the next lower card of its effective suit still in play
    (``remaining``) is a legal card of the same hand with the same points (tricks and null: any)."""
    count = 0
    pm = 1 if mode == MODE_POINTS else 0
    if RUN_SHIFT[pm, contract, 0] > 0:  # the runs rise with the numbers: all cards at once
        pending = legal  # a card whose nearest card in play below in its run is not known
        skip = 0
        for x in range(RUN_SHIFT.shape[2]):
            dist = RUN_SHIFT[pm, contract, x]
            if dist == 0:
                break
            found = pending & RUN_BELOW[pm, contract, x] & (remaining << dist)
            skip |= found & (legal << dist)
            pending &= ~found
        rest = legal & ~skip
        while rest:
            low = rest & -rest
            rest ^= low
            out[count] = _popcount(low - 1)
            count += 1
        return count
    rest = legal
    while rest:
        low = rest & -rest
        rest ^= low
        c = _popcount(low - 1)
        same = False
        for j in range(LOWER.shape[2]):
            below = LOWER[contract, c, j]
            if below < 0:
                break
            if (remaining >> below) & 1:
                same = ((legal >> below) & 1 == 1
                        and (mode != MODE_POINTS or POINTS[below] == POINTS[c]))
                break
        if not same:
            out[count] = c
            count += 1
    return count


@njit(inline="always")
def _takes(contract: int, declarer: int, mover: int, leader: int, n: int, t0: int, t1: int,
           c: int, second: int, third: int) -> int:
    """Whether the mover's side takes the trick once he plays ``c``, whatever the players
    after him play: 1 it does, 0 it does not, -1 that is theirs to decide. Known when no
    opponent after him can beat the card winning it, or when one must (every card he may
    play beats it); a defender's lead that the declarer, second, must beat is lost when the
    partner, last, can beat none of the declarer's cards. ``second`` and ``third`` as for
    :func:`_order`."""
    mine = mover == declarer
    if n == 2:
        winner = SEAT[leader + core.trick_winner(contract, t0, t1, c)]
        return 1 if (winner == declarer) == mine else 0
    if n == 1:
        beat = core.beats(contract, c, t0)
        w = c if beat else t0
        w_mine = beat or (leader == declarer) == mine
        third_mine = (SEAT[leader + 2] == declarer) == mine
        if third_mine == w_mine or not _beaten(contract, w, third):
            return 1 if w_mine else 0
        if third & ~BEATEN_BY[contract, w] == 0:  # every card he may play beats it
            return 1 if third_mine else 0
        return -1
    fm = core.follow_mask(contract, c)
    if mine:  # the declarer leads: the defenders take it if either must beat his card
        legal2 = core.legal_cards(second, fm)
        legal3 = core.legal_cards(third, fm)
        if legal2 & ~BEATEN_BY[contract, c] == 0 or legal3 & ~BEATEN_BY[contract, c] == 0:
            return 0
        if _beaten(contract, c, legal2) or _beaten(contract, c, legal3):
            return -1
        return 1
    if SEAT[leader + 1] != declarer:  # a defender leads, the declarer plays last
        return -1 if _beaten(contract, c, core.legal_cards(third, fm)) else 1
    legal2 = core.legal_cards(second, fm)  # the declarer's, second
    if not _beaten(contract, c, legal2):
        return 1
    if legal2 & ~BEATEN_BY[contract, c] != 0:  # he may let it pass
        return -1
    partner = core.legal_cards(third, fm)
    rest = legal2
    while rest:  # he must beat it: he takes it unless the partner can beat his card
        low = rest & -rest
        rest ^= low
        if _beaten(contract, _popcount(low - 1), partner):
            return -1
    return 0


@njit(inline="always")
def _dominant(contract: int, declarer: int, mover: int, leader: int, n: int, t0: int,
              t1: int, row: np.ndarray, count: int, legal: int, remaining: int,
              group: np.ndarray, second: int, third: int) -> int:
    """Drop the cards another card of ``row`` dominates: of cards equal in power (no card in
    play between them in rank, so they win and lose the same tricks from here on), the
    richest when the mover's side takes this trick whatever the players after him do, the
    cheapest when it loses it whatever they do (:func:`_takes`); when that is theirs to
    decide, all of them. Swapping two such cards between this trick and a later one moves
    their points only between those two tricks: played as said, the mover's side never
    gets fewer.

    Two legal cards of a suit are equal in power when the same cards of the others (and of
    the trick) lie below each: those sets are nested, so when they are as large. A run is
    thus named by its suit and that number (under 64; one load of ``RUN_KEY``), no walk
    down the ranks. ``group`` is scratch (128): by a run's name, the index of the card kept
    so far, then (at 64 +) the run's verdict."""
    others = remaining & ~legal
    seen = 0
    dropped = 0
    for i in range(count):
        c = row[i]
        key = RUN_KEY[contract, c]
        r = (key >> 32) + _popcount(others & key)
        if (seen >> r) & 1 == 0:
            seen |= 1 << r
            group[r] = i
            group[64 + r] = -2  # the run's verdict is asked when it has a second card
            continue
        status = group[64 + r]
        if status == -2:
            status = _takes(contract, declarer, mover, leader, n, t0, t1, c, second, third)
            group[64 + r] = status
        if status == -1:
            continue
        k = group[r]
        o = row[k]
        if POINTS[c] != POINTS[o] and (POINTS[c] > POINTS[o]) == (status == 1):
            dropped |= 1 << k
            group[r] = i
        else:
            dropped |= 1 << i
    if dropped == 0:
        return count
    kept = 0
    for i in range(count):
        if (dropped >> i) & 1 == 0:
            row[kept] = row[i]
            kept += 1
    return kept


@njit(inline="always")
def _order(contract: int, declarer: int, mover: int, leader: int, n: int, t0: int, t1: int,
           moves: np.ndarray, count: int, scores: np.ndarray, second: int, third: int) -> None:
    """Sort ``moves[:count]`` best guess first (see the module docstring). ``second`` and
    ``third`` are the hands of the players after the leader, leading; following second,
    ``third`` is the third player's legal cards."""
    null = contract == core.NULL
    mine = mover == declarer
    win_card = -1
    win_seat = -1
    partner_wins = False
    if n > 0:
        win_card = t0
        win_seat = leader
        if n == 2 and core.beats(contract, t1, t0):
            win_card = t1
            win_seat = (leader + 1) % 3
        partner_wins = (win_seat == declarer) == mine
    for i in range(count):
        c = moves[i]
        p = POINTS[c]
        pw = POWER[contract, c]
        if n == 0:  # leading: the declarer from the top, defenders plain suits first
            if null:
                s = -pw if mine else pw
            else:
                if mine or EFFECTIVE[contract, c] != core.TRUMP:
                    s = pw * 16 + p
                else:
                    s = -100000 + pw * 16 + p
                if _lead_wins(contract, mine, c, second, third, declarer, leader):
                    s += 1 << 30
                    if mine and EFFECTIVE[contract, c] != core.TRUMP:  # his side winners first
                        s += 1 << 20
                    elif mine and (second | third) & core.SUIT_MASK[contract, core.TRUMP] == 0:
                        # his trumps when the defenders have none: they draw nothing, so after
                        # his plain cards, even those that may lose
                        s = -100000 + pw * 16 + p
                elif mine and EFFECTIVE[contract, c] == core.TRUMP:
                    # a trump of his that may lose: still the jacks from the top (power
                    # 197-200, 2 points), then the trump suit's cards cheapest first (power
                    # 100-106: points outweigh it), not its ace and ten first; still above
                    # his plain cards
                    s = 2048 - p * 16 + pw
                if not mine and EFFECTIVE[contract, c] != core.TRUMP:
                    # a defender's plain lead: the fewer cards of its suit the declarer
                    # holds, the sooner (under the winners), a void not (he would ruff);
                    # leading through him (he plays second), then the more his partner,
                    # playing last, holds
                    fm = core.follow_mask(contract, c)
                    through = SEAT[leader + 1] == declarer
                    k_d = _popcount((second if through else third) & fm)
                    if k_d > 0:
                        s += (8 - k_d) << 21
                    if through:
                        s += _popcount(third & fm) << 18
        elif n == 1 and not null:
            s = _second_hand(contract, mine, (leader + 2) % 3 == declarer, t0, c, p, pw,
                             third)
        elif null:
            beat = core.beats(contract, c, win_card)
            if mine or win_seat == declarer:  # stay under the best card, as high as possible
                s = (-1000 if beat else 0) + pw
            else:
                s = -pw
        elif partner_wins:  # last to play from here on
            s = p * 16 - pw
        elif core.beats(contract, c, win_card):
            s = 5000 + p * 16 - pw
        else:
            s = -p * 16 - pw
        scores[i] = s
    for i in range(1, count):  # insertion sort, highest score first
        c = moves[i]
        s = scores[i]
        j = i - 1
        while j >= 0 and scores[j] < s:
            moves[j + 1] = moves[j]
            scores[j + 1] = scores[j]
            j -= 1
        moves[j + 1] = c
        scores[j + 1] = s


def _beaten_by() -> np.ndarray:
    """BEATEN_BY[contract, card] -> the mask of the cards that beat ``card`` when it is
    winning a trick (``core.beats``)."""
    out = np.zeros((core.N_CONTRACTS, 32), dtype=np.int64)
    for k in range(core.N_CONTRACTS):
        for best in range(32):
            out[k, best] = sum(1 << c for c in range(32) if core.beats(k, c, best))
    return out


BEATEN_BY = _beaten_by()


@njit(inline="always")
def _beaten(contract: int, card: int, cards: int) -> bool:
    """Whether one of ``cards`` beats ``card``, the card now winning the trick."""
    return cards & BEATEN_BY[contract, card] != 0


@njit(inline="always")
def _strongest(contract: int, card: int, cards: int) -> int:
    """The card that wins a trick now won by ``card`` once the strongest of ``cards`` is
    played to it (only the cards that beat ``card`` can be it)."""
    cards &= BEATEN_BY[contract, card]
    while cards:
        low = cards & -cards
        cards ^= low
        c = _popcount(low - 1)
        if core.beats(contract, c, card):
            card = c
    return card


@njit(inline="always")
def _lead_wins(contract: int, mine: bool, c: int, second: int, third: int, declarer: int,
               leader: int) -> bool:
    """Whether the mover's side takes the trick led by ``c`` when all three play to win
    it (``second`` and ``third`` the hands after the leader, in play order)."""
    follow = core.follow_mask(contract, c)
    legal2 = core.legal_cards(second, follow)
    legal3 = core.legal_cards(third, follow)
    if mine:  # both defenders must fail to beat it
        return not _beaten(contract, c, legal2) and not _beaten(contract, c, legal3)
    if (leader + 1) % 3 == declarer:  # the partner, third, beats what the declarer plays
        w = _strongest(contract, c, legal2)
        return w == c or _beaten(contract, w, legal3)
    # the partner, second, plays his strongest; the declarer must not beat it
    return not _beaten(contract, _strongest(contract, c, legal2), legal3)


@njit(inline="always")
def _second_hand(contract: int, mine: bool, third_declares: bool, t0: int, c: int, p: int,
                 pw: int, third: int) -> int:
    """The order score of ``c`` played second to the lead ``t0``, the third player's legal
    cards ``third`` known: first the cards after which the mover's side takes the trick
    whatever the third plays (the richest first), then, the declarer's, the cards beating
    the lead (the cheapest first), then the rest (the cheapest first)."""
    beat = core.beats(contract, c, t0)
    if mine:  # the defenders led and play third
        win = beat and not _beaten(contract, c, third)
    elif third_declares:  # the partner led
        win = not _beaten(contract, c if beat else t0, third)
    else:  # the declarer led, the partner plays third
        win = beat or _beaten(contract, t0, third)
    if win:
        return 5000 + p * 16 - pw
    if mine and beat:  # he beats the lead; the third may still beat him
        return 1000 - p * 16 - pw
    return -p * 16 - pw


@njit(inline="always")
def _canonical(pm: int, contract: int, h0: int, h1: int, h2: int) -> tuple[int, int, int]:
    """The hands with the cards of each run (:func:`_runs`; ``pm`` 1 for the points runs,
    0 for the suit runs) still in play moved to the lowest cards of that run, in order. Two
    positions with equal canonical hands are the same game up to renaming cards of equal
    suit, points and relative rank, so they have the same value: the table's key, so that
    it meets far more transpositions. A run whose cards in play are already its lowest
    (all of it in play, or only its top cards played) is copied as it is."""
    keep = RUN_SINGLE[pm, contract]  # the cards named as they are: copied at the end
    c0 = 0
    c1 = 0
    c2 = 0
    everyone = h0 | h1 | h2
    for r in range(RUN_COUNT[pm, contract]):
        mask = RUN_MASK[pm, contract, r]
        live = everyone & mask
        if live == RUN_LOWEST[pm, contract, r, _popcount(live)]:
            keep |= mask
            continue
        nxt = 0
        for j in range(RUN_CARDS.shape[3]):
            c = RUN_CARDS[pm, contract, r, j]
            if c < 0:
                break
            if (live >> c) & 1:
                bit = np.int64(1) << RUN_CARDS[pm, contract, r, nxt]
                nxt += 1
                if (h0 >> c) & 1:
                    c0 |= bit
                elif (h1 >> c) & 1:
                    c1 |= bit
                else:
                    c2 |= bit
    return c0 | (h0 & keep), c1 | (h1 & keep), c2 | (h2 & keep)


@njit(inline="always")
def _to_canonical(run: np.ndarray, contract: int, card: int, everyone: int) -> int:
    """The canonical name of ``card`` among the cards in play ``everyone``."""
    i = RANK_AT[contract, card]
    start = run[contract, i]
    j = start
    for m in range(start, i):
        if (everyone >> ORDER[contract, m]) & 1:
            j += 1
    return ORDER[contract, j]


@njit(inline="always")
def _from_canonical(run: np.ndarray, contract: int, card: int, everyone: int) -> int:
    """The card in play that the canonical ``card`` names (inverse of :func:`_to_canonical`),
    -1 if none."""
    i = RANK_AT[contract, card]
    start = run[contract, i]
    left = i - start
    m = start
    while m < 32 and run[contract, m] == start:
        c = ORDER[contract, m]
        if (everyone >> c) & 1:
            if left == 0:
                return c
            left -= 1
        m += 1
    return -1


@njit(inline="always")
def _slot(h0: int, h1: int, h2: int, leader: int) -> int:
    """The table slot of a key: the two key words multiplied and mixed (splitmix-like),
    so that the slot's low bits depend on every card (a plain product's low bits see only
    the low cards)."""
    x = ((h0 | (h1 << 32)) ^ ((h2 | (leader << 32)) * 0x14057B7EF767814F)) * 0x5851F42D4C957F2D
    x ^= x >> 31
    x *= 0x3F58476D1CE4E5B9
    x ^= x >> 29
    return x & (TT_SIZE - 1)



def _point_classes() -> np.ndarray:
    """The cards grouped by card points, cheapest first: rows of (mask, points)."""
    values = sorted({int(p) for p in POINTS})
    return np.array([(sum(1 << c for c in range(32) if POINTS[c] == v), v) for v in values],
                    dtype=np.int64)


POINT_CLASSES = _point_classes()


@njit(inline="always")
def _cheapest(hand: int, count: int) -> int:
    """The card points of ``hand``'s ``count`` cheapest cards (any suit)."""
    total = 0
    for i in range(POINT_CLASSES.shape[0]):
        if count <= 0:
            break
        k = min(count, _popcount(hand & POINT_CLASSES[i, 0]))
        total += k * POINT_CLASSES[i, 1]
        count -= k
    return total


@njit(inline="always")
def _mask_points(mask: int) -> int:
    """The card points of the cards in ``mask``."""
    total = 0
    for i in range(POINT_CLASSES.shape[0]):
        total += _popcount(mask & POINT_CLASSES[i, 0]) * POINT_CLASSES[i, 1]
    return total


@njit(inline="always")
def _cheapest_card(mask: int) -> int:
    """One of the cheapest cards of ``mask`` (not empty)."""
    for i in range(POINT_CLASSES.shape[0]):
        m = mask & POINT_CLASSES[i, 0]
        if m:
            return _popcount((m & -m) - 1)
    return -1


@njit(inline="always")
def _match(bit: int, p: int, free: int, lost: int, lp: int) -> tuple[int, int, int]:
    """One side's trump ``bit`` (worth ``p``) in :func:`_trumps`' matching: it loses while
    the other side has a higher trump ``free``; else it takes the place of the cheapest
    of the side's ``lost`` trumps (points ``lp``) if it is richer."""
    if free > 0:
        return free - 1, lost | bit, lp + p
    if lost:
        w = _cheapest_card(lost)
        if POINTS[w] < p:
            return free, lost ^ ((np.int64(1) << w) | bit), lp + p - POINTS[w]
    return free, lost, lp


@njit(inline="always")
def _trumps(contract: int, declarer: int, hands: np.ndarray) -> tuple[int, int, int, int, int]:
    """The trump tricks each side is sure of, whatever is played: every card is played in
    a trick of its own, and a trump loses its trick only to a higher trump of the other
    side (a defender's trump also takes the trick when his partner beats it). So the trumps
    of a side that lose map one to one to higher trumps of the other side, and at most a
    largest matching of them lose, the richest such matching for card points.

    ``(dk, dp, fk, fp, top)``: the declarer's sure trump tricks and their trumps' card
    points; the defenders' sure tricks (the more of the two defenders' counts: both may
    spend a trump in one trick) and the card points of their trumps sure to be in their
    tricks (both defenders' count, they are different cards); ``top`` the declarer's
    trumps above every defender's trump (0 when a defender holds the highest in play).

    Walked from the highest trump down: a trump meets the other side's trumps above it
    (``free``: not yet matched); when none is free it takes the place of the cheapest
    trump matched so far if it is richer (the higher trump matched to that one is above
    this one too): the richest matching of nested capacities."""
    mine = hands[declarer]
    o1 = hands[(declarer + 1) % 3]
    o2 = hands[(declarer + 2) % 3]
    everyone = mine | o1 | o2
    free = 0  # the defenders' trumps above, not matched to a declarer's trump
    free1 = 0  # the declarer's trumps above, not matched to a trump of o1
    free2 = 0  # the same for o2
    dk = dp = k1 = p1 = k2 = p2 = top = 0
    lost = lost1 = lost2 = 0  # the matched (losing) trumps, the richest matching
    lp = lp1 = lp2 = 0  # their card points
    trumps = core.SUIT_MASK[contract, core.TRUMP]
    if (o1 | o2) & trumps == 0:  # nothing to match
        n = _popcount(mine & trumps)
        return n, _mask_points(mine & trumps), 0, 0, n
    if mine & trumps == 0:
        return 0, 0, max(_popcount(o1 & trumps), _popcount(o2 & trumps)), _mask_points(
            (o1 | o2) & trumps), 0
    live = everyone & trumps  # the trumps in play not yet walked: none left ends the walk
    for i in range(TRUMPS_DOWN.shape[1]):
        if live == 0:
            break
        c = TRUMPS_DOWN[contract, i]
        bit = np.int64(1) << c
        if live & bit == 0:
            continue
        live ^= bit
        p = POINTS[c]
        if mine & bit:
            dk += 1
            dp += p
            if k1 == 0 and k2 == 0:
                top += 1
            free, lost, lp = _match(bit, p, free, lost, lp)
            free1 += 1
            free2 += 1
            continue
        free += 1
        if o1 & bit:
            k1 += 1
            p1 += p
            free1, lost1, lp1 = _match(bit, p, free1, lost1, lp1)
        else:
            k2 += 1
            p2 += p
            free2, lost2, lp2 = _match(bit, p, free2, lost2, lp2)
    dk -= _popcount(lost)
    k1 -= _popcount(lost1)
    k2 -= _popcount(lost2)
    return dk, dp - lp, max(k1, k2), p1 + p2 - lp1 - lp2, top


@njit
def _draw_and_cash(contract: int, mode: int, hands: np.ndarray, declarer: int, n_top: int
                   ) -> int:
    """The declarer on lead holding the ``n_top`` highest trumps in play, at least as many
    as one defender's trumps: he draws them, keeping the lead (each defender follows with
    his trumps, then his cheapest other cards). When that leaves no trump with the
    defenders, no defender can win a trick he leads, so he cashes his other trumps and
    every plain suit's run of highest cards in play; when one defender keeps trumps, he
    cashes a suit's run only as far as that defender must follow (the other, without
    trumps, cannot win it). In every trick each defender gives one card: the one without
    trumps all his trumps and then his cheapest others, the one keeping trumps his
    cheapest trumps while drawn and his lowest cards of each cashed suit. What that is
    sure to bring (points or tricks); -1 when it does not apply."""
    trumps = core.SUIT_MASK[contract, core.TRUMP]
    o1 = hands[(declarer + 1) % 3]
    o2 = hands[(declarer + 2) % 3]
    k1 = _popcount(o1 & trumps)
    k2 = _popcount(o2 & trumps)
    if k1 > n_top:  # o2 is the one who may keep trumps
        o1, o2, k1, k2 = o2, o1, k2, k1
    if k1 > n_top:
        return -1
    keeps = k2 > n_top
    h = hands[declarer]
    everyone = h | o1 | o2
    if keeps:  # only his top trumps take tricks for sure
        tricks = n_top
        points = 0
        left = n_top
        for i in range(TRUMPS_DOWN.shape[1]):
            c = TRUMPS_DOWN[contract, i]
            if left == 0 or c < 0:
                break
            if (h >> c) & 1:
                points += POINTS[c]
                left -= 1
        points += _cheapest(o2 & trumps, n_top)
    else:
        tricks = _popcount(h & trumps)
        points = _mask_points(h & trumps) + _mask_points(o2 & trumps)
    for suit in range(core.TRUMP):
        first = SUIT_RANGE[contract, suit, 0]
        last = SUIT_RANGE[contract, suit, 1]
        most = _popcount(o2 & core.SUIT_MASK[contract, suit]) if keeps else 32
        j = 0
        for i in range(last - 1, first - 1, -1):
            c = ORDER[contract, i]
            if (everyone >> c) & 1 == 0:
                continue
            if (h >> c) & 1 == 0 or j == most:
                break
            j += 1
            points += POINTS[c]
        tricks += j
        if keeps and j > 0 and mode == MODE_POINTS:
            points += _lowest(contract, o2, first, last, j)
    if mode != MODE_POINTS:
        return tricks
    points += _mask_points(o1 & trumps) + _cheapest(o1 & ~trumps, tricks - k1)
    if not keeps:
        points += _cheapest(o2 & ~trumps, tricks - k2)
    return points


@njit(inline="always")
def _lowest(contract: int, hand: int, first: int, last: int, count: int) -> int:
    """The card points of ``hand``'s ``count`` lowest cards in ORDER[first:last]."""
    total = 0
    for i in range(first, last):
        if count == 0:
            break
        c = ORDER[contract, i]
        if (hand >> c) & 1:
            total += POINTS[c]
            count -= 1
    return total


@njit(inline="always")
def _cash_suits(contract: int, mode: int, h: int, o1: int, o2: int, threat1: bool,
                threat2: bool) -> tuple[int, int, int, int]:
    """:func:`_cash` for given threats: ``(tricks, leader's points, o1's, o2's)``."""
    everyone = h | o1 | o2
    tricks = own = low1 = low2 = 0
    for suit in range(core.TRUMP):
        sm = core.SUIT_MASK[contract, suit]
        if h & sm == 0:
            continue
        l1 = _popcount(o1 & sm)
        l2 = _popcount(o2 & sm)
        most = 32
        if threat1:
            most = min(most, l1)
        if threat2:
            most = min(most, l2)
        if most == 0:
            continue
        first = SUIT_RANGE[contract, suit, 0]
        last = SUIT_RANGE[contract, suit, 1]
        j = 0
        for i in range(last - 1, first - 1, -1):
            c = ORDER[contract, i]
            if (everyone >> c) & 1 == 0:
                continue
            if (h >> c) & 1 == 0 or j == most:
                break
            j += 1
            own += POINTS[c]
        tricks += j
        if j > 0 and mode == MODE_POINTS:
            low1 += _lowest(contract, o1, first, last, min(j, l1))
            low2 += _lowest(contract, o2, first, last, min(j, l2))
    return tricks, own, low1, low2


@njit(inline="always")
def _cash(contract: int, mode: int, hands: np.ndarray, leader: int, declarer: int
          ) -> tuple[int, int, int, int]:
    """What the leader's side is sure of by cashing plain-suit winners now: where the
    leader holds the highest cards in play of a plain suit he can lead them one after the
    other, keeping the lead, as long as no other player can win such a trick: nobody can
    beat the suit's highest card by following, and a player without trumps cannot win a
    plain-suit trick he does not lead, so only an opponent of the leader's side holding
    trumps (a threat) must hold the suit (he follows and never discards; the tricks there
    are capped by the threats' lengths). A defender's partner is no threat while he has
    a plain card for every cashed trick (he need not trump). Each other player follows
    while he holds the suit (what he discards earlier is played in these tricks too), so
    his lowest cards of it, as many as the tricks there or his length, are sure.

    ``(tricks, points of the leader's cards, of the next player's, of the third's)``, the
    others' points in ``MODE_POINTS`` only; no trump is played to these tricks, so they
    are not the sure trump tricks of :func:`_trumps`, and the two add up."""
    h = hands[leader]
    p1 = (leader + 1) % 3
    p2 = (leader + 2) % 3
    o1 = hands[p1]
    o2 = hands[p2]
    trumps = core.SUIT_MASK[contract, core.TRUMP]
    trump1 = o1 & trumps != 0
    trump2 = o2 & trumps != 0
    threat1 = trump1 and (leader == declarer or p1 == declarer)
    threat2 = trump2 and (leader == declarer or p2 == declarer)
    tricks, own, low1, low2 = _cash_suits(contract, mode, h, o1, o2, threat1, threat2)
    if leader != declarer:  # the partner must not be made to trump
        partner = o1 if p2 == declarer else o2
        if tricks > _popcount(partner & ~trumps) and partner & trumps != 0:
            tricks, own, low1, low2 = _cash_suits(contract, mode, h, o1, o2, trump1, trump2)
    return tricks, own, low1, low2


@njit(inline="always")
def _with_cash(hand: int, low: int, sure: int, cashed: int) -> int:
    """The card points a player gives to ``sure`` trump tricks and ``cashed`` cashed
    tricks of the other side, ``low`` his lowest cards of the cashed suits (see
    :func:`_cash`): those and his cheapest for the trump tricks, or his cheapest for all."""
    return max(low + _cheapest(hand, sure), _cheapest(hand, sure + cashed))


@njit(inline="always")
def _trump_bounds(contract: int, declarer: int, mode: int, hands: np.ndarray, top: int,
                  dk: int, dp: int, fk: int, fp: int) -> tuple[int, int]:
    """The declarer's sure gain and his most from the sure trump tricks of both sides
    (:func:`_trumps`), ``top`` the most there is: in points, each sure trump trick also
    holds a card of each other player, at least their cheapest."""
    if mode == MODE_TRICKS:
        return dk, top - fk
    low = dp
    if dk > 0:
        low += (_cheapest(hands[(declarer + 1) % 3], dk)
                + _cheapest(hands[(declarer + 2) % 3], dk))
    high = top - fp
    if fk > 0:
        high -= _cheapest(hands[declarer], fk)
    return low, high


@njit(inline="always")
def _cash_bounds(contract: int, declarer: int, mode: int, hands: np.ndarray, leader: int,
                 low: int, high: int, dk: int, dp: int, fk: int, fp: int, n_top: int
                 ) -> tuple[int, int]:
    """:func:`_trump_bounds` (``low``, ``high``) raised by what the leader's side cashes
    (:func:`_cash`), and for the declarer on lead by drawing trumps and cashing
    (:func:`_draw_and_cash`). The cashed tricks are not the sure trump tricks; each other
    player gives a card to each of both (:func:`_with_cash`); the partner's cards are his
    side's."""
    n_cash, own, low1, low2 = _cash(contract, mode, hands, leader, declarer)
    if leader == declarer:
        if n_cash > 0:
            if mode == MODE_TRICKS:
                low = dk + n_cash
            else:
                low = dp + own + _with_cash(hands[(declarer + 1) % 3], low1, dk, n_cash
                                            ) + _with_cash(hands[(declarer + 2) % 3], low2,
                                                           dk, n_cash)
        if n_top > 0:
            low = max(low, _draw_and_cash(contract, mode, hands, declarer, n_top))
    elif n_cash > 0:
        if mode == MODE_TRICKS:
            high -= n_cash
        else:
            low_d, low_p = (low1, low2) if SEAT[leader + 1] == declarer else (low2, low1)
            # high = all - fp - the declarer's cheapest fk cards
            high = high + _cheapest(hands[declarer], fk) - own - low_p - _with_cash(
                hands[declarer], low_d, fk, n_cash)
    return low, high


@njit(inline="always")
def _last_trick(contract: int, declarer: int, mode: int, leader: int, x: int, y: int, z: int
                ) -> int:
    """The declarer's gain from the last trick: one card each, ``x`` the leader's, ``y``
    and ``z`` the next players' (single-bit masks)."""
    return _after_trick(contract, declarer, mode, leader, _popcount(x - 1), _popcount(y - 1),
                        _popcount(z - 1), 0, 0, 0)[1]


@njit(inline="always")
def _after_trick(contract: int, declarer: int, mode: int, leader: int, a: int, b: int,
                 c: int, x: int, y: int, z: int) -> tuple[int, int, bool, int, int, int]:
    """The trick ``a``, ``b``, ``c`` led by ``leader``, the hands left ``x``, ``y``, ``z``
    in the same order: its winner, the declarer's gain from it, whether the play ends
    there (a null at his first trick, R9), and the hands left, the winner's first."""
    w = core.trick_winner(contract, a, b, c)
    winner = SEAT[leader + w]
    g = 0
    if winner == declarer:
        g = core.trick_points(a, b, c) if mode == MODE_POINTS else 1
    if w == 1:
        x, y, z = y, z, x
    elif w == 2:
        x, y, z = z, x, y
    return winner, g, mode == MODE_NULL and g > 0, x, y, z


@njit(inline="always")
def _endgame2(contract: int, declarer: int, mode: int, leader: int, h0: int, h1: int,
              h2: int) -> int:
    """:func:`_endgame` on scalars: ``h0`` the leader's hand, ``h1`` and ``h2`` the next
    players' (no array written, no call)."""
    if h0 & (h0 - 1) == 0:  # one card each: the last trick
        return _last_trick(contract, declarer, mode, leader, h0, h1, h2)
    second = SEAT[leader + 1]
    third = SEAT[leader + 2]
    null = mode == MODE_NULL
    max0 = (leader == declarer) != null
    max1 = (second == declarer) != null
    max2 = (third == declarer) != null
    best0 = -1 if max0 else 1 << 20
    rest0 = h0
    while rest0:
        la = rest0 & -rest0
        rest0 ^= la
        a = _popcount(la - 1)
        follow = core.follow_mask(contract, a)
        legal1 = core.legal_cards(h1, follow)
        legal2 = core.legal_cards(h2, follow)
        best1 = -1 if max1 else 1 << 20
        rest1 = legal1
        while rest1:
            lb = rest1 & -rest1
            rest1 ^= lb
            b = _popcount(lb - 1)
            best2 = -1 if max2 else 1 << 20
            rest2 = legal2
            while rest2:
                lc = rest2 & -rest2
                rest2 ^= lc
                c = _popcount(lc - 1)
                winner, g, ends, x, y, z = _after_trick(contract, declarer, mode, leader, a,
                                                        b, c, h0 ^ la, h1 ^ lb, h2 ^ lc)
                if not ends:  # the last trick: the one card left in each hand
                    g += _last_trick(contract, declarer, mode, winner, x, y, z)
                best2 = max(best2, g) if max2 else min(best2, g)
            best1 = max(best1, best2) if max1 else min(best1, best2)
        best0 = max(best0, best1) if max0 else min(best0, best1)
    return best0


@njit
def _endgame(contract: int, declarer: int, mode: int, hands: np.ndarray, leader: int) -> int:
    """The exact gain of a trick boundary where each hand holds one or two cards
    (``ENDGAME_CARDS``), by plain minimax over every legal card: at most eight lines,
    cheaper than entering them as nodes, probing the table and cashing."""
    return _endgame2(contract, declarer, mode, leader, hands[leader], hands[SEAT[leader + 1]],
                     hands[SEAT[leader + 2]])


@njit
def _endgame3(contract: int, declarer: int, mode: int, hands: np.ndarray, leader: int,
              alpha: int, beta: int) -> int:
    """The gain of a trick boundary where each hand holds three cards, fail-soft within
    ``(alpha, beta)`` like :func:`search`: alpha-beta over the cards of the first trick,
    the last two solved by :func:`_endgame2` (inlined, on scalars). Cheaper than entering
    them as nodes: no table probe (a random memory access each), ordering or bounds;
    ``hands`` is only read."""
    second = SEAT[leader + 1]
    third = SEAT[leader + 2]
    h0 = hands[leader]
    h1 = hands[second]
    h2 = hands[third]
    null = mode == MODE_NULL
    max0 = (leader == declarer) != null
    max1 = (second == declarer) != null
    max2 = (third == declarer) != null
    best0 = -1 if max0 else 1 << 20
    al0 = alpha
    be0 = beta
    rest0 = h0
    while rest0 and al0 < be0:
        la = rest0 & -rest0
        rest0 ^= la
        a = _popcount(la - 1)
        follow = core.follow_mask(contract, a)
        legal2 = core.legal_cards(h2, follow)
        best1 = -1 if max1 else 1 << 20
        al1 = al0
        be1 = be0
        rest1 = core.legal_cards(h1, follow)
        while rest1 and al1 < be1:
            lb = rest1 & -rest1
            rest1 ^= lb
            b = _popcount(lb - 1)
            best2 = -1 if max2 else 1 << 20
            al2 = al1
            be2 = be1
            rest2 = legal2
            while rest2 and al2 < be2:
                lc = rest2 & -rest2
                rest2 ^= lc
                c = _popcount(lc - 1)
                winner, g, ends, x, y, z = _after_trick(contract, declarer, mode, leader, a,
                                                        b, c, h0 ^ la, h1 ^ lb, h2 ^ lc)
                if not ends:
                    g += _endgame2(contract, declarer, mode, winner, x, y, z)
                best2, _, al2, be2 = _fold(g, max2, -1, best2, -1, al2, be2)
            best1, _, al1, be1 = _fold(best2, max1, -1, best1, -1, al1, be1)
        best0, _, al0, be0 = _fold(best1, max0, -1, best0, -1, al0, be0)
    return best0


@njit(nogil=True)  # threads solve at once: the pimc bot's slices (engine/batch/reference.py)
def search(hands: np.ndarray, t0: int, t1: int, n: int, leader: int, rest: int,
           alpha: int, beta: int, ctx: np.ndarray,
           table: np.ndarray
           ) -> int:
    """The declarer's gain from the position, fail-soft within ``(alpha, beta)``: a value
    ``<= alpha`` is an upper bound, ``>= beta`` a lower bound, anything between exact.
    ``rest`` is the card points left in the three hands; ``hands`` is restored on return.

    Written with an explicit stack (``st``: one row per card played), not by
    recursion: numba cannot cache a recursive function."""
    contract = ctx[CTX_CONTRACT]
    declarer = ctx[CTX_DECLARER]
    mode = ctx[CTX_MODE]
    gen = ctx[CTX_GEN]
    run = RUN_POINTS if mode == MODE_POINTS else RUN_SUIT
    pm = 1 if mode == MODE_POINTS else 0
    moves_kept = np.empty((MAX_DEPTH, 12), dtype=np.int64)
    # uncounted views: numba counted references (atomically) to an array at each view of
    # it (moves[d]) and each helper given it (the hands), and called out to do so
    moves = borrowed(moves_kept)
    hands = borrowed(hands)
    scores = np.empty(12, dtype=np.int64)
    group_kept = np.empty(128, dtype=np.int64)
    group = borrowed(group_kept)
    st = np.zeros((MAX_DEPTH, STACK_COLS), dtype=np.int64)  # the stack: a row a depth
    st[0, S_N] = n
    st[0, S_T0] = t0
    st[0, S_T1] = t1
    st[0, S_LEAD] = leader
    st[0, S_REST] = rest
    st[0, S_AL] = alpha
    st[0, S_BE] = beta
    d = 0
    ret = 0
    entering = True
    nodes = 0
    while True:
        if entering:  # ------------------------------------------------ a new node d
            entering = False
            nodes += 1
            n = st[d, S_N]
            leader = st[d, S_LEAD]
            t0 = st[d, S_T0]
            t1 = st[d, S_T1]
            alpha = st[d, S_AL]
            beta = st[d, S_BE]
            st[d, S_A0] = alpha
            st[d, S_B0] = beta
            st[d, S_SLOT] = -1
            best_move = -1
            mover = SEAT[leader + n]
            done = False
            if n == 0:
                remaining = hands[0] | hands[1] | hands[2]
                if mode == MODE_POINTS:
                    top = st[d, S_REST]
                elif mode == MODE_TRICKS:
                    top = _popcount(remaining) // 3
                else:
                    top = 1 if remaining != 0 else 0
                if remaining == 0:
                    ret = 0
                    done = True
                elif alpha >= top:
                    ret = top
                    done = True
                elif beta <= 0:
                    ret = 0
                    done = True
                elif _popcount(hands[leader]) <= ENDGAME_CARDS:
                    ret = _endgame(contract, declarer, mode, hands, leader)
                    done = True
                else:
                    ch0, ch1, ch2 = _canonical(pm, contract, hands[0], hands[1], hands[2])
                    slot = _slot(ch0, ch1, ch2, leader)
                    key1 = ch0 | (ch1 << 32)
                    key2 = ch2 | (leader << 32) | (gen << 34)
                    if (_written(table, slot, gen) and table[slot, 0] == key1
                            and (table[slot, 1] & KEY2_MASK) == key2):
                        e2 = table[slot, 1]
                        low = (e2 >> KEY2_BITS) & 127
                        high = (e2 >> (KEY2_BITS + 7)) & 127
                        stored = ((e2 >> (KEY2_BITS + 14)) & 63) - 1
                        if low >= beta:
                            ret = low
                            done = True
                        elif high <= alpha or low == high:
                            ret = high
                            done = True
                        else:
                            if low > alpha:
                                st[d, S_AL] = low
                            if high < beta:
                                st[d, S_BE] = high
                            if stored >= 0:
                                best_move = _from_canonical(run, contract, stored,
                                                            remaining)
                    if not done and mode != MODE_NULL:
                        # the sure tricks only now: a table hit that cuts makes them wasted
                        dk, dp, fk, fp, n_top = _trumps(contract, declarer, hands)
                        low_b, top = _trump_bounds(contract, declarer, mode, hands, top, dk,
                                                   dp, fk, fp)
                        if low_b >= st[d, S_BE]:
                            ret = low_b
                            done = True
                        elif st[d, S_AL] >= top:
                            ret = top
                            done = True
                        elif leader == declarer:
                            sure_low = _cash_bounds(contract, declarer, mode, hands, leader,
                                                    low_b, top, dk, dp, fk, fp, n_top)[0]
                            if sure_low >= st[d, S_BE]:
                                ret = sure_low
                                done = True
                        else:
                            if n_top > 0 and (remaining ^ hands[declarer]) & core.SUIT_MASK[
                                    contract, core.TRUMP] == 0:
                                # the defenders hold no trump, he does: he follows (winning
                                # with a top card if he has one) or trumps, and then, on
                                # lead, cashes as if he led now
                                sure_low = _draw_and_cash(contract, mode, hands, declarer,
                                                          n_top)
                                if sure_low >= st[d, S_BE]:
                                    ret = sure_low
                                    done = True
                            if not done:
                                high = _cash_bounds(contract, declarer, mode, hands, leader,
                                                    low_b, top, dk, dp, fk, fp, n_top)[1]
                                if st[d, S_AL] >= high:
                                    ret = high
                                    done = True
                    st[d, S_SLOT] = slot
                    st[d, S_KEY1] = key1
                    st[d, S_KEY2] = key2
                follow = np.int64(-1)
            else:
                remaining = hands[0] | hands[1] | hands[2] | (np.int64(1) << t0)
                if n == 2:
                    remaining |= np.int64(1) << t1
                follow = core.follow_mask(contract, t0)
            direct = False
            if not done and n == 0 and _popcount(hands[leader]) == 3:
                # the table and the bounds did not cut: the three tricks solved directly
                direct = True
                st[d, S_BEST] = _endgame3(contract, declarer, mode, hands, leader,
                                          st[d, S_AL], st[d, S_BE])
                st[d, S_CHOSEN] = -1
                st[d, S_COUNT] = 0
                st[d, S_IDX] = 0
            if done:
                if d == 0:
                    break
                d -= 1
                mover = SEAT[st[d, S_LEAD] + st[d, S_N]]
                hands[mover] ^= np.int64(1) << st[d, S_CUR]
                st[d, S_BEST], st[d, S_CHOSEN], st[d, S_AL], st[d, S_BE] = _fold(
                    st[d, S_GAIN] + ret, (mover == declarer) != (mode == MODE_NULL),
                    st[d, S_CUR], st[d, S_BEST], st[d, S_CHOSEN], st[d, S_AL], st[d, S_BE])
            elif not direct:
                legal = core.legal_cards(hands[mover], follow)
                row = moves[d]
                c_n = _moves(contract, mode, hands[mover], legal, remaining, row)
                third = hands[SEAT[leader + 2]]
                if n == 1:
                    third = core.legal_cards(third, follow)
                if mode == MODE_POINTS and c_n > 1:
                    c_n = _dominant(contract, declarer, mover, leader, n, t0, t1, row, c_n,
                                    legal, remaining, group, hands[SEAT[leader + 1]], third)
                at = -1
                st[d, S_LAZY] = 0
                if best_move >= 0:
                    for i in range(c_n):
                        if row[i] == best_move:
                            at = i
                if at >= 0:  # the table's lead first; the rest is ordered only if it does
                    # not cut (shifted, not swapped: ties then sort as with one full sort)
                    for i in range(at, 0, -1):
                        row[i] = row[i - 1]
                    row[0] = best_move
                    st[d, S_LAZY] = 1
                else:
                    _order(contract, declarer, mover, leader, n, t0, t1, row, c_n,
                           scores, hands[SEAT[leader + 1]], third)
                st[d, S_COUNT] = c_n
                st[d, S_IDX] = 0
                maximize = (mover == declarer) != (mode == MODE_NULL)
                st[d, S_BEST] = -1 if maximize else 1 << 20
                st[d, S_CHOSEN] = -1
        # ---------------------------------------------------- the next card of node d
        n = st[d, S_N]
        leader = st[d, S_LEAD]
        mover = SEAT[leader + n]
        maximize = (mover == declarer) != (mode == MODE_NULL)
        if st[d, S_IDX] >= st[d, S_COUNT] or st[d, S_AL] >= st[d, S_BE]:  # node d is finished
            value = st[d, S_BEST]
            slot = st[d, S_SLOT]
            if slot >= 0:
                low = 0
                high = NO_BOUND
                stored = -1
                if (_written(table, slot, gen) and table[slot, 0] == st[d, S_KEY1]
                        and (table[slot, 1] & KEY2_MASK) == st[d, S_KEY2]):
                    e2 = table[slot, 1]
                    low = (e2 >> KEY2_BITS) & 127
                    high = (e2 >> (KEY2_BITS + 7)) & 127
                    stored = ((e2 >> (KEY2_BITS + 14)) & 63) - 1
                v = min(max(value, 0), NO_BOUND)  # values are 0..120: clipping is a no-op
                if value <= st[d, S_A0]:
                    high = min(high, v)
                elif value >= st[d, S_B0]:
                    low = max(low, v)
                else:
                    low = v
                    high = v
                # the best card of a node that cut or is exact; one where every card
                # failed keeps the card stored before (its "best" is only the least bad
                # bound, no guide to a later window)
                if st[d, S_CHOSEN] >= 0 and not (value <= st[d, S_A0] if maximize
                                                 else value >= st[d, S_B0]):
                    stored = _to_canonical(run, contract, st[d, S_CHOSEN],
                                           hands[0] | hands[1] | hands[2])
                table[slot, 0] = st[d, S_KEY1]
                table[slot, 1] = (st[d, S_KEY2] | (low << KEY2_BITS) | (high << (KEY2_BITS + 7))
                                  | ((stored + 1) << (KEY2_BITS + 14)))
                _mark(table, slot, gen)
            ret = value
            if d == 0:
                break
            d -= 1
            mover = SEAT[st[d, S_LEAD] + st[d, S_N]]
            hands[mover] ^= np.int64(1) << st[d, S_CUR]
            st[d, S_BEST], st[d, S_CHOSEN], st[d, S_AL], st[d, S_BE] = _fold(
                st[d, S_GAIN] + ret, (mover == declarer) != (mode == MODE_NULL),
                st[d, S_CUR], st[d, S_BEST], st[d, S_CHOSEN], st[d, S_AL], st[d, S_BE])
            continue
        if st[d, S_LAZY] and st[d, S_IDX] == 1:  # the table's lead did not cut: order the rest
            st[d, S_LAZY] = 0
            _order(contract, declarer, mover, leader, 0, -1, -1, moves[d, 1:],
                   st[d, S_COUNT] - 1, scores, hands[SEAT[leader + 1]], hands[SEAT[leader + 2]])
        c = moves[d, st[d, S_IDX]]
        st[d, S_IDX] += 1
        st[d, S_CUR] = c
        hands[mover] ^= np.int64(1) << c
        t0 = st[d, S_T0]
        t1 = st[d, S_T1]
        if n < 2:
            st[d, S_GAIN] = 0
            st[d + 1, S_N] = n + 1
            st[d + 1, S_T0] = c if n == 0 else t0
            st[d + 1, S_T1] = c if n == 1 else -1
            st[d + 1, S_LEAD] = leader
        else:
            winner = SEAT[leader + core.trick_winner(contract, t0, t1, c)]
            if winner == declarer and mode == MODE_NULL:  # R9: the null is lost here
                hands[mover] ^= np.int64(1) << c
                st[d, S_BEST], st[d, S_CHOSEN], st[d, S_AL], st[d, S_BE] = _fold(
                    1, maximize, c, st[d, S_BEST], st[d, S_CHOSEN], st[d, S_AL], st[d, S_BE])
                continue
            g = 0
            if winner == declarer:
                g = core.trick_points(t0, t1, c) if mode == MODE_POINTS else 1
            st[d, S_GAIN] = g
            st[d + 1, S_N] = 0
            st[d + 1, S_T0] = -1
            st[d + 1, S_T1] = -1
            st[d + 1, S_LEAD] = winner
        st[d + 1, S_REST] = st[d, S_REST] - POINTS[c]
        st[d + 1, S_AL] = st[d, S_AL] - st[d, S_GAIN]
        st[d + 1, S_BE] = st[d, S_BE] - st[d, S_GAIN]
        d += 1
        entering = True
    ctx[CTX_NODES] += nodes
    moves_kept[0, 0] = ret  # its last use: numba frees an array after its last use
    group_kept[0] = ret  # the same for the scratch of _dominant
    return ret


@njit(inline="always")
def _fold(v: int, maximize: bool, card: int, best: int, chosen: int, alpha: int, beta: int
          ) -> tuple[int, int, int, int]:
    """A child's value ``v`` (after ``card``) folded into its node: the node's new best
    value, best card and window. Scalars in and out: a helper taking the stack's arrays
    made numba count references to all of them (atomically) at every child."""
    if maximize:
        if v > best:
            best = v
            chosen = card
            alpha = max(alpha, v)
    elif v < best:
        best = v
        chosen = card
        beta = min(beta, v)
    return best, chosen, alpha, beta


@njit(cache=False)  # recursive: numba cannot cache it
def minimax(hands: np.ndarray, t0: int, t1: int, n: int, leader: int, contract: int,
            declarer: int, mode: int) -> int:
    """The same value as :func:`search` by plain minimax: every legal card, no pruning,
    no table, no merging. The reference the solver is tested against."""
    mover = (leader + n) % 3
    if n == 0 and (hands[0] | hands[1] | hands[2]) == 0:
        return 0
    follow = core.follow_mask(contract, t0) if n > 0 else np.int64(-1)
    legal = core.legal_cards(hands[mover], follow)
    maximize = (mover == declarer) != (mode == MODE_NULL)
    best = -1 if maximize else 1 << 20
    for c in range(32):
        if (legal >> c) & 1 == 0:
            continue
        bit = np.int64(1) << c
        hands[mover] ^= bit
        if n == 0:
            v = minimax(hands, c, -1, 1, leader, contract, declarer, mode)
        elif n == 1:
            v = minimax(hands, t0, c, 2, leader, contract, declarer, mode)
        else:
            winner = (leader + core.trick_winner(contract, t0, t1, c)) % 3
            if winner != declarer:
                v = minimax(hands, -1, -1, 0, winner, contract, declarer, mode)
            elif mode == MODE_NULL:
                v = 1
            else:
                gain = core.trick_points(t0, t1, c) if mode == MODE_POINTS else 1
                v = gain + minimax(hands, -1, -1, 0, winner, contract, declarer, mode)
        hands[mover] ^= bit
        if maximize:
            best = max(best, v)
        else:
            best = min(best, v)
    return best
