"""Time the session and player totals under each scoring (``--scoring list|seeger-fabian``).

Usage::

    .venv/bin/python bench/scoring.py [--hands 300000] [--archive /tmp/scoring-bench]
        [--reuse] [--repeat 3]

1. ``skatlog simulate --hands N --seed 7 --sessions --archive A`` (skipped with ``--reuse``
   when the archive exists): 12-hand sessions of the ``rules`` bots;
2. per scoring, the best of ``--repeat`` runs of the whole ``sessions`` view (every session's
   totals and winners) and of ``player_table`` by player and by session.

Prints one line per measurement with the rows and a checksum of the totals, so a change in
the SQL that changes a number shows up beside its time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from skatlog.analytics.connect import connect
from skatlog.analytics.scoring import SCORINGS
from skatlog.analytics.seeger_fabian import player_table

SKATLOG = Path(sys.executable).with_name("skatlog")


def _best(call: Callable[[], object], repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - started)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300_000)
    parser.add_argument("--archive", type=Path, default=Path("/tmp/scoring-bench"))
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not (args.reuse and (args.archive / "manifest.json").is_file()):
        subprocess.run([str(SKATLOG), "simulate", "--hands", str(args.hands), "--seed", "7",
                        "--sessions", "--archive", str(args.archive)], check=True)
    for scoring in SCORINGS:
        con = connect(args.archive, scoring)
        hands, sessions = con.execute(
            "SELECT count(*), count(DISTINCT session_id) FROM games").fetchall()[0]
        seconds, row = _best(lambda con=con: con.execute(
            "SELECT count(*), sum(list_sum(totals)), count(winners) FROM sessions").fetchall(),
            args.repeat)
        print(f"{scoring:>13}: sessions view over {hands:,} hands ({sessions:,} sessions): "
              f"{seconds:.3f} s  [sessions, sum of totals, with winners: {row}]")
        for by in ("player", "session"):
            seconds, frame = _best(lambda by=by, con=con, scoring=scoring: player_table(
                con, by=by, scoring=scoring), args.repeat)
            assert hasattr(frame, "height")
            print(f"{scoring:>13}: player_table by {by}: {seconds:.3f} s "
                  f"[{frame.height:,} rows, sum of points {frame['points'].sum():,}]")
        con.close()


if __name__ == "__main__":
    main()
