"""Each club's report pages, built from that club's archive only and rebuilt when it changed.

Pages live in ``<archive>/reports/<club>/``, built by the report builder of
:mod:`skatlog.reports` (through :mod:`.backend`) into a fresh directory that replaces the old
one by rename, so a reader never sees half a site. The archive's manifest (rewritten by every
ingest commit) tells whether the pages are still current.
"""

from __future__ import annotations

import html
import os
import shutil
import tempfile
import threading
from pathlib import Path

from filelock import FileLock

from . import backend
from .clubs import ClubStore

_STAMP = ".fingerprint"


class ReportSite:
    """Report pages per club, built on demand."""

    # Report pages carry Plotly's inline script, so they get their own, looser policy; they
    # still load nothing from other sites and may not be framed by one.
    csp = ("default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; "
           "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; "
           "connect-src 'self'; frame-ancestors 'self'; base-uri 'none'")

    def __init__(self, store: ClubStore, root: Path) -> None:
        self.store = store
        self.root = Path(root)
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def page(self, club: str, path: str) -> Path | None:
        """The file of report page ``path`` for ``club`` (built first when stale), or None
        when there is no such page. ``path`` never leaves the club's report directory."""
        site = self.ensure(club)
        if path.endswith("/") or not path:
            path += "index.html"
        target = (site / path).resolve()
        if not target.is_relative_to(site.resolve()) or not target.is_file():
            return None
        if target.name.startswith("."):
            return None
        return target

    def ensure(self, club: str) -> Path:
        """The club's current report directory, rebuilt first if its archive changed."""
        with self._guard:
            lock = self._locks.setdefault(club, threading.Lock())
        site = self.root / club
        archive = self.store.club_archive(club)
        self.root.mkdir(parents=True, exist_ok=True)
        with lock, FileLock(str(self.root / f".{club}.lock")):
            fingerprint = backend.archive_version(archive)
            stamp = site / _STAMP
            if stamp.is_file() and stamp.read_text() == fingerprint:
                return site
            fresh = Path(tempfile.mkdtemp(prefix=f".{club}.", dir=self.root))
            try:
                if backend.has_games(archive):
                    backend.build_reports(archive, fresh)
                else:
                    _empty_site(fresh, club)
                (fresh / _STAMP).write_text(fingerprint)
                old = self.root / f".{club}.old"
                shutil.rmtree(old, ignore_errors=True)
                if site.exists():
                    os.replace(site, old)
                os.replace(fresh, site)
                shutil.rmtree(old, ignore_errors=True)
            finally:
                shutil.rmtree(fresh, ignore_errors=True)
        return site


def _empty_site(directory: Path, club: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "index.html").write_text(
        "<!doctype html><meta charset=utf-8><title>No games yet</title>"
        f"<h1>Club {html.escape(club)}: no games yet</h1>"
        "<p>Upload a log on the <a href=\"/\">upload page</a>; the reports appear here.</p>",
        encoding="utf-8")
