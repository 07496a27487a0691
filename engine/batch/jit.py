"""Kept for imports written before the shim moved to :mod:`skatlog.engine.jit`."""

from ..jit import HAVE_NUMBA, njit, numba, refresh_stale_cache

__all__ = ["HAVE_NUMBA", "njit", "numba", "refresh_stale_cache"]
