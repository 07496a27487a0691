"""Benchmark the reference engine: complete random-legal hands per second on one core.

Each hand is dealt, bid, declared, played to the end and scored; once through the validated
path (every move checked, typed errors) and once through the unchecked fast path.

    .venv/bin/python bench/engine.py [--hands N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

from skatlog.engine import RandomPlayer, deal_cards, play_hand


def hands_per_second(hands: int, seed: int, *, checked: bool, step_bids: bool) -> float:
    rng = random.Random(seed)
    bots = (RandomPlayer(step_bids=step_bids),) * 3
    start = time.perf_counter()
    for _ in range(hands):
        play_hand(deal_cards(rng), bots, rng, checked=checked)
    return hands / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"reference engine, one core, {args.hands:,} complete random-legal hands per run")
    for step_bids, label in ((False, "uniform random calls"), (True, "step-by-step bids")):
        checked = hands_per_second(args.hands, args.seed, checked=True, step_bids=step_bids)
        unchecked = hands_per_second(args.hands, args.seed, checked=False, step_bids=step_bids)
        print(f"  {label:22s} validated {checked:9,.0f} hands/s   unchecked {unchecked:9,.0f}"
              f" hands/s   ratio {unchecked / checked:4.2f}x")


if __name__ == "__main__":
    main()
