"""``pimc`` against ``rules`` on duplicate deals: list points per hand with 95 % intervals.

Bidding, skat and declaration are the ``rules`` evaluation for both bots, so every deal has
the same declarer and contract in every line-up and only the card play differs. Each deal
is played four times: by three ``rules`` bots (the baseline), and with one ``pimc`` bot in
each seat in turn (the seats rotated, so ``pimc`` holds every hand). For each rotation the
figure is the list points of the seat ``pimc`` holds minus those of the ``rules`` bot in the
same seat of the baseline (the declarer's list value; 0 for a defender, whose side's gain
is the declarer's loss, counted as -value/2 for each defender). Also the declarer's success
by contract, ``pimc`` declaring vs ``rules`` declaring, with Wilson 95 % intervals, and the
``pimc`` bot's hands per second.

    .venv/bin/python bench/pimc_strength.py [--deals 2000] [--k 20] [--seed 1] [--workers 2]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import random
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass

from skatlog.engine import GameRecord, seeded_deal
from skatlog.engine.bots import RulesPlayer
from skatlog.engine.pimc import PimcPlayer
from skatlog.engine.players import play_hand


def seat_points(record: GameRecord, seat: int) -> float:
    """List points for ``seat``: the declarer's signed value, each defender minus half."""
    result = record.result
    if result.declarer is None or result.declaration is None:
        return 0.0
    value = float(result.value)
    return value if seat == result.declarer else -value / 2


def wilson(wins: int, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    z = 1.96
    p = wins / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return mid - half, mid + half


@dataclass
class DealResult:
    """One deal's outcome: whether it was played (not passed in), its contract, the
    ``rules`` declarer's result, the three rotations' differences, the ``pimc`` declarer's
    result, and the CPU seconds of the three ``pimc`` line-ups."""

    played: bool
    contract: str = ""
    rules_won: bool = False
    diffs: tuple[float, ...] = ()
    pimc_won: bool = False
    pimc_seconds: float = 0.0


_BOTS: dict[str, object] = {}


def play_deal(n: int, k: int) -> DealResult:
    """Deal ``n`` played four times: three ``rules`` bots, then ``pimc`` in each seat."""
    if "pimc" not in _BOTS or _BOTS["k"] != k:
        _BOTS.update(rules=RulesPlayer(), pimc=PimcPlayer(k=k), k=k)
    rules, pimc = _BOTS["rules"], _BOTS["pimc"]
    deal = seeded_deal(n)
    base = play_hand(deal, (rules, rules, rules), random.Random(n))  # type: ignore[arg-type]
    if base.result.declaration is None:
        return DealResult(False)
    declarer = base.result.declarer
    assert declarer is not None
    diffs: list[float] = []
    pimc_won = False
    seconds = 0.0
    for seat in range(3):
        bots = [rules, rules, rules]
        bots[seat] = pimc
        start = time.process_time()
        game = play_hand(deal, (bots[0], bots[1], bots[2]),  # type: ignore[arg-type]
                         random.Random(n * 3 + seat))
        seconds += time.process_time() - start
        diffs.append(seat_points(game, seat) - seat_points(base, seat))
        if seat == declarer:
            pimc_won = bool(game.result.won)
    return DealResult(True, base.result.declaration.contract.label, bool(base.result.won),
                      tuple(diffs), pimc_won, seconds)


def _play_deal(args: tuple[int, int]) -> DealResult:
    return play_deal(*args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1,
                        help="processes, each playing whole deals (the figures do not "
                             "depend on it: every deal and line-up has its own seed)")
    args = parser.parse_args()
    diffs: list[float] = []
    success: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    pimc_hands = 0
    pimc_seconds = 0.0
    played = 0
    wall = time.perf_counter()
    jobs = [(n, args.k) for n in range(args.seed, args.seed + args.deals)]
    if args.workers > 1:
        with mp.get_context("fork").Pool(args.workers) as pool:
            results = pool.map(_play_deal, jobs, chunksize=4)
    else:
        results = [_play_deal(job) for job in jobs]
    wall = time.perf_counter() - wall
    for result in results:
        if not result.played:
            continue
        played += 1
        success[(result.contract, "rules")][0] += int(result.rules_won)
        success[(result.contract, "rules")][1] += 1
        success[(result.contract, "pimc")][0] += int(result.pimc_won)
        success[(result.contract, "pimc")][1] += 1
        diffs.extend(result.diffs)
        pimc_hands += len(result.diffs)
        pimc_seconds += result.pimc_seconds
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    last = args.seed + args.deals - 1
    print(f"{played} played deals of {args.deals} (seeds {args.seed}..{last}),"
          f" {len(diffs)} rotations, K = {args.k}, {args.workers} worker(s), wall {wall:.0f} s")
    print(f"pimc minus rules, list points per hand of the seat pimc holds: {mean:+.2f} "
          f"(95 % interval {mean - half:+.2f} .. {mean + half:+.2f})")
    print("declarer's success by contract (wins/games, Wilson 95 %):")
    for contract in sorted({c for c, _ in success}):
        parts = []
        for bot in ("rules", "pimc"):
            w, g = success[(contract, bot)]
            lo, hi = wilson(w, g)
            parts.append(f"{bot} {w}/{g} {100 * w / max(g, 1):.0f}% [{100 * lo:.0f}-"
                         f"{100 * hi:.0f}]")
        print(f"  {contract:9s} " + "   ".join(parts))
    print(f"pimc hands/s at K = {args.k}: {pimc_hands / pimc_seconds:.3f} "
          f"(CPU, one pimc seat and two rules seats a hand)")


if __name__ == "__main__":
    main()
