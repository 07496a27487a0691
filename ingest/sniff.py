"""Is this file a log? The checks made before any of a file's records is read.

A file is refused as a whole -- nothing of it validated, stored or quarantined -- when it is
another kind of container (zip, PDF, PNG, ...), binary data (NUL bytes, mostly control
characters), empty, or when it holds no game: nothing but blank lines and comments, or a
first line that starts neither an ISS record ``(;...;)`` nor a skatlog JSON line ``{...}``
(the reader detects the format from that line, so such a file would yield nothing but
syntax errors). The CLI (``validate``, ``ingest``, both paths) and the web upload use these
same checks and reasons; each caller adds its own advice and exit status or HTTP status.

:func:`find_logs` expands the command line's paths: a file named directly must pass (else a
:class:`NotALog`, exit 2), a file found in a folder that does not pass is skipped and named.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .sources import (
    COMPRESSED_SUFFIXES,
    FORMATS,
    LOG_SUFFIXES,
    SourceError,
    detect_format,
    is_log_file,
    open_bytes,
    open_text,
    reading,
)

#: Bytes of (decompressed) text the binary check looks at.
HEAD_BYTES = 65536

#: Compression recognised by magic bytes, and the file name ending that reads it.
MAGIC = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bzip2",
    b"\x28\xb5\x2f\xfd": "zstd",
}
SUFFIX_OF = {"gzip": ".gz", "bzip2": ".bz2", "zstd": ".zst"}

#: Containers that are never a log, by their magic bytes.
REFUSED = {
    b"PK\x03\x04": "a zip archive",
    b"7z\xbc\xaf\x27\x1c": "a 7-zip archive",
    b"\xfd7zXZ\x00": "an xz archive",
    b"Rar!": "a rar archive",
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"\x7fELF": "a program (ELF executable)",
}

#: Bytes that never occur in a text log (everything below 0x20 except tab, LF, FF, CR).
CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13))

#: What a log is, for the advice after a refusal.
LOG_KINDS = ("an ISS or skatlog log, plain or compressed with gzip (.gz), bzip2 (.bz2) or "
             "zstd (.zst)")
EXPECTED = "expected ISS records '(;GM[Skat]...;)' or skatlog JSON lines"


class NotALog(SourceError):
    """A file refused as a whole. ``code``: ``unsupported_format``, ``misnamed`` (compressed
    data under a plain name), ``binary``, ``empty`` or ``no_games``; ``reason``: the
    one-line reason without the file name."""

    def __init__(self, code: str, reason: str, path: str | os.PathLike[str] | None = None,
                 advice: str = "") -> None:
        self.code = code
        self.reason = reason
        self.path = None if path is None else str(path)
        text = reason if path is None else f"{path}: {reason}"
        super().__init__(text + (f"; {advice}" if advice else ""))


def detect_compression(head: bytes) -> str:
    """``gzip``/``bzip2``/``zstd``/``plain`` from a file's first bytes; a container that is
    never a log (zip, PDF, an image, a program) is a :class:`NotALog`."""
    for magic, name in MAGIC.items():
        if head.startswith(magic):
            return name
    for magic, what in REFUSED.items():
        if head.startswith(magic):
            raise NotALog("unsupported_format", f"this file is {what}")
    return "plain"


def check_text(chunk: bytes, *, head: bool) -> None:
    """Refuse binary data: a NUL byte anywhere, or (in the ``head`` of a file) more control
    characters than a text log ever has."""
    if b"\x00" in chunk:
        raise NotALog("binary", "this is a binary file, not a text log (it contains NUL bytes)")
    if head:
        sample = chunk[:HEAD_BYTES]
        control = len(sample) - len(sample.translate(None, CONTROL))
        if control > max(8, len(sample) // 100):
            raise NotALog("binary", "this is a binary file, not a text log")


def _named_compression(path: Path) -> str:
    name = path.name.lower()
    for kind, suffix in SUFFIX_OF.items():
        if name.endswith(suffix):
            return kind
    return "plain"


def sniff_file(path: Path, fmt: str = "auto") -> str:
    """The format of a log file (``iss`` or ``jsonl``); raises :class:`NotALog` for a file
    that is not one (see the module docstring), or :class:`SourceError` when it cannot be
    read. Reads the file's first 64 KiB and its lines up to the first that is neither blank
    nor a comment."""
    with reading(path):
        with open(path, "rb") as raw:
            magic = detect_compression(raw.read(8))
        named = _named_compression(path)
        if magic != "plain" and named != magic:
            raise NotALog("unsupported_format",
                          f"this file holds {magic} data, but its name does not end in "
                          f"{SUFFIX_OF[magic]}; rename it to {path.name}{SUFFIX_OF[magic]}")
        with open_bytes(path) as stream:
            head = stream.read(HEAD_BYTES)
        if not head:
            raise NotALog("empty", "the file is empty")
        check_text(head, head=True)
        with open_text(path) as handle:
            for number, line in enumerate(handle, 1):
                text = line.lstrip("\ufeff").strip()
                if not text or text.startswith("#"):
                    continue
                found = detect_format(text)
                if found == "unknown":
                    raise NotALog("no_games", f"no Skat games found (line {number} starts "
                                  f"{_snippet(text)}): {EXPECTED}")
                if fmt not in ("auto", found):
                    other = "ISS records" if found == "iss" else "skatlog JSON lines"
                    raise NotALog("no_games", f"holds {other}, not {fmt} (line {number}); "
                                  "leave out --format or pass the right one")
                return found
    raise NotALog("no_games", "no Skat games found (only blank lines and comments)")


def _snippet(text: str, width: int = 24) -> str:
    cut = text[:width] + ("..." if len(text) > width else "")
    return repr(cut)


@dataclass
class Inputs:
    """The log files to read, in order, and the files of named folders that were skipped,
    each with its reason."""

    files: list[Path] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)

    def skipped_lines(self) -> list[str]:
        """``skipped PATH: reason`` for every skipped file."""
        return [f"skipped {path}: {reason}" for path, reason in self.skipped]


def find_logs(paths: Iterable[str | os.PathLike[str]], fmt: str = "auto") -> Inputs:
    """The log files among ``paths`` (files, or folders searched recursively, sorted).

    A file named directly that is not a log raises :class:`NotALog` (its path and reason);
    a missing path or an unknown ``fmt`` a :class:`SourceError`. In a folder, files whose
    name is not a log's (``*.sgf``, ``*.jsonl.gz``, ...) and files that fail
    :func:`sniff_file` are skipped and listed with their reason; a folder with no log at
    all is a :class:`NotALog` too, so a run never records an ingest of nothing.
    """
    if fmt not in FORMATS:
        raise SourceError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    inputs = Inputs()
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found, skipped = len(inputs.files), len(inputs.skipped)
            for child in sorted(path.rglob("*")):
                if not child.is_file():
                    continue
                if not is_log_file(child):
                    inputs.skipped.append((child, "not a log file name ("
                                           + ", ".join(LOG_SUFFIXES) + ", optionally "
                                           + "/".join(COMPRESSED_SUFFIXES) + ")"))
                    continue
                try:
                    sniff_file(child, fmt)
                except NotALog as err:
                    inputs.skipped.append((child, err.reason))
                    continue
                inputs.files.append(child)
            if len(inputs.files) == found:
                here = inputs.skipped[skipped:]
                raise NotALog("no_games", "no log file in this folder" + (
                    f" ({len(here)} file{'s' * (len(here) != 1)} skipped: "
                    + "; ".join(f"{p.relative_to(path)}: {r}" for p, r in here[:3])
                    + ("; ..." if len(here) > 3 else "") + ")" if here else ""), path)
        elif path.is_file():
            try:
                sniff_file(path, fmt)
            except NotALog as err:
                raise NotALog(err.code, err.reason, path,
                              f"{LOG_KINDS} is expected" if err.code in
                              ("unsupported_format", "binary") else "") from None
            inputs.files.append(path)
        elif path.exists():
            raise SourceError(f"{path}: not a regular file or a directory")
        else:
            raise SourceError(f"{path}: no such file or directory")
    return inputs
