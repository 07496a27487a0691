"""Write a report folder whole or not at all: build it beside the target, then rename.

The pages are written into a fresh hidden folder next to the output (same file system, so
the rename is atomic); only when every file is written does it take the output's place. A
failure (a damaged archive, a full disk, Ctrl-C) removes the fresh folder and leaves the
previous report as it was; what a killed build leaves is removed by a later one. An
existing output folder is replaced only when it is a report (it holds the marker file) or
empty, so ``--out`` pointed at a folder of other files never deletes them.
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

#: Marks a folder as a skatlog report, so that the next build may replace it.
#: Where ``skatlog report`` writes unless told (``--out``).
DEFAULT_OUT = Path("reports") / "out"

MARKER = ".skatlog-report"


class OutputError(OSError):
    """The output path cannot take a report (not a folder, or a folder of other files)."""


def _is_report(folder: Path) -> bool:
    if (folder / MARKER).is_file():
        return True
    index = folder / "index.html"  # reports written before the marker existed
    try:
        return index.is_file() and "skatlog report</title>" in index.read_text(
            encoding="utf-8", errors="replace")[:4000]
    except OSError:
        return False


def check_target(out: Path) -> None:
    """Raise :class:`OutputError` unless ``out`` is absent, an empty folder or a report."""
    if not out.exists():
        return
    if not out.is_dir():
        raise OutputError(f"{out} is not a folder")
    if any(out.iterdir()) and not _is_report(out):
        raise OutputError(f"{out} holds files that are not a skatlog report; "
                          "choose a new or empty folder for --out")


#: Staging folders older than this are leftovers of a killed build (a build takes seconds).
STALE_SECONDS = 3600


def _remove_stale(out: Path) -> None:
    """Remove staging folders a killed build (kill -9, power loss) left beside ``out``."""
    now = time.time()
    for leftover in out.parent.glob(f".{glob.escape(out.name)}.*"):
        if leftover.suffix in (".tmp", ".old") and leftover.is_dir():
            with contextlib.suppress(OSError):
                if now - leftover.stat().st_mtime > STALE_SECONDS:
                    shutil.rmtree(leftover, ignore_errors=True)


@contextmanager
def staged_folder(out: Path) -> Iterator[Path]:
    """A fresh folder to write the report into; it replaces ``out`` when the block ends
    without an error, and is removed when it ends with one."""
    check_target(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(out)
    fresh = out.parent / f".{out.name}.{secrets.token_hex(4)}.tmp"
    fresh.mkdir()  # the usual permissions (mkdtemp would make it private)
    try:
        yield fresh
        (fresh / MARKER).write_text("written by skatlog report; the next report replaces "
                                    "this folder\n", encoding="utf-8")
        _swap(fresh, out)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


def _swap(fresh: Path, out: Path) -> None:
    """Put ``fresh`` in the place of ``out`` (two renames; the old report is then deleted)."""
    if not out.exists():
        os.replace(fresh, out)
        return
    old = out.parent / f".{out.name}.{secrets.token_hex(4)}.old"
    os.replace(out, old)
    try:
        os.replace(fresh, out)
    except OSError:
        os.replace(old, out)  # put the previous report back
        raise
    shutil.rmtree(old, ignore_errors=True)


#: Writes one file of the report, relative to its root (text or bytes).
Writer = Callable[[str, str | bytes], None]


def writer(root: Path) -> tuple[Writer, Callable[[], int]]:
    """A function writing files under ``root`` (creating sub-folders) and one returning the
    bytes written so far."""
    total = [0]

    def write(name: str, data: str | bytes) -> None:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = data.encode("utf-8") if isinstance(data, str) else data
        path.write_bytes(payload)
        total[0] += len(payload)

    return write, lambda: total[0]
