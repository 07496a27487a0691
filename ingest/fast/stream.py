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
from typing import Any, BinaryIO

import numpy as np

#: Default chunk size: big enough that per-chunk overhead vanishes, small enough for 2 GB.
CHUNK_BYTES = 8 << 20


#: Names the compiled path decompresses, by their ending.
COMPRESSED_ENDINGS = (".gz", ".bz2", ".zst")


def is_compressed_name(path: str | os.PathLike[str]) -> bool:
    """Whether :func:`open_binary` decompresses ``path`` (by its name)."""
    return Path(path).name.lower().endswith(COMPRESSED_ENDINGS)


class _Checked(io.RawIOBase):
    """``inner``'s bytes; a read that fails (damaged or cut-off compressed data, an I/O
    error) raises :class:`~skatlog.ingest.sources.SourceError` naming the file, as the
    reference reader does, instead of a decompressor's own exception."""

    def __init__(self, inner: BinaryIO, path: Path) -> None:
        self._inner = inner
        self.name = str(path)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        from ..sources import reading

        with reading(self.name):
            return self._inner.readinto(buffer)  # type: ignore[attr-defined, no-any-return]

    def close(self) -> None:
        if not self.closed:
            self._inner.close()
        super().close()


def _open_decompressed(path: Path) -> BinaryIO:
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if name.endswith(".bz2"):
        return bz2.open(path, "rb")  # type: ignore[return-value]
    if name.endswith(".zst"):
        from ..zstd_frames import open_zstd

        return open_zstd(path.open("rb"))
    return path.open("rb")


def open_binary(path: str | os.PathLike[str]) -> BinaryIO:
    """Open ``path`` for streaming bytes, decompressing ``.gz``, ``.bz2`` or ``.zst``; a
    read error is a ``SourceError`` that names the file."""
    from ..sources import SourceError

    path = Path(path)
    try:
        inner = _open_decompressed(path)
    except OSError as err:
        raise SourceError(f"{path}: cannot open: {err.strerror or err}") from err
    return io.BufferedReader(_Checked(inner, path), buffer_size=1 << 20)  # type: ignore[return-value]


def iter_chunks(stream: BinaryIO, chunk_bytes: int = CHUNK_BYTES) -> Iterator[tuple[int, bytes]]:
    """``(first line number, bytes)`` of consecutive chunks of whole lines (1-based lines).

    Line numbers count ``\\n`` only, as the reference reader does
    (:func:`skatlog.ingest.sources.open_text`).
    """
    for line, _, _, pieces in iter_spans(stream, chunk_bytes):
        yield line, b"".join(pieces)


#: One chunk of :func:`iter_spans`: its first line, offset and length in the stream, and
#: its bytes as pieces (joined, the chunk) that stay valid until the next chunk is read.
Span = tuple[int, int, int, tuple[bytes | memoryview, ...]]


def iter_spans(stream: BinaryIO, chunk_bytes: int = CHUNK_BYTES,
               hasher: Any | None = None) -> Iterator[Span]:
    """The chunks of :func:`iter_chunks` without a copy of each: where they lie in the
    stream, and their bytes as pieces in a buffer that the next read reuses.

    A chunk is cut at the last ``\\n(;`` of a block (the block's bytes after the rest of
    the one before), else, in the rarer case that a block has none, at the last such cut of
    the rest and the block together, else at their last newline; at the end of the stream
    whatever is left is the last chunk. ``hasher`` (a hashlib object) is fed every byte, in
    order, once the caller has moved on from the chunk. For a plain file whose workers read
    the chunks themselves this process then only reads, counts and hashes (no 8 MB copy
    a chunk, nor fresh memory to fault in).
    """
    buffer = bytearray(chunk_bytes)
    view = memoryview(buffer)
    readinto = getattr(stream, "readinto", None)
    line, offset = 1, 0
    rest = b""
    eof = False
    while not eof:
        if readinto is not None:
            got = readinto(buffer)
        else:  # a stream without readinto: read, then copy into the buffer
            data = stream.read(chunk_bytes)
            got = len(data)
            buffer[:got] = data
        eof = not got
        block = view[:got]
        cut = buffer.rfind(b"\n(;", 0, got) + 1
        pieces: tuple[bytes | memoryview, ...]
        if cut > 0:  # the common case: the rest of the block before, and the block's head
            pieces = (rest, block[:cut])
            after = bytes(block[cut:])
        else:
            pending = rest + block
            if not pending:
                break
            if eof:
                cut = len(pending)
            else:
                cut = pending.rfind(b"\n(;") + 1
                if cut <= 0:
                    cut = pending.rfind(b"\n") + 1
                if cut <= 0:  # one line longer than a block: keep reading
                    rest = pending
                    continue
            pieces = (pending[:cut],)
            after = pending[cut:]
        length = sum(len(piece) for piece in pieces)
        yield line, offset, length, pieces
        lines = sum(count_newlines(piece) for piece in pieces)
        if pieces[-1][-1:] != b"\n":  # a last line without its newline counts
            lines += 1
        if hasher is not None:
            for piece in pieces:
                hasher.update(piece)
        line += lines
        offset += length
        rest = after


#: Bytes :func:`count_newlines` compares at once (a slice stays in the CPU's cache).
_COUNT_SLICE = 1 << 20


def count_newlines(data: bytes | memoryview | np.ndarray) -> int:
    """How many ``\\n`` bytes ``data`` holds: numpy compares a slice at a time, about four
    times faster than ``bytes.count`` (a chunk of 8 MB is counted twice, once here when it
    is cut and once by the kernel's caller to size its arrays)."""
    array = data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)
    return sum(int(np.count_nonzero(array[at:at + _COUNT_SLICE] == 10))
               for at in range(0, len(array), _COUNT_SLICE))
