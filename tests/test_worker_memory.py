"""Ingest workers keep a chunk's freed memory for the next chunk (glibc's malloc settings)."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or platform.libc_ver()[0] != "glibc",
    reason="the malloc settings are glibc's")

_PROBE = """
import sys
import numpy as np
from skatlog.ingest.fast.parts import _keep_freed_memory
if sys.argv[1] == "keep":
    _keep_freed_memory()
block = np.empty(20 << 20, np.uint8)  # the size of a chunk's scratch arrays
address = block.ctypes.data
for line in open("/proc/self/maps"):
    if line.rstrip().endswith("[heap]"):
        low, high = (int(part, 16) for part in line.split()[0].split("-"))
        print("heap" if low <= address < high else "mapped")
        break
else:
    print("mapped")
"""


def _where(mode: str) -> str:
    return subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True,
                          text=True, check=True).stdout.strip()


def test_a_chunk_sized_block_comes_from_the_heap_in_a_worker() -> None:
    # by default glibc maps such a block on its own and unmaps it when it is freed (the
    # next chunk pays the page faults again); a worker serves it from the heap it keeps
    assert _where("default") == "mapped"
    assert _where("keep") == "heap"
