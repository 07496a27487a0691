"""Receive a multipart upload into a temporary file, enforcing the size limit while streaming.

Starlette's ``request.form()`` reads the whole body before a handler sees it; here the body is
fed chunk by chunk to python-multipart's parser and the ``file`` part is written to disk as it
arrives, so an upload over the limit is refused (413) as soon as it crosses it, without
reading (or storing) the rest.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath
from typing import BinaryIO

from python_multipart import MultipartParser
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import parse_options_header
from starlette.requests import ClientDisconnect

from .errors import UploadRejected, storage_error

_SAFE_NAME = re.compile(r"[^\w. -]+")  # \w: letters and digits of any script, and _


@dataclass
class ReceivedFile:
    """What arrived: the sanitised display name and the size of the file part."""

    filename: str
    size: int


def safe_filename(raw: str | None) -> str:
    """The base name of an uploaded file, stripped of directories and odd characters.

    The client's file name is only ever shown and used as the games' ``source`` label; it is
    never joined to a server path. ``../../etc/passwd`` becomes ``passwd``; a name that is
    empty after cleaning becomes ``upload``.
    """
    name = unicodedata.normalize("NFKC", raw or "")
    name = PureWindowsPath(PurePosixPath(name.replace("\x00", "")).name).name
    name = _SAFE_NAME.sub("_", name).strip(" ._")
    return name[:120] or "upload"


async def receive_upload(
    content_type: str,
    chunks: AsyncIterator[bytes],
    target: BinaryIO,
    *,
    max_bytes: int,
    on_progress: Callable[[int], None] | None = None,
) -> ReceivedFile:
    """Stream a ``multipart/form-data`` body into ``target`` (the part named ``file``).

    Raises :class:`UploadRejected` (413) once more than ``max_bytes`` of the body have
    arrived; (400) for a body that is not multipart, carries no ``file`` part or stops
    before its closing boundary (a cut upload is never taken for a whole file); (503
    ``archive_error``) when ``target`` cannot be written.
    """
    mime, options = parse_options_header(content_type or "")
    boundary = options.get(b"boundary")
    if mime != b"multipart/form-data" or not boundary:
        raise UploadRejected(400, "bad_request",
                             "send the log as multipart/form-data with a field named 'file'")
    state = _PartState(target)
    parser = MultipartParser(boundary, state.callbacks())  # type: ignore[arg-type]
    received = 0
    try:
        async for chunk in chunks:
            received += len(chunk)
            if received > max_bytes:
                raise UploadRejected(413, "too_large",
                                     f"the upload is larger than the limit of "
                                     f"{_human(max_bytes)}; split or compress the log")
            parser.write(chunk)
            if on_progress is not None:
                on_progress(received)
        parser.finalize()
        target.flush()
    except MultipartParseError as exc:
        raise UploadRejected(400, "bad_request", f"malformed multipart body: {exc}") from exc
    except ClientDisconnect:
        raise UploadRejected(400, "bad_request", "the upload was interrupted") from None
    except OSError as exc:  # writing the received file: the server's disk
        raise storage_error(exc) from exc
    if not state.found:
        raise UploadRejected(400, "bad_request", "the upload has no field named 'file'")
    if not state.complete:
        raise UploadRejected(400, "bad_request",
                             "the upload was cut off: the multipart body ends before its "
                             "closing boundary")
    return ReceivedFile(safe_filename(state.filename), state.size)


def _human(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:g} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


class _PartState:
    """Callbacks that pick the ``file`` part out of the multipart stream."""

    def __init__(self, target: BinaryIO) -> None:
        self.target = target
        self.found = False
        self.filename: str | None = None
        self.size = 0
        self._headers: dict[bytes, bytes] = {}
        self._field = b""
        self._value = b""
        self._writing = False
        self.complete = False  # the closing boundary arrived

    def callbacks(self) -> dict[str, Callable[..., None]]:
        return {
            "on_part_begin": self._part_begin,
            "on_header_field": self._header_field,
            "on_header_value": self._header_value,
            "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._part_data,
            "on_part_end": self._part_end,
            "on_end": self._end,
        }

    def _part_begin(self) -> None:
        self._headers = {}
        self._field = self._value = b""
        self._writing = False

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _header_end(self) -> None:
        self._headers[self._field.lower()] = self._value
        self._field = self._value = b""

    def _headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        if options.get(b"name") == b"file" and not self.found:
            self.found = True
            self._writing = True
            raw = options.get(b"filename", b"")
            self.filename = raw.decode("utf-8", "replace")

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self._writing:
            self.target.write(data[start:end])
            self.size += end - start

    def _part_end(self) -> None:
        self._writing = False

    def _end(self) -> None:
        self.complete = True
