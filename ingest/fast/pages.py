"""The memory-page policy of the compiled path's processes: no transparent huge pages.

numpy asks the kernel for huge pages (``madvise``) for every array of 4 MB or more, and a
chunk's scratch arrays are that large, though only part of each is written; other buffers
(Arrow's, the reader's) may get them too. A huge page is faulted in whole, 2 MB at the
first byte touched. That is cheap where a page fault is cheap, but not on a virtual machine
whose host takes back the guest's idle memory (free page reporting, as on the machines
skatlog is benchmarked on): there the first touch of a page costs some 20 us instead of 0.5,
and idle memory turns cold within seconds. A cold ingest of 200,000 records spent 1.1-1.8
CPU-s of its workers' time in the kernel (the main process 0.43-0.55 CPU-s in all); without
huge pages 0.22-0.34 s (the main process 0.22): 1.44-2.2 s of wall time became 1.19-1.27 s
(``bench/ingest.py --independent --idle-before 6``, see the README). Warm, the policy makes
no measurable difference.

Linux only (``prctl``); elsewhere these do nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Iterator

#: prctl options (linux/prctl.h): read and set the process's "no transparent huge pages"
#: flag, which its forked children inherit.
_PR_SET_THP_DISABLE = 41
_PR_GET_THP_DISABLE = 42


def _prctl(option: int, value: int = 0) -> int:
    """``prctl(option, value, 0, 0, 0)``; -1 where there is no such call (not Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0))
    except (OSError, AttributeError):
        return -1


def disable_huge_pages() -> None:
    """No transparent huge pages in this process (a worker's start-up)."""
    _prctl(_PR_SET_THP_DISABLE, 1)


@contextlib.contextmanager
def without_huge_pages() -> Iterator[None]:
    """This process uses no transparent huge pages inside the block (nor do the processes
    it forks there), and what it used before afterwards: an ingest or a validation run
    in a caller's process leaves its policy as it was."""
    before = _prctl(_PR_GET_THP_DISABLE)
    if before == 0:
        _prctl(_PR_SET_THP_DISABLE, 1)
    try:
        yield
    finally:
        if before == 0:
            _prctl(_PR_SET_THP_DISABLE, 0)
