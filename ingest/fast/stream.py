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
    line = 1
    rest = b""
    eof = False
    while not eof:
        block = stream.read(chunk_bytes)
        if not block:
            eof = True
        cut = block.rfind(b"\n(;") + 1
        if cut > 0:  # the common case: the chunk is copied once, (rest, block[:cut]) joined
            chunk = b"".join((rest, memoryview(block)[:cut]))
            rest = block[cut:]
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


#: Bytes :func:`count_newlines` compares at once (a slice stays in the CPU's cache).
_COUNT_SLICE = 1 << 20


def count_newlines(data: bytes | np.ndarray) -> int:
    """How many ``\\n`` bytes ``data`` holds: numpy compares a slice at a time, about four
    times faster than ``bytes.count`` (a chunk of 8 MB is counted twice, once here when it
    is cut and once by the kernel's caller to size its arrays)."""
    array = np.frombuffer(data, dtype=np.uint8) if isinstance(data, bytes) else data
    return sum(int(np.count_nonzero(array[at:at + _COUNT_SLICE] == 10))
               for at in range(0, len(array), _COUNT_SLICE))


def count_lines(chunk: bytes) -> int:
    """Lines in ``chunk``: its ``\\n`` (a final unterminated line counts)."""
    n = count_newlines(chunk)
    if chunk and not chunk.endswith(b"\n"):
        n += 1
    return n

