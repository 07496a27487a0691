"""The one error type an upload can end in: an HTTP status, a stable code and a clear message."""

from __future__ import annotations


class UploadRejected(Exception):
    """The upload is refused as a whole and nothing was stored.

    ``code`` is stable for scripts (``too_large``, ``bad_request``, ``binary``, ``line_too_long``,
    ``decompressed_too_large``, ``corrupt_compressed``, ``unsupported_format``, ``no_games``,
    ``too_many_games``, ``bad_club``); ``message`` is for the club secretary. ``bad_club``
    (an admin request that names no club, or a club that is unknown or revoked) answers
    every club-scoped request, not only uploads, in the same ``{detail, code}`` form.
    """

    def __init__(self, status: int, code: str, message: str,
                 extra: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra or {}

    def payload(self) -> dict[str, object]:
        """The JSON body: ``detail`` and ``code``, plus e.g. ``games`` when there were any."""
        return {"detail": self.message, "code": self.code, **self.extra}
