"""BLAKE2b-64 over many byte ranges in one compiled loop: the game ids of a chunk's games.

A game's content id (:func:`skatlog.ingest.ids.game_id_of`) is the 8-byte BLAKE2b digest
(RFC 7693: no key, digest size 8) of its key bytes, read as a big-endian signed integer.
``hashlib`` computes it one call per game, about 1.5 us of Python each, which was the
largest part of building a chunk's archive tables; :func:`blake2b64` computes the same
digests for every game of a chunk at once. It is the RFC's algorithm and nothing else (no
key, salt or tree mode); ``tests/test_fast_ids.py`` holds it to ``hashlib`` byte for byte.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

if sys.byteorder != "little":  # the words are read straight from the bytes
    raise ImportError("skatlog.ingest.fast.blake reads message words as little-endian")

#: The initialisation vector (RFC 7693, section 2.6: SHA-512's).
IV = np.array([
    0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1,
    0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179,
], dtype=np.uint64)

#: The message word schedule of the twelve rounds (section 2.7; rounds 10 and 11 repeat 0, 1).
SIGMA = np.array([
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
], dtype=np.int64)

#: The parameter block's first word for an unkeyed 8-byte digest: fanout 1, depth 1.
PARAM0 = np.uint64(0x01010000 | 8)
BLOCK = 128


@njit(cache=True, inline="always")
def _rotr(x: np.uint64, n: int) -> np.uint64:
    return (x >> np.uint64(n)) | (x << np.uint64(64 - n))


@njit(cache=True, inline="always")
def _mix(a: np.uint64, b: np.uint64, c: np.uint64, d: np.uint64, x: np.uint64, y: np.uint64
         ) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """The G function (section 3.1), on values (kept in registers, not an array)."""
    a = a + b + x
    d = _rotr(d ^ a, 32)
    c = c + d
    b = _rotr(b ^ c, 24)
    a = a + b + y
    d = _rotr(d ^ a, 16)
    c = c + d
    b = _rotr(b ^ c, 63)
    return a, b, c, d


@njit(cache=True)
def _compress(h: np.ndarray, m: np.ndarray, count: int, last: bool) -> None:
    """The compression function F (section 3.2) on one block ``m`` (16 words); ``count``
    bytes of the message so far (below 2**64, so the counter's high word stays 0).

    The twelve rounds are written out with :data:`SIGMA`'s indices as constants, so the
    message words stay in locals: a loop over ``SIGMA`` read two indices from memory per
    mix and ran 1.8x slower."""
    v0, v1, v2, v3, v4, v5, v6, v7 = h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
    v8, v9, v10, v11 = IV[0], IV[1], IV[2], IV[3]
    v12 = IV[4] ^ np.uint64(count)
    v13 = IV[5]
    v14 = ~IV[6] if last else IV[6]
    v15 = IV[7]
    m0, m1, m2, m3, m4, m5, m6, m7 = m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]
    m8, m9, m10, m11, m12, m13, m14, m15 = m[8], m[9], m[10], m[11], m[12], m[13], m[14], m[15]
    # round 0: SIGMA[0]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m0, m1)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m2, m3)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m4, m5)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m6, m7)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m8, m9)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m10, m11)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m12, m13)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m14, m15)
    # round 1: SIGMA[1]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m14, m10)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m4, m8)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m9, m15)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m13, m6)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m1, m12)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m0, m2)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m11, m7)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m5, m3)
    # round 2: SIGMA[2]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m11, m8)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m12, m0)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m5, m2)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m15, m13)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m10, m14)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m3, m6)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m7, m1)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m9, m4)
    # round 3: SIGMA[3]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m7, m9)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m3, m1)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m13, m12)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m11, m14)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m2, m6)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m5, m10)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m4, m0)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m15, m8)
    # round 4: SIGMA[4]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m9, m0)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m5, m7)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m2, m4)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m10, m15)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m14, m1)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m11, m12)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m6, m8)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m3, m13)
    # round 5: SIGMA[5]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m2, m12)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m6, m10)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m0, m11)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m8, m3)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m4, m13)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m7, m5)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m15, m14)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m1, m9)
    # round 6: SIGMA[6]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m12, m5)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m1, m15)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m14, m13)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m4, m10)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m0, m7)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m6, m3)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m9, m2)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m8, m11)
    # round 7: SIGMA[7]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m13, m11)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m7, m14)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m12, m1)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m3, m9)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m5, m0)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m15, m4)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m8, m6)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m2, m10)
    # round 8: SIGMA[8]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m6, m15)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m14, m9)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m11, m3)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m0, m8)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m12, m2)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m13, m7)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m1, m4)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m10, m5)
    # round 9: SIGMA[9]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m10, m2)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m8, m4)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m7, m6)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m1, m5)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m15, m11)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m9, m14)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m3, m12)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m13, m0)
    # round 10: SIGMA[10]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m0, m1)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m2, m3)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m4, m5)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m6, m7)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m8, m9)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m10, m11)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m12, m13)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m14, m15)
    # round 11: SIGMA[11]
    v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m14, m10)
    v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m4, m8)
    v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m9, m15)
    v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m13, m6)
    v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m1, m12)
    v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m0, m2)
    v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m11, m7)
    v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m5, m3)
    h[0] ^= v0 ^ v8
    h[1] ^= v1 ^ v9
    h[2] ^= v2 ^ v10
    h[3] ^= v3 ^ v11
    h[4] ^= v4 ^ v12
    h[5] ^= v5 ^ v13
    h[6] ^= v6 ^ v14
    h[7] ^= v7 ^ v15


@njit(cache=True, nogil=True)
def blake2b64(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """For each ``i`` the 8-byte BLAKE2b digest of ``buf[starts[i]:ends[i]]`` (uint8) as a
    big-endian signed 64-bit integer, as ``int.from_bytes(hashlib.blake2b(data,
    digest_size=8).digest(), "big", signed=True)`` gives it."""
    n = starts.shape[0]
    out = np.empty(n, dtype=np.int64)
    h = np.empty(8, dtype=np.uint64)
    block = np.empty(BLOCK, dtype=np.uint8)
    m = block.view(np.uint64)  # the block's 16 words (little-endian, as x86 and ARM are)
    for i in range(n):
        for k in range(8):
            h[k] = IV[k]
        h[0] ^= PARAM0
        pos = starts[i]
        end = ends[i]
        count = 0
        while True:  # every block, the last one (possibly empty) zero-padded and flagged
            take = end - pos
            last = take <= BLOCK
            if not last:
                take = BLOCK
            block[:take] = buf[pos:pos + take]
            block[take:] = 0
            count += take
            _compress(h, m, count, last)
            pos += take
            if last:
                break
        # the digest is h[0]'s bytes in little-endian order; read them big-endian
        x = h[0]
        y = np.uint64(0)
        for k in range(8):
            y = (y << np.uint64(8)) | ((x >> np.uint64(8 * k)) & np.uint64(0xFF))
        out[i] = np.int64(y)
    return out
