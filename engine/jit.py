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


#: Folders (relative to the engine package) whose numba caches depend on the rules core, and
#: whose sources therefore go into the fingerprint: the core itself, the batch kernels and
#: the compiled ISS kernel.
_COMPILED_DIRS = (".", "batch", "../ingest/fast")


def refresh_stale_cache() -> bool:
    """Drop numba's on-disk caches of this package when the rules or the kernels changed.

    numba re-validates a cached function against its own file only, so an edit to a callee
    (the rules core ``core.py``, ``heuristics.py``) would otherwise keep running stale machine
    code in its callers (the batch kernel, the ISS kernel). A fingerprint of every source in
    the folders of compiled code is kept beside the engine's cache; when it differs, the
    cache files of all those folders are deleted and rebuilt on first use. Returns True when
    the caches were dropped.
    """
    import hashlib
    import os
    from pathlib import Path

    if not HAVE_NUMBA or os.environ.get("NUMBA_CACHE_DIR"):
        return False
    here = Path(__file__).resolve().parent
    folders = [(here / name).resolve() for name in _COMPILED_DIRS]
    folders = [folder for folder in folders if folder.is_dir()]
    digest = hashlib.sha256(numba.__version__.encode())
    for folder in folders:
        for path in sorted(folder.glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    fingerprint = digest.hexdigest()
    marker = here / "__pycache__" / "skatlog-compiled.fingerprint"
    try:
        if marker.read_text() == fingerprint:
            return False
    except OSError:
        pass
    try:
        for folder in folders:
            cache = folder / "__pycache__"
            cache.mkdir(exist_ok=True)
            for stale in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
                stale.unlink(missing_ok=True)
        marker.write_text(fingerprint)
    except OSError:  # a read-only install: numba falls back to its own cache locations
        return False
    return True
