"""Benchmark: the compiled batch kernel alone (``simulate_batch``, no archive writing).

Prints, for ``random`` x3 and ``rules`` x3 bots at 1 and 2 threads, the CPU time per hand
(all threads, ``time.process_time``) and the wall-clock rate in hands/s. The CPU figure is
what the end-to-end simulation budget (~4 us/hand for the whole pipeline) is spent from;
other load on the machine lowers hands/s but hardly the CPU time. Best of ``--repeat`` runs.

    .venv/bin/python bench/kernel.py                   # 2M random hands, 200k rules hands
    .venv/bin/python bench/kernel.py --hands 5000000 --repeat 5 --chunk 1000000

Hands are simulated in chunks of ``--chunk`` (default 50,000, the chunk
``skatlog.simulation`` uses), each into freshly allocated arrays as in the pipeline.
"""

from __future__ import annotations

import argparse
import time

from skatlog.engine.batch import simulate_batch

BOTS = {"random": ("random",) * 3, "rules": ("rules",) * 3}


def measure(bots: tuple[str, str, str], hands: int, threads: int, chunk: int,
            repeat: int) -> tuple[float, float]:
    """Best (CPU us/hand, hands/s) over ``repeat`` runs of ``hands`` hands in ``chunk``s."""
    simulate_batch(1, 0, 3000, bots, threads=threads)  # load the compiled kernel
    best_cpu = float("inf")
    best_rate = 0.0
    for _ in range(repeat):
        cpu = time.process_time()
        wall = time.perf_counter()
        done = 0
        while done < hands:
            n = min(chunk, hands - done)
            simulate_batch(1, done, n, bots, threads=threads)
            done += n
        wall = time.perf_counter() - wall
        cpu = time.process_time() - cpu
        best_cpu = min(best_cpu, cpu / hands * 1e6)
        best_rate = max(best_rate, hands / wall if wall > 0 else float("inf"))
    return best_cpu, best_rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2_000_000, help="random-bot hands")
    parser.add_argument("--rules-hands", type=int, default=200_000, help="rules-bot hands")
    parser.add_argument("--chunk", type=int, default=50_000, help="hands per call")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is shown")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    print(f"{'bots':<8} {'threads':>7} {'hands':>12} {'cpu us/hand':>12} {'hands/s':>14}")
    for name, bots in BOTS.items():
        hands = args.hands if name == "random" else args.rules_hands
        for threads in args.threads:
            cpu, rate = measure(bots, hands, threads, args.chunk, args.repeat)
            print(f"{name:<8} {threads:>7} {hands:>12,} {cpu:>12.3f} {rate:>14,.0f}",
                  flush=True)


if __name__ == "__main__":
    main()
