"""Benchmark: validate and ingest a large ISS file with the compiled fast path.

Writes (once, cached under ``bench/out/``) an ISS file of ``--games`` random legal games
played by the engine, then measures

1. fast validation (parse + full replay + scoring + comparison with ``R[...]``),
2. the full ingest into a fresh Parquet archive (validation + archive tables + writing, the
   worker processes writing the partitions), then a re-ingest of the same file (all
   duplicates),
3. the reference path (ISS reader + engine replay, ``skatlog.ingest.validate``) on a sample,
4. a differential check: every accepted game of a ``--diff`` sample is compared with the
   engine's own record of that game, field by field (status, tricks, value, every scored
   field),

and prints games/s and peak RSS (this process and its worker processes). Not a test: no
assertion on timings. Run ``.venv/bin/python bench/ingest.py --games 1000000 --workers 2``.

``--independent`` measures the same on records skatlog did not write instead (the generator
``bench/other_iss.py``, a share ``--damaged`` of them damaged): warm validate and ingest
rates, why records went to the slow path and what each class of them costs, the first run
with an empty numba cache, and the CLI's wall time (``bench/independent.py``):
``.venv/bin/python bench/ingest.py --independent --games 200000 --damaged 0.03``. With
``--fresh-install`` it measures only the first run as a user meets it: a copy of the
checkout ``pip install``-ed into new venvs (wheel and editable; the build compiles the
kernels), then ``skatlog ingest FILE`` first vs warm, against the 2x target.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from skatlog.ingest.fast import STATUS_NAMES, fast_validate_iss, ingest_iss_fast
from skatlog.ingest.fast import iss_kernel as K
from skatlog.ingest.fast.check import compare_with_engine
from skatlog.ingest.fast.synth import random_record, write_corpus

OUT = Path(__file__).resolve().parent / "out"


def peak_rss_mb() -> tuple[float, float]:
    """Peak resident set size (MB) of this process and of its largest finished child."""
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return me, kids


def corpus(games: int, workers: int, seed: int) -> Path:
    path = OUT / f"iss-{games}-seed{seed}.sgf"
    if path.exists():
        print(f"corpus      {path} (cached)")
        return path
    print(f"corpus      writing {games:,} engine games to {path} ...", flush=True)
    start = time.perf_counter()
    write_corpus(path, games, seed=seed, workers=workers)
    took = time.perf_counter() - start
    print(f"            {took:.0f} s ({games / took:,.0f} games/s with the Python engine)")
    return path


def bench_validate(path: Path, workers: int) -> tuple[int, float]:
    start = time.perf_counter()
    accepted = slow = decided = 0
    statuses: dict[str, int] = {}
    for batch in fast_validate_iss(path, workers=workers, tables=False):
        accepted += batch.accepted
        decided += len(batch.decided)
        slow += len(batch.slow)
        for code, count in zip(*np.unique(batch.rows[:, K.F_STATUS], return_counts=True),
                               strict=True):
            name = STATUS_NAMES[int(code)]
            statuses[name] = statuses.get(name, 0) + int(count)
    took = time.perf_counter() - start
    games = accepted + decided + slow
    print(f"validate    {games:,} games in {took:.2f} s = {games / took:,.0f} games/s"
          f" (accepted {accepted:,}, rejects settled by the kernel {decided:,}, slow path"
          f" {slow:,}; {statuses})")
    return games, took


def bench_ingest(path: Path, workers: int) -> tuple[int, float]:
    """Ingest into a fresh archive (the workers write the Parquet partitions), then again
    into the same archive (every game a duplicate, nothing stored)."""
    archive = Path(tempfile.mkdtemp(prefix="skatlog-bench-archive-", dir=OUT))
    try:
        start = time.perf_counter()
        summary = ingest_iss_fast([path], archive, workers=workers)  # incl. SHA-256
        took = time.perf_counter() - start
        size = sum(f.stat().st_size for f in archive.rglob("*.parquet"))
        files = sum(1 for _ in archive.glob("games/*.parquet"))
        print(f"ingest      {summary.seen:,} games in {took:.2f} s = {summary.seen / took:,.0f}"
              f" games/s (stored {summary.stored:,}, duplicates {summary.duplicates:,},"
              f" rejected {summary.rejected:,}; Parquet {size / 2**20:,.0f} MB,"
              f" {files} games files)")
        start = time.perf_counter()
        again = ingest_iss_fast([path], archive, workers=workers)
        again_took = time.perf_counter() - start
        print(f"re-ingest   {again.seen:,} games in {again_took:.2f} s ="
              f" {again.seen / again_took:,.0f} games/s (stored {again.stored:,},"
              f" duplicates {again.duplicates:,})")
        return summary.seen, took
    finally:
        shutil.rmtree(archive, ignore_errors=True)


def bench_reference(path: Path, sample: int) -> float:
    """Games/s of the reference path (reader + engine replay) on the first ``sample`` lines."""
    from skatlog.ingest.validate import validate_text

    with path.open(encoding="utf-8") as handle:
        text = "".join(line for _, line in zip(range(sample), handle, strict=False))
    start = time.perf_counter()
    games = validate_text(text, str(path), "iss")
    took = time.perf_counter() - start
    bad = sum(not g.ok for g in games)
    print(f"reference   {len(games):,} games in {took:.2f} s = {len(games) / took:,.0f} games/s"
          f" (invalid {bad})")
    return len(games) / took


def _diff_part(job: tuple[int, int, int]) -> tuple[int, int, list[str]]:
    """Play games start..start+count-1, write them as ISS, scan them, compare each one."""
    from skatlog.ingest.fast.columns import scan
    from skatlog.ingest.fast.synth import iss_line

    start, count, seed = job
    records = []
    lines = []
    for index in range(start, start + count):
        rng = random.Random(seed * 7_919 + index)
        record = random_record(rng, concessions=0.01)
        records.append(record)
        lines.append(iss_line(record, index, rng))
    result = scan(("\n".join(lines) + "\n").encode())
    mismatches = 0
    examples: list[str] = []
    if len(result.rows) != count:
        return count, count, [f"{count} games written, {len(result.rows)} rows scanned"]
    for k, (row, deal, tricks) in enumerate(zip(result.rows, result.deals, result.tricks,
                                                strict=True)):
        problem = compare_with_engine(records[k], row, deal, tricks)
        if problem:
            mismatches += 1
            if len(examples) < 5:
                examples.append(f"game {start + k}: {problem}\n  {lines[k]}")
    return count, mismatches, examples


def differential(games: int, seed: int, workers: int) -> None:
    """Engine games written as ISS, scanned by the kernel, compared field by field."""
    import multiprocessing as mp

    step = 5_000
    jobs = [(s, min(step, games - s), seed) for s in range(0, games, step)]
    start = time.perf_counter()
    total = bad = 0
    with mp.get_context("fork").Pool(workers) as pool:
        for count, mismatches, examples in pool.imap_unordered(_diff_part, jobs):
            total += count
            bad += mismatches
            for example in examples:
                print(f"  MISMATCH {example}")
    took = time.perf_counter() - start
    print(f"differential {total:,} engine games (1% with resign/show/time-out/leave) vs kernel:"
          f" {bad} mismatches ({took:.0f} s incl. playing them with the engine)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=None,
                        help="games in the ISS file (1,000,000; --independent 200,000)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--seed", type=int, default=1, help="corpus seed")
    parser.add_argument("--reference-sample", type=int, default=5_000,
                        help="games timed on the reference (engine) path")
    parser.add_argument("--diff", type=int, default=100_000,
                        help="engine games in the differential check (0: skip)")
    parser.add_argument("--skip-ingest", action="store_true", help="only validate")
    parser.add_argument("--independent", action="store_true",
                        help="records skatlog did not write (bench/other_iss.py): warm and"
                        " first-run rates, slow-path statuses (bench/independent.py)")
    parser.add_argument("--damaged", type=float, default=0.03,
                        help="--independent: share of damaged records")
    parser.add_argument("--profile", action="store_true",
                        help="--independent: also profile one warm validation")
    parser.add_argument("--no-cli-cold", dest="cli_cold", action="store_false",
                        help="--independent: skip the CLI run with an empty numba cache")
    parser.add_argument("--fresh-install", action="store_true",
                        help="--independent: only the first run as a user meets it: install"
                        " a copy of this checkout into new venvs (compiling at install), then"
                        " time skatlog ingest FILE first and warm (bench/independent.py)")
    parser.add_argument("--install-kinds", default="wheel,editable",
                        help="--fresh-install: wheel, editable or both (comma-separated)")
    parser.add_argument("--install-baseline", action="store_true",
                        help="--fresh-install: also install with SKATLOG_COMPILE_AT_INSTALL=0")
    parser.add_argument("--warm-runs", type=int, default=3,
                        help="--fresh-install: warm CLI runs after the first (median)")
    parser.add_argument("--idle-before", type=float, default=0.0, metavar="SECONDS",
                        help="--independent: sleep this long before each warm ingest, so that"
                        " a VM's host takes idle memory back first (a cold run; 6 is enough)")
    parser.add_argument("--ingest-runs", type=int, default=3,
                        help="--independent: warm ingests into fresh archives (median taken)")
    parser.add_argument("--child-ingest", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.child_ingest is not None or args.independent:
        import independent  # bench/independent.py, beside this file

        if args.child_ingest is not None:
            return independent.child_ingest(args.child_ingest, args.workers)
        return independent.run(args)
    args.games = args.games or 1_000_000
    path = corpus(args.games, args.workers, args.seed)
    size = path.stat().st_size
    print(f"file        {size / 2**20:,.0f} MB, {args.games:,} games; {os.cpu_count()} cores,"
          f" load average {os.getloadavg()[0]:.1f} (other processes share the cores)")
    games, took = bench_validate(path, args.workers)
    print(f"peak RSS    main {peak_rss_mb()[0]:,.0f} MB, largest worker"
          f" {peak_rss_mb()[1]:,.0f} MB")
    if not args.skip_ingest:
        bench_ingest(path, args.workers)
        print(f"peak RSS    main {peak_rss_mb()[0]:,.0f} MB, largest worker"
              f" {peak_rss_mb()[1]:,.0f} MB")
    ref = bench_reference(path, args.reference_sample)
    print(f"ratio       fast validation is {games / took / ref:,.0f}x the reference path")
    if args.diff:
        differential(args.diff, args.seed + 1, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
