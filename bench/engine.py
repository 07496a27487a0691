"""Benchmark the reference engine: complete random-legal hands per second on one core.

Each hand is dealt, bid, declared, played to the end and scored by random legal players; once
through the validated path (every move checked, typed errors) and once through the unchecked
fast path. Then the same hands' recorded moves are replayed without any player choosing, which
isolates the cost of validation itself.

    .venv/bin/python bench/engine.py [--hands N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

from skatlog.engine import GameRecord, GameState, RandomPlayer, deal_cards, play_hand


def hands_per_second(hands: int, seed: int, *, checked: bool, step_bids: bool) -> float:
    rng = random.Random(seed)
    bots = (RandomPlayer(step_bids=step_bids),) * 3
    start = time.perf_counter()
    for _ in range(hands):
        play_hand(deal_cards(rng), bots, rng, checked=checked)
    return hands / (time.perf_counter() - start)


def replays_per_second(records: list[GameRecord], *, checked: bool) -> float:
    start = time.perf_counter()
    for record in records:
        state = GameState(record.deal)
        apply = state.apply if checked else state.apply_unchecked
        for move in record.moves:
            apply(move)
        state.result()
    return len(records) / (time.perf_counter() - start)


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
    rng = random.Random(args.seed)
    bots = (RandomPlayer(step_bids=True),) * 3
    records = [play_hand(deal_cards(rng), bots, rng, checked=False) for _ in range(args.hands)]
    checked = replays_per_second(records, checked=True)
    unchecked = replays_per_second(records, checked=False)
    print(f"  {'replay of the records':22s} validated {checked:9,.0f} hands/s   unchecked"
          f" {unchecked:9,.0f} hands/s   ratio {unchecked / checked:4.2f}x")


if __name__ == "__main__":
    main()
