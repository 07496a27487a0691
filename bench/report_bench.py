"""Time ``skatlog report`` on 1,000,000 simulated hands and measure what it writes.

Usage::

    .venv/bin/python bench/report_bench.py [--hands 1000000] [--archive /tmp/rep1m]
        [--out /tmp/rep1m-report] [--reuse] [--extra-bots random,random,random ...]
        [--extra-hands 100000] [--with-logs]

1. ``skatlog simulate --hands N --seed 1 --archive A`` (skipped with ``--reuse`` when the
   archive exists), plus one run of ``--extra-hands`` per ``--extra-bots`` line-up, and with
   ``--with-logs`` the ISS records of ``../shared/data/iss`` (when present) and 40
   engine-played sessions stored as logs;
2. ``skatlog report --archive A --out O --no-progress`` as a fresh process: its wall time
   (Python start-up included) and the build time it prints;
3. the report's size: every file, the pages, the largest page and the copies of plotly.js.

The targets (issue 17): at most 10 s and 10 MB on 1,000,000 hands, one plotly.js.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SKATLOG = Path(sys.executable).with_name("skatlog")
SHARED_ISS = REPO.parent / "shared" / "data" / "iss"
TARGET_SECONDS = 10.0
TARGET_BYTES = 10_000_000


def _run(args: list[str]) -> tuple[float, str]:
    """Run a skatlog command; (wall seconds, its standard output)."""
    start = time.perf_counter()
    done = subprocess.run([str(SKATLOG), *args], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"skatlog {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return wall, done.stdout


def _archive(args: argparse.Namespace) -> None:
    if args.reuse and (args.archive / "manifest.json").is_file():
        print(f"archive    {args.archive} (reused)")
        return
    if args.archive.exists():
        sys.exit(f"{args.archive} exists: pass --reuse, or remove it first")
    command = ["simulate", "--hands", str(args.hands), "--seed", "1", "--archive",
               str(args.archive), "--no-progress"]
    wall, _ = _run(command)
    print(f"simulate   skatlog {' '.join(command)}: {wall:.1f} s")
    for i, bots in enumerate(args.extra_bots):
        command = ["simulate", "--hands", str(args.extra_hands), "--seed", str(2 + i),
                   "--bots", bots, "--archive", str(args.archive), "--no-progress"]
        wall, _ = _run(command)
        print(f"simulate   skatlog {' '.join(command)}: {wall:.1f} s")
    if args.with_logs:
        from skatlog.analytics.synthetic import write_sessions
        from skatlog.ingest.pipeline import ingest_paths

        if SHARED_ISS.exists():
            summary = ingest_paths([SHARED_ISS], args.archive, progress=False)
            print(f"ingest     {SHARED_ISS}: {summary}")
        stored = write_sessions(args.archive, 40, 77, origin="log", club="Bench club")
        print(f"logs       {stored:,} engine-played hands stored as logs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--archive", type=Path, default=Path("/tmp/rep1m"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/rep1m-report"))
    parser.add_argument("--reuse", action="store_true",
                        help="use an existing archive at --archive as it is")
    parser.add_argument("--extra-bots", action="append", default=[],
                        help="another line-up to simulate --extra-hands hands with")
    parser.add_argument("--extra-hands", type=int, default=100_000)
    parser.add_argument("--with-logs", action="store_true",
                        help="also store logged games (../shared ISS records, 40 sessions)")
    args = parser.parse_args()
    _archive(args)

    command = ["report", "--archive", str(args.archive), "--out", str(args.out),
               "--no-progress"]
    wall, output = _run(command)
    files = [p for p in args.out.rglob("*") if p.is_file()]
    pages = [p for p in files if p.suffix == ".html"]
    total = sum(p.stat().st_size for p in files)
    largest = max(pages, key=lambda p: p.stat().st_size)
    scripts = [p for p in files if p.suffix == ".js"]
    print(f"report     skatlog {' '.join(command)}")
    print(f"           {' '.join(output.split())}")
    print(f"wall       {wall:.2f} s (a fresh process, start-up included; target "
          f"{TARGET_SECONDS:.0f} s): {'ok' if wall <= TARGET_SECONDS else 'OVER'}")
    print(f"size       {total / 1e6:.2f} MB in {len(files)} files, {len(pages)} pages "
          f"(target {TARGET_BYTES / 1e6:.0f} MB): {'ok' if total <= TARGET_BYTES else 'OVER'}")
    print(f"largest    {largest.relative_to(args.out)} {largest.stat().st_size / 1e3:,.0f} kB;"
          f" pages without plotly.js {sum(p.stat().st_size for p in pages) / 1e6:.2f} MB")
    print(f"plotly.js  {len(scripts)} cop{'y' if len(scripts) == 1 else 'ies'}: "
          + ", ".join(str(p.relative_to(args.out)) for p in scripts))


if __name__ == "__main__":
    main()
