"""Each club's report pages, built from that club's archive only and rebuilt when it changed.

Pages live in ``<archive>/reports/<club>/``, built by the report builder of
:mod:`skatlog.reports` (through :mod:`.backend`) into a fresh directory that replaces the old
one by rename, so a reader never sees half a site. The archive's manifest (rewritten by every
ingest commit) tells whether the pages are still current.

The web app's copy of each page is framed for it (:func:`frame_page`): the title and a bar
at the top name the club, the bar links back to the upload page and to the club list, has
the log-out button and says that times are UTC. The pages themselves are the builder's.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import threading
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock

from . import backend
from .clubs import ClubStore
from .workspace import Workspace

_STAMP = ".fingerprint"


class ReportSite:
    """Report pages per club, built on demand."""

    # Report pages carry Plotly's inline script, so they get their own, looser policy; they
    # still load nothing from other sites and may not be framed by one.
    csp = ("default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; "
           "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; "
           "connect-src 'self'; frame-ancestors 'self'; base-uri 'none'")

    def __init__(self, store: ClubStore, root: Path, workspace: Workspace,
                 scoring: str = "list") -> None:
        self.store = store
        self.root = Path(root)
        self.workspace = workspace
        # how the pages total players and sessions (--scoring); a bad name fails here, at
        # start-up, not at the first page a club asks for
        self.scoring = backend.check_scoring(scoring)
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
            # pages built under another scoring are stale too
            fingerprint = f"{backend.archive_version(archive)} {self.scoring}"
            stamp = site / _STAMP
            if stamp.is_file() and stamp.read_text() == fingerprint:
                return site
            # built in the server's scratch space (same disk, so the rename below is atomic;
            # a kill mid-build leaves nothing in the reports folder)
            fresh = self.workspace.build_dir(f"report-{club}-")
            try:
                if backend.has_games(archive):
                    backend.build_reports(archive, fresh, club, self.scoring)
                else:
                    _empty_site(fresh, club)
                built = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
                for page in fresh.rglob("*.html"):
                    text = page.read_text(encoding="utf-8")
                    page.write_text(frame_page(text, club, built), encoding="utf-8")
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


_TITLE = re.compile(r"<title>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.IGNORECASE | re.DOTALL)
_BODY = re.compile(r"<body[^>]*>", re.IGNORECASE)
_TAGS = re.compile(r"<[^>]+>")
_BAR_STYLE = ("display:flex;flex-wrap:wrap;gap:.4em 1.2em;align-items:center;margin:0;"
              "padding:.5em 1em;background:#1f3a5f;color:#fff;font:14px/1.4 system-ui,sans-serif")
_LINK_STYLE = "color:#fff;text-decoration:underline"
_BUTTON_STYLE = ("font:inherit;color:#1f3a5f;background:#fff;border:0;border-radius:3px;"
                 "padding:.1em .6em;cursor:pointer")


def frame_page(text: str, club: str, built: str) -> str:
    """A report page as the web app serves it: titled ``Club NAME: <page heading>``, with the
    club bar (club, build time, "times are UTC", upload page, club list, log out) first in
    the body. Every inserted text is escaped; the page's own markup is left as it is."""
    name = html.escape(club)
    # The head may inline plotly.js, whose text can hold anything; the body's own text is
    # escaped by the builder. So the body starts after the *last* </head>, and the first
    # <title> (the head's first element) is the page's.
    head_end = text.lower().rfind("</head>")
    start = max(head_end, 0)
    body = _BODY.search(text, start)
    heading = _H1.search(text, body.end() if body else start)
    topic = html.unescape(_TAGS.sub("", heading.group(1))).strip() if heading else ""
    label = topic if topic.startswith(f"Club {club}") else f"Club {club}: {topic or 'report'}"
    title = f"<title>{html.escape(label)}</title>"
    bar = (f'<div class="skatlog-club-bar" style="{_BAR_STYLE}" data-testid="club-bar">'
           f"<b>Club {name}</b>"
           f"<span>built from the club's archive on {html.escape(built)}; "
           "all dates and times are UTC</span>"
           f'<a href="/" style="{_LINK_STYLE}">Upload page</a>'
           f'<a href="/reports/" style="{_LINK_STYLE}">Reports</a>'
           '<form method="post" action="/logout" style="margin:0">'
           f'<button type="submit" style="{_BUTTON_STYLE}">Log out</button></form></div>')
    at = body.end() if body is not None else 0
    text = text[:at] + bar + text[at:]
    found = _TITLE.search(text, 0, head_end) if head_end >= 0 else None
    if found is None:
        return title + text
    return text[: found.start()] + title + text[found.end():]


def _empty_site(directory: Path, club: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "index.html").write_text(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>No games yet</title>"
        f"</head><body><h1>Club {html.escape(club)}: no games yet</h1>"
        "<p>Upload a log on the <a href=\"/\">upload page</a>; the reports appear here.</p>"
        "</body></html>",
        encoding="utf-8")
