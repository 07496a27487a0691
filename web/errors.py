"""The one error type an upload can end in: an HTTP status, a stable code and a clear message."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .results import Results


class UploadRejected(Exception):
    """The upload is refused as a whole and nothing was stored.

    ``code`` is stable for scripts (``too_large``, ``bad_request``, ``binary``, ``line_too_long``,
    ``decompressed_too_large``, ``corrupt_compressed``, ``unsupported_format``, ``no_games``,
    ``too_many_games``, ``bad_club``, ``busy``, ``archive_error``); ``message`` is for the club
    secretary. ``bad_club`` (an admin request that names no club, or a club that is unknown or
    revoked) answers every club-scoped request, not only uploads, in the same
    ``{detail, code}`` form. ``results`` are the per-game entries of a refusal that has them
    (``no_games``); the app puts their first page into the answer.
    """

    def __init__(self, status: int, code: str, message: str,
                 extra: dict[str, object] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra or {}
        self.headers = headers or {}
        self.results: Results | None = None

    def payload(self) -> dict[str, object]:
        """The JSON body: ``detail`` and ``code``, plus e.g. ``games`` when there were any."""
        return {"detail": self.message, "code": self.code, **self.extra}


def storage_error(exc: OSError) -> UploadRejected:
    """A server-side write or read that failed (a full disk, a read-only or vanished
    directory): 503 ``archive_error``, the upload's fault is not the client's."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return UploadRejected(503, "archive_error",
                          f"the server cannot store the upload now ({reason}); nothing was "
                          "stored, try again later")
