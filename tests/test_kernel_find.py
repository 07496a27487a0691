"""The ISS kernel's byte search (``_find``: eight bytes at a time where it can) finds what a
plain byte-by-byte loop finds, wherever the bytes sit in the words."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from skatlog.ingest.fast import iss_kernel as K
from skatlog.ingest.fast.gather import gather_string_columns

# bytes around the ones searched for (']' 93, '\\' 92, '\n' 10), their high-bit twins, 0
_ALPHABET = st.sampled_from([0, 10, 92, 93, 94, 91, 138, 220, 221, 255, 97, 32])


def _plain(data: bytes, i: int, end: int, a: int, b: int) -> int:
    for k in range(i, end):
        if data[k] in (a, b):
            return k
    return end


@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=70), st.data())
def test_find_equals_a_byte_loop(values: list[int], data: st.DataObject) -> None:
    raw = bytes(values)
    buf = np.frombuffer(raw, dtype=np.uint8).copy()
    lanes = buf[:len(buf) - len(buf) % 8].view(np.uint64)
    end = data.draw(st.integers(0, len(raw)))
    i = data.draw(st.integers(0, end + 2))
    a, b = data.draw(st.sampled_from([(93, 92), (10, 10), (92, 92), (220, 93)]))
    assert K._find(buf, lanes, i, end, a, b) == _plain(raw, i, end, a, b)


@settings(max_examples=200, deadline=None)
@given(st.lists(_ALPHABET, max_size=300), st.integers(1, 64))
def test_counted_lines_are_the_newlines(values: list[int], slice_bytes: int) -> None:
    """``count_newlines`` (numpy, a slice at a time) counts what ``bytes.count`` counts,
    with slices that end anywhere, over bytes, a memoryview or an array."""
    from skatlog.ingest.fast import stream

    raw = bytes(values)
    saved = stream._COUNT_SLICE
    stream._COUNT_SLICE = slice_bytes
    try:
        assert stream.count_newlines(raw) == raw.count(b"\n")
        assert stream.count_newlines(np.frombuffer(raw, np.uint8)) == raw.count(b"\n")
        assert stream.count_newlines(memoryview(raw)[1:]) == raw[1:].count(b"\n")
    finally:
        stream._COUNT_SLICE = saved


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.integers(1, 4), st.data())
def test_gathered_string_columns_are_the_slices(data: bytes, columns: int,
                                                draw: st.DataObject) -> None:
    """``gather_string_columns`` (a block copy for long strings, a byte loop for short ones,
    game by game across the columns) gives each column's slices one after another, with
    their Arrow offsets; a negative start is an empty string."""
    n = draw.draw(st.integers(0, 12))
    span = st.tuples(st.integers(-1, max(len(data) - 1, -1)), st.integers(0, 60))
    spans = draw.draw(st.lists(st.lists(span, min_size=columns, max_size=columns),
                               min_size=n, max_size=n))
    starts = np.array([[s for s, _ in row] for row in spans], dtype=np.int64).reshape(n, columns)
    ends = np.array([[min(s + w, len(data)) for s, w in row] for row in spans],
                    dtype=np.int64).reshape(n, columns)
    offsets, out, bases = gather_string_columns(np.frombuffer(data, np.uint8), starts, ends)
    for c in range(columns):
        pieces = [data[s:e] if s >= 0 else b""
                  for s, e in zip(starts[:, c], ends[:, c], strict=True)]
        assert out[bases[c]:bases[c + 1]].tobytes() == b"".join(pieces)
        assert offsets[c].tolist() == [0, *np.cumsum([len(p) for p in pieces]).tolist()]
