"""numba's ``njit`` when numba is installed (the ``skatlog[fast]`` extra), else plain Python.

The heuristics and the batch kernel are written in the subset of Python numba compiles, so
they also run (slowly) as ordinary Python; ``HAVE_NUMBA`` tells callers which one they got.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

numba: Any
try:
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - numba is installed in every supported setup
    numba = None
    HAVE_NUMBA = False


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit(cache=True, ...)``, or the identity decorator without numba."""
    kwargs.setdefault("cache", True)
    if HAVE_NUMBA:
        return numba.njit(*args, **kwargs)
    if args and callable(args[0]):
        return args[0]

    def identity(func: Callable[..., Any]) -> Callable[..., Any]:
        return func

    return identity


def refresh_stale_cache() -> bool:
    """Drop numba's on-disk cache of this package when the rules or the kernels changed.

    numba re-validates a cached function against its own file only, so an edit to a callee
    (``heuristics.py``) or to the engine's rule tables (``tricks.py``, ``cards.py``, ...)
    would otherwise keep running stale machine code. A fingerprint of those sources is kept
    beside the cache; when it differs, the cache files are deleted and rebuilt on first use.
    Returns True when the cache was dropped.
    """
    import hashlib
    import os
    from pathlib import Path

    if not HAVE_NUMBA or os.environ.get("NUMBA_CACHE_DIR"):
        return False
    here = Path(__file__).resolve().parent
    sources = sorted(here.glob("*.py")) + [here.parent / name for name in (
        "tricks.py", "cards.py", "auction.py", "contract.py")]
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    fingerprint = digest.hexdigest()
    cache = here / "__pycache__"
    marker = cache / "skatlog-batch.fingerprint"
    try:
        if marker.read_text() == fingerprint:
            return False
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
        for stale in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            stale.unlink(missing_ok=True)
        marker.write_text(fingerprint)
    except OSError:  # a read-only install: numba falls back to its own cache locations
        return False
    return True
