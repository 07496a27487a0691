"""Reading ``.zst`` input strictly: every frame, and an error when the data stops mid-frame.

``zstandard``'s ``stream_reader`` returns end of file where a cut-off file ends, so a
truncated upload would be ingested as a shorter log without a word, and by default it also
stops after the first frame (``cat a.zst b.zst``). gzip and bz2 raise ``EOFError`` for a
cut-off file; :func:`open_zstd` gives ``.zst`` the same behaviour, and reads on across
frames the way the ``zstd`` tool does.
"""

from __future__ import annotations

import io
from typing import BinaryIO

import zstandard

#: Compressed bytes read from the file per step.
READ_BYTES = 1 << 20
#: Compressed bytes decompressed per step: a zstd block of up to 128 KiB can take 4 bytes,
#: so this bounds what one step may unpack (64 MiB) for a hostile file.
STEP_BYTES = 2048


class _ZstdFrames(io.RawIOBase):
    """The decompressed bytes of every zstd frame in ``raw``, in order."""

    def __init__(self, raw: BinaryIO, closefd: bool = True) -> None:
        self._raw = raw
        self._closefd = closefd
        self._decompressor = zstandard.ZstdDecompressor()
        self._frame = self._decompressor.decompressobj()
        self._in_frame = False  # compressed bytes of an unfinished frame were fed
        self._input = memoryview(b"")
        self._out = memoryview(b"")
        self._eof = False

    def readable(self) -> bool:
        return True

    def _feed(self, data: bytes) -> bytes:
        """Decompress ``data``, starting new frames where one ends."""
        parts = []
        while data:
            parts.append(self._frame.decompress(data))
            self._in_frame = not self._frame.eof
            if not self._frame.eof:
                break
            data = self._frame.unused_data
            self._frame = self._decompressor.decompressobj()
        return b"".join(parts)

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not len(self._out) and not self._eof:
            if not len(self._input):
                self._input = memoryview(self._raw.read(READ_BYTES))
                if not len(self._input):
                    self._eof = True
                    if self._in_frame:
                        raise EOFError("compressed file ended before the end-of-stream "
                                       "marker was reached")
                    break
            step, self._input = self._input[:STEP_BYTES], self._input[STEP_BYTES:]
            self._out = memoryview(self._feed(bytes(step)))
        count = min(len(buffer), len(self._out))
        buffer[:count] = self._out[:count]
        self._out = self._out[count:]
        return count

    def close(self) -> None:
        if not self.closed and self._closefd:
            self._raw.close()
        super().close()


def open_zstd(raw: BinaryIO, closefd: bool = True) -> BinaryIO:
    """A buffered binary reader of the zstd data in ``raw`` (see the module doc). Corrupt
    data raises ``zstandard.ZstdError``; data cut off inside a frame raises ``EOFError``."""
    return io.BufferedReader(_ZstdFrames(raw, closefd), buffer_size=READ_BYTES)
