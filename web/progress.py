"""Progress of the uploads being processed, so the page can show it while it waits.

The page picks an upload id, sends it as ``X-Upload-Id`` with the upload and polls
``GET /api/uploads/{id}/progress``. Ids are scoped per club: the same id sent by two clubs
names two uploads, and each club only ever sees its own. An entry also knows where the
upload's per-game results are (:mod:`.results`); the board keeps the results of the latest
``keep_results`` uploads and removes older ones from disk.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from dataclasses import dataclass, field, fields

from .results import Results

UPLOAD_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
_KEEP = 256  # finished entries kept for late polls
_KEEP_RESULTS = 32  # of which this many keep their per-game results on disk


@dataclass
class Progress:
    """Where one upload is: phase (receiving, queued, unpacking, validating, storing, done,
    failed), bytes received and unpacked so far, games validated so far."""

    club: str
    phase: str = "receiving"
    received_bytes: int = 0
    expected_bytes: int | None = None
    unpacked_bytes: int = 0
    games: int = 0
    message: str = ""
    started: float = field(default_factory=time.time)
    results: Results | None = field(default=None, repr=False)

    def public(self) -> dict[str, object]:
        """What the progress poll answers (not the club, not where the results are)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name not in ("club", "results")}


class ProgressBoard:
    """Thread-safe table of :class:`Progress` by (club, upload id)."""

    def __init__(self, keep: int = _KEEP, keep_results: int = _KEEP_RESULTS) -> None:
        self.keep = keep
        self.keep_results = keep_results
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, str], Progress] = {}

    def start(self, upload_id: str | None, club: str, expected: int | None) -> tuple[str, Progress]:
        if not upload_id or not UPLOAD_ID.fullmatch(upload_id):
            upload_id = secrets.token_urlsafe(12)
        progress = Progress(club=club, expected_bytes=expected)
        with self._lock:
            old = self._entries.pop((club, upload_id), None)
            if old is not None:
                _drop_results(old)
            if len(self._entries) >= self.keep:
                oldest = sorted(self._entries, key=lambda k: self._entries[k].started)
                for key in oldest[: len(self._entries) - self.keep + 1]:
                    _drop_results(self._entries.pop(key))
            self._entries[(club, upload_id)] = progress
        return upload_id, progress

    def attach(self, progress: Progress, results: Results) -> None:
        """Give ``progress`` its results, dropping the results of the oldest uploads beyond
        ``keep_results``."""
        with self._lock:
            progress.results = results
            if not any(p is progress for p in self._entries.values()):
                _drop_results(progress)  # evicted while it ran: nobody can ask for them
                return
            holding = sorted((p for p in self._entries.values() if p.results is not None),
                             key=lambda p: p.started)
            for old in holding[: max(0, len(holding) - self.keep_results)]:
                _drop_results(old)

    def get(self, upload_id: str, club: str) -> Progress | None:
        with self._lock:
            return self._entries.get((club, upload_id))


def _drop_results(progress: Progress) -> None:
    if progress.results is not None:
        progress.results.remove()
        progress.results = None
