"""Time ``skatlog report`` on ~100,000 simulated hands (the ``rules`` bot) plus logged games.

Usage: ``.venv/bin/python bench/report_bench.py [--hands 100000] [--out bench/out/report]``.
Builds the archive under ``bench/out/`` (git-ignored): the simulated hands, the ISS records of
``../shared/data/iss`` when present (ingested, not copied), and 40 engine-played sessions
stored as logs; then builds the report and prints the figures and the strategy verdicts.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from skatlog.analytics.connect import connect
from skatlog.analytics.strategy import evaluate
from skatlog.analytics.synthetic import write_sessions
from skatlog.ingest.pipeline import ingest_paths
from skatlog.reports.build import _strategy_filter, build_report
from skatlog.simulation import SimulationOptions, simulate_to_archive

REPO = Path(__file__).resolve().parent.parent
SHARED_ISS = REPO.parent / "shared" / "data" / "iss"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--archive", type=Path, default=REPO / "bench" / "out" / "archive")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "report")
    args = parser.parse_args()
    shutil.rmtree(args.archive, ignore_errors=True)
    t0 = time.perf_counter()
    sim = simulate_to_archive(args.archive, SimulationOptions(hands=args.hands, seed=2026,
                                                              sessions=True))
    print(f"simulated {sim.stored} hands in {sim.seconds:.1f} s")
    if SHARED_ISS.exists():
        summary = ingest_paths([SHARED_ISS], args.archive, progress=False)
        print(f"ingested ISS records from {SHARED_ISS}: {summary}")
    logs = write_sessions(args.archive, 40, 77, origin="log", club="Bench club")
    print(f"stored {logs} engine-played hands as logs; archive ready after "
          f"{time.perf_counter() - t0:.1f} s")
    t1 = time.perf_counter()
    result = build_report(args.archive, args.out)
    wall = time.perf_counter() - t1
    print(f"report: {result.overview['hands']} hands, {len(result.pages)} pages, "
          f"build {result.seconds:.2f} s (wall {wall:.2f} s) -> {result.index}")
    con = connect(args.archive)
    for verdict in evaluate(con, _strategy_filter(con, None)):
        print("  " + verdict.summary())


if __name__ == "__main__":
    main()
