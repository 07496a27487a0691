"""The compiled path's chunker (``stream.iter_chunks``) cuts a byte stream into chunks of
whole lines, before a record's ``(;`` where it can, with the right first line numbers."""

from __future__ import annotations

import hashlib
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from skatlog.ingest.fast.stream import iter_chunks, iter_spans

_PIECES = st.sampled_from([b"(;", b"\n", b"\n(;", b"x", b"abc", b";)", b"(", b";", b"\r\n"])


def _plain_chunks(data: bytes, size: int) -> list[tuple[int, bytes]]:
    """The rule, written plainly: read ``size`` bytes at a time onto what is left; cut after
    the last newline that precedes ``(;``, else after the last newline, else read on."""
    out: list[tuple[int, bytes]] = []
    line, rest, at = 1, b"", 0
    while True:
        block = data[at:at + size]
        at += len(block)
        pending = rest + block
        if not pending:
            return out
        if not block:
            cut = len(pending)
        else:
            cut = pending.rfind(b"\n(;") + 1 or pending.rfind(b"\n") + 1
            if cut <= 0:
                rest = pending
                continue
        out.append((line, pending[:cut]))
        rest = pending[cut:]
        line += pending[:cut].count(b"\n") + (not pending[:cut].endswith(b"\n"))
        if not block:
            return out


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=60), st.integers(1, 12))
def test_chunks_are_the_plain_rules_chunks(pieces: list[bytes], size: int) -> None:
    data = b"".join(pieces)
    chunks = list(iter_chunks(io.BytesIO(data), size))
    assert chunks == _plain_chunks(data, size)
    assert b"".join(chunk for _, chunk in chunks) == data


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=60), st.integers(1, 12), st.booleans())
def test_spans_are_the_chunks_where_they_lie(pieces: list[bytes], size: int,
                                             readinto: bool) -> None:
    """``iter_spans`` gives the chunks' lines, offsets and lengths without copying them
    (its pieces are valid until the next chunk), and hashes every byte once, in order;
    also from a stream that has no ``readinto``."""
    data = b"".join(pieces)
    stream = io.BytesIO(data) if readinto else _ReadOnly(data)
    hasher = hashlib.sha256()
    spans = [(line, offset, length, b"".join(parts))
             for line, offset, length, parts in iter_spans(stream, size, hasher)]
    expected = _plain_chunks(data, size)
    assert [(line, chunk) for line, _, _, chunk in spans] == expected
    assert [data[offset:offset + length] for _, offset, length, _ in spans] == \
        [chunk for _, chunk in expected]
    assert hasher.digest() == hashlib.sha256(data).digest()


class _ReadOnly:
    """A byte stream with ``read`` only."""

    def __init__(self, data: bytes) -> None:
        self._stream = io.BytesIO(data)

    def read(self, size: int) -> bytes:
        return self._stream.read(size)
