"""Where log text comes from: files or directories, plain or compressed, read line by line.

A source is streamed (never read whole into memory): :func:`iter_records` cuts it into raw
records, one ISS record (possibly spread over several lines) or one JSON line each, with the
1-based line where the record starts. The format is detected from the first meaningful line
(``(;`` -> ISS, ``{`` -> skatlog JSON Lines) unless the caller names it.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TextIO

FORMATS = ("auto", "iss", "jsonl")

#: Suffixes a directory walk picks up (explicitly named files are always read).
LOG_SUFFIXES = (".sgf", ".iss", ".txt", ".jsonl", ".ndjson", ".skatlog")
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".zst")


class SourceError(ValueError):
    """A path that cannot be read as a log (missing, unreadable, unknown format name)."""


@dataclass(frozen=True, slots=True)
class RawRecord:
    """One record's text as found in a source, and where it starts."""

    source: str
    line: int
    text: str
    format: str  # "iss", "jsonl" or "unknown"
    complete: bool = True  # False: an ISS record cut off by the end of input or the next record
    #: the compiled kernel replayed every move legally (only the recorded result differs):
    #: the reference validator may take the engine's unchecked path for its moves
    replayed: bool = False


def open_text(path: Path) -> TextIO:
    """Open ``path`` for streaming text, decompressing ``.gz``, ``.bz2`` or ``.zst``.

    Undecodable bytes become U+FFFD so a damaged file yields syntax errors, not a crash.
    Lines end at ``\n`` only, as editors and grep count them and as the compiled path
    splits (a ``\r`` before it stays on the line; a lone ``\r``, a form feed or U+2028 is
    a character of the line, never a line break).
    """
    name = path.name.lower()
    try:
        if name.endswith(".gz"):
            return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="\n")
        if name.endswith(".bz2"):
            return bz2.open(path, "rt", encoding="utf-8", errors="replace", newline="\n")
        if name.endswith(".zst"):
            from .zstd_frames import open_zstd

            return io.TextIOWrapper(open_zstd(path.open("rb")), encoding="utf-8",
                                    errors="replace", newline="\n")
        return path.open("r", encoding="utf-8", errors="replace", newline="\n")
    except OSError as err:
        raise SourceError(f"{path}: cannot open: {err.strerror or err}") from err


def open_bytes(path: Path) -> BinaryIO:
    """Open ``path`` for streaming bytes, decompressing by its name as :func:`open_text`
    does (``.gz``, ``.bz2``, ``.zst``); errors as :func:`open_text`'s."""
    name = path.name.lower()
    try:
        if name.endswith(".gz"):
            return gzip.open(path, "rb")  # type: ignore[return-value]
        if name.endswith(".bz2"):
            return bz2.open(path, "rb")  # type: ignore[return-value]
        if name.endswith(".zst"):
            from .zstd_frames import open_zstd

            return open_zstd(path.open("rb"))
        return path.open("rb")
    except OSError as err:
        raise SourceError(f"{path}: cannot open: {err.strerror or err}") from err


def looks_like_game(fmt: str, text: str) -> bool:
    """Whether a record's text could be a game at all: an ISS record starts with ``(``, a
    skatlog JSON line with ``{``. Anything else (a stray line of prose between records) is
    reported, but never quarantined in ``rejects``."""
    head = text.lstrip("\ufeff \t\r\n")
    if fmt == "iss":
        return head.startswith("(")
    if fmt == "jsonl":
        return head.startswith("{")
    return False


def is_log_file(path: Path) -> bool:
    """True for the file names a directory walk reads (``*.sgf``, ``*.jsonl.gz``, ...)."""
    name = path.name.lower()
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return name.endswith(LOG_SUFFIXES)


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files named directly, plus the log files under named directories (recursive, sorted).

    Raises :class:`SourceError` for a path that does not exist.
    """
    files: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            files.extend(p for p in sorted(path.rglob("*")) if p.is_file() and is_log_file(p))
        elif path.is_file():
            files.append(path)
        elif path.exists():
            raise SourceError(f"{path}: not a regular file or a directory")
        else:
            raise SourceError(f"{path}: no such file or directory")
    return files


def detect_format(line: str) -> str:
    """``iss`` for a line starting ``(``, ``jsonl`` for ``{``, else ``unknown``."""
    text = line.lstrip("\ufeff \t\r\n")
    if text.startswith("("):
        return "iss"
    if text.startswith("{"):
        return "jsonl"
    return "unknown"


def strip_comment(line: str, open_tag: str | None = None) -> tuple[str, str | None]:
    """Drop a ``#`` comment (docs/iss-format.md) from one line of an ISS record.

    ``#`` starts a comment outside ``[...]`` values and inside the move list ``MV[...]``
    (moves never contain it), but not inside other values such as a player name.
    ``open_tag`` is the tag whose value is still open from the previous line; the tag open at
    the end of this line is returned with the text, to be passed in with the next line.
    """
    if "#" not in line and "\\" not in line:  # nothing to cut (most lines): jump by find
        return line, _open_tag_at_end(line, open_tag)
    return _strip_comment_loop(line, open_tag)


def _open_tag_at_end(line: str, open_tag: str | None) -> str | None:
    """The tag whose value is open at the end of ``line`` (one without ``#`` or ``\\``),
    from bracket to bracket as :func:`_strip_comment_loop` reads it character by character."""
    tag_start = pos = 0
    while True:
        if open_tag is not None:
            close = line.find("]", pos)
            if close < 0:
                return open_tag
            open_tag = None
            pos = tag_start = close + 1
        else:
            opening = line.find("[", pos)
            if opening < 0:
                return None
            open_tag = line[tag_start:opening].strip().lstrip("(;").strip()
            pos = opening + 1


def _strip_comment_loop(line: str, open_tag: str | None) -> tuple[str, str | None]:
    """:func:`strip_comment` character by character: escapes and comments."""
    tag_start = 0
    i = 0
    length = len(line)
    while i < length:
        ch = line[i]
        if open_tag is not None:
            if ch == "\\":
                i += 1
            elif ch == "]":
                open_tag = None
                tag_start = i + 1
            elif ch == "#" and open_tag == "MV":
                return line[:i], open_tag
        elif ch == "[":
            open_tag = line[tag_start:i].strip().lstrip("(;").strip()
        elif ch == "#":
            return line[:i], None
        i += 1
    return line, open_tag


def iter_lines_records(lines: Iterable[str], source: str, fmt: str = "auto"
                       ) -> Iterator[RawRecord]:
    """Cut a stream of lines into raw records (see :func:`iter_records`)."""
    if fmt not in FORMATS:
        raise SourceError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    buffer: list[str] = []
    start = 0
    open_tag: str | None = None
    for number, line in enumerate(lines, 1):
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]  # a byte-order mark
        if fmt == "auto":
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fmt = detect_format(line)
        if fmt == "jsonl":
            if line.strip():
                yield RawRecord(source, number, line.rstrip("\r\n"), "jsonl")
            continue
        if fmt == "unknown":
            if line.strip() and not line.lstrip().startswith("#"):
                yield RawRecord(source, number, line.rstrip("\r\n"), "unknown")
            continue
        # ISS: a record runs from "(;" to ";)", possibly over several lines.
        if buffer or "#" in line or not line.rstrip().endswith(";)"):
            text, open_tag = strip_comment(line, open_tag if buffer else None)
            text = text.strip()
        else:
            text = line.strip()
        if not text:
            continue
        if buffer and text.startswith("(;"):  # a new record while the last one is open
            yield RawRecord(source, start, "\n".join(buffer), "iss", complete=False)
            buffer = []
        if not buffer:
            start = number
        buffer.append(text)
        if text.endswith(";)") or not buffer[0].startswith("("):
            yield RawRecord(source, start, "\n".join(buffer), "iss")
            buffer = []
    if buffer:
        yield RawRecord(source, start, "\n".join(buffer), "iss", complete=False)


def iter_records(path: str | Path, fmt: str = "auto") -> Iterator[RawRecord]:
    """Stream the raw records of one file, detecting its format when ``fmt`` is ``auto``."""
    path = Path(path)
    if fmt not in FORMATS:
        raise SourceError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    handle = open_text(path)
    try:
        with reading(path):
            yield from iter_lines_records(handle, str(path), fmt)
    finally:
        handle.close()


@contextlib.contextmanager
def reading(path: str | Path) -> Iterator[None]:
    """Turn a failed read of ``path`` -- damaged or cut-off compressed data (``EOFError``,
    ``zstandard.ZstdError``), an I/O error -- into a :class:`SourceError` that names it."""
    try:
        yield
    except (OSError, EOFError) as err:
        raise SourceError(f"{path}: cannot read: {err}") from err
    except Exception as err:
        if type(err).__name__ == "ZstdError":  # zstandard is imported only when needed
            raise SourceError(f"{path}: cannot read: {err}") from err
        raise
