"""The per-game results of one upload, kept on disk as JSON lines and read back by pages.

An upload of 150,000 games has 150,000 result objects (about 450 bytes each as JSON); held in
memory and sent in one response they cost hundreds of MB. Instead each object is written as
one line to ``<name>.ndjson`` as soon as its game is validated, with the line's byte offset in
``<name>.idx`` (8 bytes a game), so any page, or the whole file as NDJSON, is read back in
bounded memory: the upload answers with the first page and the rest is fetched by
``GET /api/uploads/{id}/games``.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_OFFSET = struct.Struct("<Q")
_CHUNK = 1 << 16


def _paths(base: Path) -> tuple[Path, Path]:
    return base.with_name(base.name + ".ndjson"), base.with_name(base.name + ".idx")


class ResultsWriter:
    """Appends result objects; ``count`` and ``first_error`` are kept for the summary."""

    def __init__(self, base: Path) -> None:
        self.base = base
        lines, index = _paths(base)
        self._lines = open(lines, "wb")  # noqa: SIM115 - closed by close()
        self._index = open(index, "wb")  # noqa: SIM115
        self._at = 0
        self.count = 0
        self.first_error: dict[str, Any] | None = None

    def add(self, entry: dict[str, Any]) -> None:
        data = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        self._index.write(_OFFSET.pack(self._at))
        self._lines.write(data)
        self._at += len(data)
        self.count += 1
        if self.first_error is None and entry.get("errors"):
            self.first_error = entry["errors"][0]

    def close(self) -> Results:
        """Flush and close; the results as a reader."""
        self._lines.close()
        self._index.close()
        return Results(self.base)

    def discard(self) -> None:
        self._lines.close()
        self._index.close()
        Results(self.base).remove()


class Results:
    """Read access to a finished results file."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self._lines, self._index = _paths(base)

    @property
    def total(self) -> int:
        return self._index.stat().st_size // _OFFSET.size

    def exists(self) -> bool:
        return self._lines.is_file() and self._index.is_file()

    def _offset(self, index: Any, n: int) -> int:
        """Byte offset of entry ``n`` in the lines file (its size for ``n == total``)."""
        index.seek(n * _OFFSET.size)
        raw = index.read(_OFFSET.size)
        return _OFFSET.unpack(raw)[0] if len(raw) == _OFFSET.size else self._lines.stat().st_size

    def page(self, offset: int, limit: int) -> list[dict[str, Any]]:
        """Entries ``offset`` to ``offset + limit - 1`` (fewer at the end)."""
        total = self.total
        if offset >= total or limit <= 0:
            return []
        end = min(total, offset + limit)
        with open(self._index, "rb") as index, open(self._lines, "rb") as lines:
            start, stop = self._offset(index, offset), self._offset(index, end)
            lines.seek(start)
            data = lines.read(stop - start)
        return [json.loads(line) for line in data.split(b"\n") if line]

    def stream(self, offset: int = 0) -> Iterator[bytes]:
        """The JSON lines from entry ``offset`` on, in chunks of at most 64 KiB."""
        with open(self._index, "rb") as index:
            start = self._offset(index, offset) if offset < self.total else None
        if start is None:
            return
        with open(self._lines, "rb") as lines:
            lines.seek(start)
            while chunk := lines.read(_CHUNK):
                yield chunk

    def remove(self) -> None:
        self._lines.unlink(missing_ok=True)
        self._index.unlink(missing_ok=True)
