"""Turn an uploaded file into plain log text on disk, refusing anything that is not one.

The compression is recognised by its magic bytes (never by the client's file name); the
output is decompressed in bounded chunks, so a gzip/bzip2/zstd bomb is stopped when the
*decompressed* size crosses the limit, not after it filled the disk. The same pass refuses
binary data (NUL bytes, mostly control characters) and over-long lines, which no Skat log has.
"""

from __future__ import annotations

import bz2
import gzip
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import zstandard

from skatlog.ingest import sniff
from skatlog.ingest.zstd_frames import open_zstd

from .errors import UploadRejected, storage_error

_CHUNK = 1 << 20
# The container and binary checks are the CLI's too (skatlog.ingest.sniff): same reasons.


@dataclass(frozen=True)
class Unpacked:
    """What :func:`unpack` wrote: compression found, plain size and number of lines."""

    compression: str
    size: int
    lines: int


def detect_compression(head: bytes) -> str:
    """``gzip``/``bzip2``/``zstd``/``plain`` from the first bytes; refuses other containers."""
    try:
        return sniff.detect_compression(head)
    except sniff.NotALog as err:
        raise UploadRejected(415, "unsupported_format",
                             f"{err.reason}; upload {sniff.LOG_KINDS}") from None


def unpack(
    source: Path,
    target: BinaryIO,
    *,
    max_bytes: int,
    max_line: int,
    on_progress: Callable[[int], None] | None = None,
) -> Unpacked:
    """Write the plain text of ``source`` to ``target`` with every limit enforced.

    Raises :class:`UploadRejected`: ``decompressed_too_large`` (413), ``line_too_long`` (413),
    ``binary`` (415), ``corrupt_compressed`` (400), ``empty`` (400), or ``archive_error``
    (503) when ``target`` cannot be written (a full disk).
    """
    with open(source, "rb") as raw:
        compression = detect_compression(raw.read(8))
        raw.seek(0)
        stream = _opener(compression, raw)
        check = _TextCheck(max_line)
        total = 0
        while True:
            try:
                chunk = stream.read(_CHUNK)
            except (OSError, EOFError, zstandard.ZstdError) as exc:
                raise UploadRejected(400, "corrupt_compressed",
                                     f"the {compression} data is corrupt or truncated: "
                                     f"{exc}") from exc
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:
                what = "decompressed " if compression != "plain" else ""
                raise UploadRejected(
                    413, "decompressed_too_large",
                    f"the {what}log is larger than the limit of {max_bytes // (1 << 20)} MiB"
                    + (" (a compression bomb?)" if compression != "plain" else ""))
            check.feed(chunk, total)
            try:
                target.write(chunk)
            except OSError as exc:  # the server's disk, not the client's data
                raise storage_error(exc) from exc
            if on_progress is not None:
                on_progress(total)
    if total == 0:
        raise UploadRejected(400, "empty", "the uploaded file is empty")
    try:
        target.flush()
    except OSError as exc:
        raise storage_error(exc) from exc
    return Unpacked(compression, total, check.lines + (check.current > 0))


def _opener(compression: str, raw: BinaryIO) -> BinaryIO:
    if compression == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if compression == "bzip2":
        return bz2.BZ2File(raw, mode="rb")  # type: ignore[return-value]
    if compression == "zstd":
        return open_zstd(raw, closefd=False)
    return raw


class _TextCheck:
    """Line-length and binary-content checks over a stream of chunks."""

    def __init__(self, max_line: int) -> None:
        self.max_line = max_line
        self.lines = 0
        self.current = 0  # length of the unfinished last line
        self.checked_head = False

    def feed(self, chunk: bytes, total: int) -> None:
        try:
            sniff.check_text(chunk, head=not self.checked_head)
        except sniff.NotALog as err:
            raise UploadRejected(415, "binary", err.reason) from None
        self.checked_head = True
        first = chunk.find(b"\n")
        if first < 0:
            self._grow(len(chunk))
            return
        self._grow(first)
        self.lines += 1
        self.current = 0
        last = chunk.rfind(b"\n")
        middle = chunk[first + 1:last].split(b"\n") if last > first else []
        if middle and max(map(len, middle)) > self.max_line:
            for line in middle:
                self._grow(len(line))
                self.lines += 1
                self.current = 0
        self.lines += len(middle)
        self._grow(len(chunk) - last - 1)

    def _grow(self, n: int) -> None:
        """Extend the current line by ``n`` bytes, refusing it when it gets too long."""
        self.current += n
        if self.current > self.max_line:
            raise UploadRejected(
                413, "line_too_long",
                f"line {self.lines + 1} is longer than {self.max_line} bytes; "
                "no Skat log has lines that long")
