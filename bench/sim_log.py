"""Benchmark: ``skatlog simulate --out FILE`` and ``skatlog ingest FILE``, as a user runs them.

Issue 17 item 7: both at least 100,000 hands/s on 2 cores. Runs the CLI in fresh processes
(warm numba cache: run ``skatlog warm-up`` once first), times each command's wall, and also
prints the CPU seconds the run's processes used (this process's children), so that a figure
taken on a shared machine can be read beside what free cores would allow. Not a test: no
assertion on timings.

    .venv/bin/python bench/sim_log.py --hands 1000000 --bots rules,rules,rules
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 100_000


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process tree) of ``skatlog ARGS``."""
    cpu = _children_cpu()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "skatlog", *args], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, _children_cpu() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--bots", default="rules,rules,rules")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--format", choices=("sgf", "jsonl"), default="sgf")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="skatlog-bench-simlog-"))
    cores = os.cpu_count() or 1
    try:
        log = work / f"hands.{args.format}"
        wall, cpu = run(["simulate", "--hands", str(args.hands), "--seed", str(args.seed),
                         "--bots", args.bots, "--out", str(log)])
        size = log.stat().st_size
        print(f"simulate --out   {args.hands:,} hands ({args.bots}) in {wall:.2f} s ="
              f" {args.hands / wall:,.0f} hands/s ({args.hands / wall / TARGET:.2f}x the"
              f" {TARGET:,} target); CPU {cpu:.1f} s; {size / 1e6:,.0f} MB")
        wall, cpu = run(["ingest", str(log), "--archive", str(work / "archive"), "-q"])
        print(f"ingest that log  {args.hands:,} hands in {wall:.2f} s ="
              f" {args.hands / wall:,.0f} games/s ({args.hands / wall / TARGET:.2f}x);"
              f" CPU {cpu:.1f} s (on {cores} free cores at least {cpu / cores:.2f} s ="
              f" {args.hands * cores / cpu:,.0f} games/s)")
        print(f"load average {os.getloadavg()[0]:.1f} on {cores} cores")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
