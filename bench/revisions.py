"""Benchmark: end-to-end simulation of this checkout against an earlier git revision, run
alternately, so that a change's effect is measured on the same machine state.

This machine's speed drifts by +-15 % over minutes, more than many changes are worth. So
rounds alternate: old, new, old, new, ... Each round is a fresh process that simulates
``--hands`` hands into a new archive (after a small warm-up, so numba's compilation is not
timed) and reports hands/s, CPU per hand and archive bytes per hand. The old revision is
checked out into a temporary git worktree and imported from there.

    .venv/bin/python bench/revisions.py --old 841e803            # random bots, 2M hands, 3 rounds
    .venv/bin/python bench/revisions.py --old HEAD~3 --bots rules --hands 500000
    .venv/bin/python bench/revisions.py --old 9691a1a --ingest FILE.sgf   # ingest, games/s

``--ingest FILE`` times ``ingest_paths`` (the compiled ISS path, ``fast=True``) of ``FILE``
into a fresh archive instead (after a small warm-up ingest), in games seen per second, with
the CPU of this process and, beside it, of this process and its worker processes together
(a figure that other load on the machine disturbs less than the wall time).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

#: Runs in the measured process (imports whichever ``skatlog`` PYTHONPATH gives).
ROUND = """
import json, pathlib, sys, time
try:
    from skatlog.simulation import SimulationOptions, simulate_to_archive
except ImportError:  # revisions before skatlog.simulation existed
    from skatlog.engine.simulate import SimulationOptions, simulate_to_archive
hands, bots, folder = int(sys.argv[1]), tuple(sys.argv[2].split(",")), pathlib.Path(sys.argv[3])
simulate_to_archive(folder / "warmup", SimulationOptions(hands=2000, seed=1, bots=bots))
start, cpu = time.perf_counter(), time.process_time()
simulate_to_archive(folder / "run", SimulationOptions(hands=hands, seed=1, bots=bots))
wall, used = time.perf_counter() - start, time.process_time() - cpu
size = sum(f.stat().st_size for f in (folder / "run").rglob("*.parquet"))
print(json.dumps({"rate": hands / wall, "cpu_us": used / hands * 1e6, "bytes": size / hands}))
"""


#: The ``--ingest`` round: the compiled ISS ingest of a file into a fresh archive.
INGEST_ROUND = """
import json, pathlib, resource, sys, time
from skatlog.ingest.pipeline import ingest_paths
def children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
path, folder = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
warm = folder / "warm.sgf"
warm.write_bytes(b"".join(path.open("rb").readlines()[:2000]))
ingest_paths([warm], folder / "warmup", progress=False, fast=True)
start, cpu, workers = time.perf_counter(), time.process_time(), children()
summary = ingest_paths([path], folder / "run", progress=False, fast=True)
wall, used = time.perf_counter() - start, time.process_time() - cpu
used_all = used + children() - workers
seen = summary.seen + summary.rejected
size = sum(f.stat().st_size for f in (folder / "run").rglob("*.parquet"))
print(json.dumps({"rate": seen / wall, "cpu_us": used / seen * 1e6,
                  "cpu_all_us": used_all / seen * 1e6, "bytes": size / seen}))
"""


def one_round(src: Path, hands: int, bots: str, ingest: Path | None = None
              ) -> dict[str, float]:
    """Run :data:`ROUND` (or :data:`INGEST_ROUND` of ``ingest``) with ``skatlog`` imported
    from ``src``."""
    with tempfile.TemporaryDirectory(prefix="skatlog-rev-") as folder:
        env = {**os.environ, "PYTHONPATH": str(src)}
        argv = ([INGEST_ROUND, str(ingest), folder] if ingest is not None
                else [ROUND, str(hands), bots, folder])
        out = subprocess.run([sys.executable, "-c", *argv], env=env, check=True,
                             capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="git revision to compare with")
    parser.add_argument("--hands", type=int, default=2_000_000)
    parser.add_argument("--bots", default="random,random,random")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ingest", type=Path, default=None, metavar="FILE",
                        help="time the compiled ingest of this ISS file instead")
    args = parser.parse_args()
    unit = "games" if args.ingest is not None else "hands"
    bots = args.bots if "," in args.bots else ",".join([args.bots] * 3)
    tree = Path(tempfile.mkdtemp(prefix="skatlog-old-")) / "tree"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(tree),
                    args.old], check=True)
    results: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    try:
        for k in range(args.rounds):
            for label, src in (("old", tree / "src"), ("new", REPO / "src")):
                r = one_round(src, args.hands, bots, args.ingest)
                results[label].append(r)
                print(f"round {k + 1} {label}: {r['rate']:>10,.0f} {unit}/s  "
                      f"cpu {r['cpu_us']:5.2f} us/{unit[:-1]}{_all(r)}  "
                      f"{r['bytes']:6.1f} bytes/{unit[:-1]}", flush=True)
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
                       check=False)
        shutil.rmtree(tree.parent, ignore_errors=True)
    med = {label: {key: statistics.median(r[key] for r in rows) for key in rows[0]}
           for label, rows in results.items()}
    for label, name in (("old", args.old), ("new", "(this checkout)")):
        m = med[label]
        print(f"median {label} {name}: {m['rate']:,.0f} {unit}/s, {m['cpu_us']:.2f} us"
              f"{_all(m)}, {m['bytes']:.1f} bytes")
    ratio_all = (f", {med['new']['cpu_all_us'] / med['old']['cpu_all_us']:.2f}x CPU with the"
                 " workers" if "cpu_all_us" in med["new"] else "")
    print(f"new / old: {med['new']['rate'] / med['old']['rate']:.2f}x {unit}/s, "
          f"{med['new']['cpu_us'] / med['old']['cpu_us']:.2f}x CPU{ratio_all}, "
          f"{med['new']['bytes'] / med['old']['bytes']:.2f}x bytes")


def _all(result: dict[str, float]) -> str:
    """The ingest round's CPU with its worker processes, when it has them."""
    return f" ({result['cpu_all_us']:5.2f} with workers)" if "cpu_all_us" in result else ""


if __name__ == "__main__":
    main()
