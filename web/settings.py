"""The web server's settings: where the archive is and how much an upload may be."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MIB = 1 << 20


@dataclass(frozen=True)
class WebSettings:
    """Limits an upload must respect; all are checked while the data streams through.

    ``max_upload_bytes`` bounds the request body (413 as soon as it is crossed);
    ``max_unpacked_bytes`` bounds the decompressed log (the compression-bomb guard);
    ``max_line_bytes`` bounds one line (an ISS record is about 1 KB); ``max_games`` bounds
    the number of games one upload may carry.

    ``result_page`` is how many per-game results an upload's answer carries (the rest are
    paged by ``GET /api/uploads/{id}/games``); ``upload_workers`` how many clubs' uploads
    are processed at the same time (one at a time per club); ``max_queued_uploads`` how many
    uploads one club may have in progress (429 beyond); ``login_failures`` failed token
    checks an address may make at once, one more every ``login_refill_seconds`` (429 with
    Retry-After beyond). ``scoring`` is how the club report pages total players and
    sessions: ``list`` (plain list points) or ``seeger-fabian``.
    """

    archive: Path
    max_upload_bytes: int = 64 * MIB
    max_unpacked_bytes: int = 512 * MIB
    max_line_bytes: int = 1 * MIB
    max_games: int = 1_000_000
    result_page: int = 1000
    upload_workers: int = 2
    max_queued_uploads: int = 16
    login_failures: int = 10
    login_refill_seconds: float = 6.0
    scoring: str = "list"
