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
    """

    archive: Path
    max_upload_bytes: int = 64 * MIB
    max_unpacked_bytes: int = 512 * MIB
    max_line_bytes: int = 1 * MIB
    max_games: int = 1_000_000
