"""Progress of the uploads being processed, so the page can show it while it waits.

The page picks an upload id, sends it as ``X-Upload-Id`` with the upload and polls
``GET /api/uploads/{id}/progress``; only the club that sent the upload can read it.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from dataclasses import asdict, dataclass, field

UPLOAD_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
_KEEP = 256  # finished entries kept for late polls


@dataclass
class Progress:
    """Where one upload is: phase (receiving, unpacking, validating, storing, done, failed),
    bytes received and unpacked so far, games validated so far."""

    club: str
    phase: str = "receiving"
    received_bytes: int = 0
    expected_bytes: int | None = None
    unpacked_bytes: int = 0
    games: int = 0
    message: str = ""
    started: float = field(default_factory=time.time)

    def public(self) -> dict[str, object]:
        data = asdict(self)
        data.pop("club")
        return data


class ProgressBoard:
    """Thread-safe table of :class:`Progress` by upload id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, Progress] = {}

    def start(self, upload_id: str | None, club: str, expected: int | None) -> tuple[str, Progress]:
        if not upload_id or not UPLOAD_ID.fullmatch(upload_id):
            upload_id = secrets.token_urlsafe(12)
        progress = Progress(club=club, expected_bytes=expected)
        with self._lock:
            if len(self._entries) >= _KEEP:
                oldest = sorted(self._entries, key=lambda k: self._entries[k].started)
                for key in oldest[: len(self._entries) - _KEEP + 1]:
                    del self._entries[key]
            self._entries[upload_id] = progress
        return upload_id, progress

    def get(self, upload_id: str, club: str) -> Progress | None:
        with self._lock:
            progress = self._entries.get(upload_id)
        return progress if progress is not None and progress.club == club else None
