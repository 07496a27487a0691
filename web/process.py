"""One upload from the received file to the club's archive: unpack, validate, store.

Runs in a worker thread (it is CPU and disk work). The file is first unpacked to plain text
with every byte-level check (size, bomb, binary, line length); then its games stream through
validation into the archive's atomic ingest, which commits only when the whole file went
through. Any refusal before that commit leaves the club's archive exactly as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from skatlog.ingest.model import LogGame

from . import backend
from .errors import UploadRejected
from .progress import Progress
from .results import Results, ResultsWriter
from .settings import WebSettings
from .unpack import Unpacked, unpack

#: Errors that mean a record could not even be read (as opposed to breaking a rule).
READING_ERRORS = frozenset({"syntax", "bad_deal", "corrupt_card", "truncated"})


def process_upload(
    received: Path,
    display_name: str,
    club_archive: Path,
    settings: WebSettings,
    progress: Progress,
    workdir: Path,
    results_path: Path,
) -> tuple[dict[str, object], Results]:
    """Validate the uploaded log and store its valid games.

    Returns the API's summary (without the per-game entries) and the per-game results,
    written to ``results_path`` game by game (:mod:`.results`), so memory stays bounded
    whatever the number of games. ``workdir`` holds the unpacked text. Raises
    :class:`UploadRejected` when the file as a whole is refused (nothing stored); a refusal
    with entries (``no_games``) carries them as ``results`` on the exception.
    """
    # The plain text is stored under the client's name without a compression suffix, so
    # the reader (which goes by suffix) takes it as the plain text it now is.
    plain = workdir / _plain_name(display_name)
    progress.phase = "unpacking"
    with open(plain, "wb") as out:
        unpacked = _unpack(received, out, settings, progress)
    progress.phase = "validating"
    writer = ResultsWriter(results_path)
    tally = {"readable": 0}

    def validated() -> Iterator[LogGame]:
        # Games are validated while the archive writer stores them batch by batch; an
        # exception here aborts the writer before its commit, so nothing becomes visible.
        for game in backend.read_games(plain):
            game = replace(game, source=display_name)
            writer.add(backend.game_entry(game, display_name))
            if game.record is not None or any(e.code not in READING_ERRORS
                                              for e in game.errors):
                tally["readable"] += 1
            progress.games = writer.count
            if writer.count > settings.max_games:
                raise UploadRejected(413, "too_many_games",
                                     f"more than {settings.max_games} games in one upload; "
                                     "split the log")
            yield game
        if not tally["readable"]:
            found = _count(writer.count, "unreadable record") if writer.count else "nothing"
            first = writer.first_error
            if first is not None:
                found += f"; line {first.get('line')}: {first.get('message')}"
            raise UploadRejected(
                422, "no_games",
                f"no Skat games found in {display_name} "
                f"({_count(unpacked.lines, 'line')}, {found}): "
                "expected ISS records '(;GM[Skat]...;)' or skatlog JSON lines")
        progress.phase = "storing"

    try:
        summary = backend.store_games(club_archive, validated(), (display_name, received))
    except UploadRejected as exc:
        if exc.code == "no_games":
            exc.results = writer.close()
        else:
            writer.discard()
        raise
    except BaseException:
        writer.discard()
        raise
    results = writer.close()
    progress.phase = "done"
    return {
        "source": display_name,
        "compression": unpacked.compression,
        "stored": summary.stored,
        "duplicates": summary.duplicates,
        "rejected": summary.rejected,
    }, results


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _plain_name(name: str) -> str:
    stem = name
    while True:
        lower = stem.lower()
        cut = next((s for s in _COMPRESSED_SUFFIXES if lower.endswith(s)), None)
        if cut is None or len(stem) == len(cut):
            return stem or "upload"
        stem = stem[: -len(cut)]


_COMPRESSED_SUFFIXES = (".gz", ".gzip", ".bz2", ".zst", ".zstd", ".xz", ".tgz")


def _unpack(received: Path, out: BinaryIO, settings: WebSettings,
            progress: Progress) -> Unpacked:
    def seen(n: int) -> None:
        progress.unpacked_bytes = n

    return unpack(received, out, max_bytes=settings.max_unpacked_bytes,
                  max_line=settings.max_line_bytes, on_progress=seen)
