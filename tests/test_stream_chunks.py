"""The compiled path's chunker (``stream.iter_chunks``) cuts a byte stream into chunks of
whole lines, before a record's ``(;`` where it can, with the right first line numbers."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from skatlog.ingest.fast.stream import iter_chunks

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
