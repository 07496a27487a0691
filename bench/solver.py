"""Benchmark the perfect-information solver on full 10-trick hands after the discard.

Deals, bids, skat and declarations come from the ``rules`` bot (seeded deals, hands where
somebody declared). For each hand: the exact value (the declarer's card points, null: can he
avoid every trick) and the won/lost question of the game as declared (one null window on
what :func:`skatlog.engine.solver.target` says it needs). Times are CPU milliseconds of this
process (``time.process_time``, pinned to one core when the OS allows), printed beside the
published anchors; wall time is printed too.

``--check`` (300 hands by default) holds the solver to independent references on full hands:
plain minimax cannot search a full hand (some 10^15 lines), so each hand is checked by
(a) the solver's best line replayed through ``GameState`` scoring the value, (b) the null
windows at the value and one above it agreeing, (c) a second solve with the table reused
agreeing, and (d) plain minimax (no pruning, table or merging) from the position after the
first five tricks of that line (a 5-trick endgame, every card).

``--analyze N`` also times ``skatlog analyze`` (:func:`skatlog.analytics.analysis.analyse_archive`)
on the played games of ``N`` simulated ``rules`` hands, on ``--workers`` processes (not
pinned), in games per second of wall time; ``--pimc N`` plays ``N`` hands with one ``pimc``
bot (K = ``--k``) and two ``rules`` bots and prints its hands per second of CPU.

    .venv/bin/python bench/solver.py [--hands 200] [--seed 1] [--check [--check-hands 300]]
                                     [--analyze 200 [--workers 2]] [--pimc 30 [--k 20]]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numpy as np

from skatlog.engine import GameState, Play, seeded_deal
from skatlog.engine import solver_kernel as k
from skatlog.engine.bots import RulesPlayer
from skatlog.engine.game import Phase
from skatlog.engine.solver import Position, Solver, target

ANCHORS = (
    "Kupferschmid & Helmert 2006 (C++): about 10 ms a typical hand",
    "an open C++ Skat solver: 3.7 ms 'does the declarer reach 61', 241 ms the exact value",
    "bridge's DDS: 7-16 ms a board",
    "targets here: median <= 5 ms exact, <= 1 ms won/lost",
)


def hands_after_discard(count: int, seed: int) -> list[GameState]:
    """``count`` games of the ``rules`` bot at the first card of play."""
    out: list[GameState] = []
    n = seed
    bot = RulesPlayer()
    while len(out) < count:
        state = GameState(seeded_deal(n))
        rng = random.Random(n)
        n += 1
        while state.phase is not Phase.PLAY and not state.finished:
            state.apply(bot.choose(state, rng))
        if state.phase is Phase.PLAY:
            out.append(state)
    return out


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered) * 1000:8.2f} ms   p95 {p95 * 1000:9.2f} ms"


def _nodes(counts: list[int]) -> str:
    return (f"nodes a hand: median {statistics.median(counts):,.0f}, "
            f"mean {statistics.mean(counts):,.0f}")


def timed(states: list[GameState]) -> None:
    solver = Solver()
    solver.value(Position.from_state(states[0]))  # load the compiled search
    exact: list[float] = []
    wonlost: list[float] = []
    exact_wall: list[float] = []
    wonlost_wall: list[float] = []
    nodes_exact: list[int] = []
    nodes_wonlost: list[int] = []
    for state in states:
        assert state.declaration is not None
        pos = Position.from_state(state)
        need = target(state.declaration, state.bid, state.matadors())
        wall, cpu = time.perf_counter(), time.process_time()
        before = solver.nodes
        solver.wins(pos, need)
        wonlost.append(time.process_time() - cpu)
        wonlost_wall.append(time.perf_counter() - wall)
        nodes_wonlost.append(solver.nodes - before)
        wall, cpu = time.perf_counter(), time.process_time()
        before = solver.nodes
        solver.value(pos)
        exact.append(time.process_time() - cpu)
        exact_wall.append(time.perf_counter() - wall)
        nodes_exact.append(solver.nodes - before)
    n = len(states)
    print(f"{n} full hands after the discard (rules bot deals and declarations), one core:")
    print(f"  exact value      CPU {_ms(exact)}   ({_nodes(nodes_exact)})")
    print(f"  won/lost         CPU {_ms(wonlost)}   ({_nodes(nodes_wonlost)})")
    print(f"  exact value      wall {_ms(exact_wall)}")
    print(f"  won/lost         wall {_ms(wonlost_wall)}")
    print("anchors:")
    for line in ANCHORS:
        print(f"  {line}")


def _minimax(pos: Position) -> int:
    hands = np.array(pos.hands, dtype=np.int64)
    t = [*pos.trick, -1, -1]
    mode = k.MODE_NULL if pos.null else k.MODE_POINTS
    future = int(k.minimax(hands, t[0], t[1], len(pos.trick), pos.leader, pos.contract,
                           pos.declarer, mode))
    return future if pos.null else pos.declarer_points + future


def check(states: list[GameState]) -> None:
    solver = Solver()
    endgames = 0
    start = time.perf_counter()
    for i, state in enumerate(states):
        pos = Position.from_state(state)
        solution = solver.solve(pos)
        value = solution.value
        replay = GameState(state.deal, rules=state.rules)
        for move in state.moves:
            replay.apply(move)
        here = pos
        for j, (seat, card) in enumerate(solution.line):
            replay.apply(Play(seat, card))
            here = here.play(int(card))
            if not here.trick and here.tricks_played == 5 and not here.over:
                assert _minimax(here) == value, (i, j, "minimax after the line's tricks")
                endgames += 1
        got = (1 if replay.declarer_tricks else 0) if pos.null else replay.declarer_points
        assert got == value, (i, "line replay", got, value)
        assert solver.at_least(pos, value) and not solver.at_least(pos, value + 1), i
        assert solver.value(pos, keep=True) == value, (i, "reused table")
        if (i + 1) % 25 == 0:
            print(f"  checked {i + 1} hands ({time.perf_counter() - start:.0f} s)", flush=True)
    print(f"check: {len(states)} full hands: line replayed through GameState, null windows, "
          f"reused table, and {endgames} endgames along the lines vs plain minimax: all agree "
          f"({time.perf_counter() - start:.0f} s)")


def analyze_rate(hands: int, workers: int, seed: int) -> None:
    """``skatlog analyze`` throughput on the played games of ``hands`` simulated hands."""
    import tempfile

    from skatlog.analytics.analysis import analyse_archive
    from skatlog.simulation import SimulationOptions, simulate_to_archive

    with tempfile.TemporaryDirectory(prefix="skatlog-analyze-") as folder:
        simulate_to_archive(folder, SimulationOptions(hands=hands, seed=seed,
                                                      bots=("rules",) * 3))
        summary = analyse_archive(folder, workers=workers)
    print(f"analyze: {summary.analysed} played games of {hands} simulated hands in "
          f"{summary.seconds:.1f} s wall = {summary.analysed / summary.seconds:.2f} games/s "
          f"on {workers} workers (skatlog analyze, start-up of the workers included)")


def pimc_rate(hands: int, k: int, seed: int) -> None:
    """Hands per second of CPU with one ``pimc`` seat (K = ``k``) and two ``rules`` seats,
    the ``pimc`` seat rotating."""
    from skatlog.engine.pimc import PimcPlayer
    from skatlog.engine.players import play_hand

    pimc, rules = PimcPlayer(k), RulesPlayer()
    start = time.process_time()
    for n in range(hands):
        seats = [rules, rules, rules]
        seats[n % 3] = pimc
        play_hand(seeded_deal(seed + n), (seats[0], seats[1], seats[2]), random.Random(n))
    seconds = time.process_time() - start
    print(f"pimc: {hands} hands (one pimc seat, K = {k}, two rules seats) in {seconds:.1f} s"
          f" CPU = {hands / seconds:.2f} hands/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--check-hands", type=int, default=300)
    parser.add_argument("--analyze", type=int, default=0, metavar="HANDS",
                        help="also time skatlog analyze on this many simulated hands")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pimc", type=int, default=0, metavar="HANDS",
                        help="also time the pimc bot on this many hands")
    parser.add_argument("--k", type=int, default=20)
    args = parser.parse_args()
    if args.analyze:  # before pinning: the workers use every core
        analyze_rate(args.analyze, args.workers, args.seed)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    if args.hands:
        timed(hands_after_discard(args.hands, args.seed))
    if args.pimc:
        pimc_rate(args.pimc, args.k, args.seed)
    if args.check:
        check(hands_after_discard(args.check_hands, args.seed + 100_000))


if __name__ == "__main__":
    main()
