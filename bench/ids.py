"""Benchmark: loading an archive's stored game ids, as every ingest, simulation and re-run
does when it opens the archive (``ArchiveWriter.open`` -> ``_load_ids``).

Writes a ``games`` table of ``--ids`` ids only (500,000 per partition, as a simulated run's
partitions hold them) into a scratch archive, then loads the id set in a fresh process and
prints its time and peak memory. ``--random`` gives random ids (logged games: content
hashes) instead of one simulated run's consecutive ids.

    .venv/bin/python bench/ids.py --ids 100000000
    .venv/bin/python bench/ids.py --ids 30000000 --random
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from skatlog.ingest.archive import MANIFEST, Manifest, _load_ids, read_manifest

PER_FILE = 500_000


def write_archive(root: Path, count: int, random_ids: bool) -> None:
    """A committed archive whose ``games`` partitions hold only ``game_id``."""
    (root / "games").mkdir(parents=True)
    rng = np.random.default_rng(1)
    parts = []
    for start in range(0, count, PER_FILE):
        size = min(PER_FILE, count - start)
        ids = (rng.integers(-2**63, 2**63 - 1, size, dtype=np.int64) if random_ids else
               np.arange(start, start + size, dtype=np.int64) - 7 * 10**18)
        path = root / "games" / f"part-{start:012d}.parquet"
        pq.write_table(pa.table({"game_id": ids}), path, compression="zstd",
                       use_dictionary=False, column_encoding={"game_id": "DELTA_BINARY_PACKED"})
        parts.append({"path": f"games/{path.name}", "rows": size})
    manifest = Manifest()
    manifest.tables["games"] = parts
    (root / MANIFEST).write_text(manifest.to_json())


def load(root: Path) -> None:
    """Load the id set (in a fresh process) and print time and peak RSS."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    ids = _load_ids(root, read_manifest(root), "games", "game_id")
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"  {len(ids):,} ids loaded in {seconds:.2f} s; peak RSS {peak / 1e6:.2f} GB "
          f"({before / 1e6:.2f} GB before)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", type=int, default=100_000_000)
    parser.add_argument("--random", action="store_true", help="random ids (logged games)")
    parser.add_argument("--load", type=Path, help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.load is not None:
        load(args.load)
        return
    root = Path(tempfile.mkdtemp(prefix="skatlog-ids-"))
    try:
        kind = "random" if args.random else "consecutive"
        print(f"{args.ids:,} {kind} ids in {-(-args.ids // PER_FILE)} partitions")
        write_archive(root, args.ids, args.random)
        subprocess.run([sys.executable, __file__, "--load", str(root)], check=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
