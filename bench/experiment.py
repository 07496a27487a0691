"""Benchmark: a two-arm paired experiment into a fresh archive, end to end.

Times ``run_experiment`` (every run of the experiment simulated and written, the manifest
recorded) and the paired analysis over the archive, and prints the hands a second, the CPU
time a hand and the rate the CPU time allows on the free cores (other work on the machine
lowers the measured rate but hardly the CPU time). Issue 18's target: a 1,000,000-deal
two-arm experiment in under a minute.

    .venv/bin/python bench/experiment.py                     # 1,000,000 deals, trumps_first
    .venv/bin/python bench/experiment.py --deals 200000 --advice smear
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from skatlog.analytics.connect import connect
from skatlog.analytics.experiments import experiment_results
from skatlog.simulation import set_workers, simulate_to_archive
from skatlog.simulation.experiment import advice_by_key, advice_experiment, run_experiment
from skatlog.simulation.options import SimulationOptions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--advice", default="trumps_first")
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    threads = set_workers(args.workers)
    folder = Path(tempfile.mkdtemp(prefix="skatlog-exp-bench-"))
    try:
        simulate_to_archive(folder / "warmup", SimulationOptions(hands=2000, seed=1))
        options = advice_experiment(advice_by_key([args.advice])[0], args.deals, args.seed)
        runs = options.runs()
        load = os.getloadavg()[0]
        cpu = time.process_time()
        start = time.perf_counter()
        summary = run_experiment(folder / "archive", options)
        played = time.perf_counter() - start
        con = connect(folder / "archive")
        [result] = experiment_results(con, folder / "archive")
        total = time.perf_counter() - start
        used = time.process_time() - cpu
        hands = summary.hands
        print(f"experiment {options.label}: {options.arms[0]} vs {options.arms[1]}, "
              f"{args.deals:,} deals, {len(runs)} runs, {hands:,} hands; {threads} threads, "
              f"load average before {load:.1f}")
        print(f"  simulated and stored in {played:.1f} s ({hands / played:,.0f} hands/s); "
              f"with the paired analysis {total:.1f} s; CPU {used / hands * 1e6:.2f} us a "
              f"hand, CPU-bound on {threads} free cores {threads * hands / used:,.0f} hands/s "
              f"({threads * hands / used / len(runs):,.0f} deals a second per run)")
        e = result.list_points
        print(f"  {result.verdict}: list points a hand {e.effect:+.3f} [{e.low:+.3f}, "
              f"{e.high:+.3f}], n {e.n:,}")
        print("target: a 1,000,000-deal two-arm experiment in under a minute: "
              + (("met" if total < 60 else "NOT met") if args.deals >= 1_000_000
                 else "n/a (fewer deals)"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
