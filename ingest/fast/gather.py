"""String columns gathered from byte buffers, compiled: names, ids, move lists of a chunk.

The kernel records where each accepted game's strings lie (byte offsets into the chunk or
into its own key buffers); these loops copy them into the offsets-and-bytes layout of an
Arrow string array, several columns at once, game by game, so that each record of a chunk
far larger than the CPU's caches is fetched from memory once, not once per column (its
names, ids and result text sit within a few cache lines).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Strings longer than this (a move list) are copied as a slice, which numba makes a block
#: copy (half the time of a byte loop); shorter ones (a name) byte by byte, which is cheaper
#: than a copy's set-up.
SHORT = 24


@njit(cache=True, nogil=True)
def gather_string_columns(buf, starts, ends):
    """Concatenate ``buf[starts[i, c]:ends[i, c]]`` for every game ``i`` and column ``c``.

    Returns ``(offsets, data, bases)``: column ``c``'s bytes are
    ``data[bases[c]:bases[c + 1]]`` and its Arrow offsets (from 0) ``offsets[c]``. A
    negative start gives an empty string (the caller masks it as null).
    """
    n, k = starts.shape
    offsets = np.zeros((k, n + 1), dtype=np.int32)
    bases = np.zeros(k + 1, dtype=np.int64)
    for c in range(k):
        total = 0
        for i in range(n):
            if starts[i, c] >= 0:
                total += ends[i, c] - starts[i, c]
            offsets[c, i + 1] = total
        bases[c + 1] = bases[c] + total
    data = np.empty(bases[k], dtype=np.uint8)
    for i in range(n):
        for c in range(k):
            s = starts[i, c]
            if s < 0:
                continue
            e = ends[i, c]
            pos = bases[c] + offsets[c, i]
            if e - s > SHORT:
                data[pos:pos + e - s] = buf[s:e]
            else:
                for b in range(s, e):
                    data[pos] = buf[b]
                    pos += 1
    return offsets, data, bases
