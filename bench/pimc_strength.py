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

    .venv/bin/python bench/pimc_strength.py [--deals 2000] [--k 20] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections import defaultdict

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = RulesPlayer()
    pimc = PimcPlayer(k=args.k)
    diffs: list[float] = []
    success: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    pimc_hands = 0
    pimc_seconds = 0.0
    played = 0
    for n in range(args.seed, args.seed + args.deals):
        deal = seeded_deal(n)
        base = play_hand(deal, (rules, rules, rules), random.Random(n))
        if base.result.declaration is None:
            continue
        played += 1
        contract = base.result.declaration.contract.label
        declarer = base.result.declarer
        assert declarer is not None
        success[(contract, "rules")][0] += int(base.result.won)
        success[(contract, "rules")][1] += 1
        for seat in range(3):
            bots = [rules, rules, rules]
            bots[seat] = pimc
            start = time.process_time()
            game = play_hand(deal, (bots[0], bots[1], bots[2]), random.Random(n * 3 + seat))
            pimc_seconds += time.process_time() - start
            pimc_hands += 1
            diffs.append(seat_points(game, seat) - seat_points(base, seat))
            if seat == declarer:
                success[(contract, "pimc")][0] += int(game.result.won)
                success[(contract, "pimc")][1] += 1
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    print(f"{played} played deals of {args.deals}, {len(diffs)} rotations, K = {args.k}")
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
