"""``skatlog warm-up`` fills numba's cache: afterwards a fresh process loads the kernels."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from skatlog.cli import app


def test_warm_up_reports_every_group_and_leaves_the_kernels_loadable() -> None:
    result = CliRunner().invoke(app, ["warm-up", "--workers", "2"])
    assert result.exit_code == 0, result.output
    for group in ("ISS kernel", "batch simulator", "rules core", "perfect-information solver"):
        assert f"compiled {group}" in result.output
    assert "warm-up done" in result.output
    # a fresh process finds the ISS kernel in numba's cache: a hit, no compiling
    assert _cache_hits("from skatlog.ingest.warmup import _ISS_LINE; "
                       "from skatlog.ingest.fast import iss_kernel as K; "
                       "from skatlog.ingest.fast.columns import scan; scan(_ISS_LINE)",
                       "K.scan_chunk") == (1, 0)
    # ... and the solver's search (analyze, solve and the pimc bot use it)
    assert _cache_hits("from skatlog.engine import core, solver_kernel as k; "
                       "from skatlog.engine.solver import Position, Solver; "
                       "Solver().value(Position((7, 7 << 8, 7 << 16), core.GRAND, 0, 0, (),"
                       " 0, 0, 7), tricks=True)", "k.search") == (1, 0)


def _cache_hits(run: str, function: str) -> tuple[int, int]:
    """Numba's cache hits and misses of ``function`` after ``run`` in a fresh process."""
    probe = (f"{run}; s = {function}.stats; "
             "print(sum(s.cache_hits.values()), sum(s.cache_misses.values()))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True).stdout.split()
    return int(out[0]), int(out[1])
