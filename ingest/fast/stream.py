"""Raw byte chunks of an ISS file: plain, .gz, .bz2 or .zst, streamed, cut between records.

A chunk is a run of complete lines, cut just before a line that starts a record (``(;``), so
a record spread over several lines never straddles two chunks. Memory stays at about two
chunks per reader, whatever the size of the file.
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

#: Default chunk size: big enough that per-chunk overhead vanishes, small enough for 2 GB.
CHUNK_BYTES = 8 << 20


def open_binary(path: str | os.PathLike[str]) -> BinaryIO:
    """Open ``path`` for streaming bytes, decompressing ``.gz``, ``.bz2`` or ``.zst``."""
    path = Path(path)
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if name.endswith(".bz2"):
        return bz2.open(path, "rb")  # type: ignore[return-value]
    if name.endswith(".zst"):
        import zstandard

        raw = path.open("rb")
        return zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)  # type: ignore[return-value]
    return path.open("rb")


def iter_chunks(stream: BinaryIO, chunk_bytes: int = CHUNK_BYTES) -> Iterator[tuple[int, bytes]]:
    """``(first line number, bytes)`` of consecutive chunks of whole lines (1-based lines).

    Line numbers count lines the way Python's text files do (``\\n``, ``\\r\\n`` and a lone
    ``\\r`` each end a line), so they agree with the reference reader's.
    """
    line = 1
    rest = b""
    eof = False
    while not eof:
        block = stream.read(chunk_bytes)
        if not block:
            eof = True
            data = rest
        else:
            data = rest + block
        if not data:
            break
        if eof:
            cut = len(data)
        else:
            cut = data.rfind(b"\n(;") + 1
            if cut <= 0:
                cut = data.rfind(b"\n") + 1
            if cut <= 0:  # one line longer than a block: keep reading
                rest = data
                continue
        chunk, rest = data[:cut], data[cut:]
        yield line, chunk
        line += count_lines(chunk)


def count_lines(chunk: bytes) -> int:
    """Lines in ``chunk`` as a text file counts them (a final unterminated line counts)."""
    n = chunk.count(b"\n")
    if b"\r" in chunk:
        n += chunk.count(b"\r") - chunk.count(b"\r\n")  # lone CRs end lines too
    if chunk and not chunk.endswith((b"\n", b"\r")):
        n += 1
    return n


def has_lone_cr(chunk: bytes) -> bool:
    """True when a ``\\r`` not followed by ``\\n`` splits lines the kernel would not split."""
    return b"\r" in chunk and chunk.count(b"\r") != chunk.count(b"\r\n")


def decode_lines(chunk: bytes) -> list[str]:
    """The chunk's lines as the reference reader sees them (UTF-8, bad bytes replaced)."""
    return list(io.TextIOWrapper(io.BytesIO(chunk), encoding="utf-8", errors="replace"))
