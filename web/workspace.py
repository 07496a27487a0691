"""The server's scratch space inside its own root, cleaned up even after a kill -9.

Each server process works in ``<root>/.tmp/<pid>-<random>/`` (received uploads, their
unpacked text, per-game results, report pages being built), never in the system's /tmp, so
its files sit on the archive's disk and nowhere else. The process holds a lock on
``<root>/.tmp/<name>.lock`` for as long as it runs; at start-up a server removes every
directory whose lock it can take (its owner is gone, killed or crashed) and keeps those of
servers still running on the same root.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from pathlib import Path

from filelock import FileLock, Timeout

TMP = ".tmp"
_LOCK = ".lock"


class Workspace:
    """This process's scratch directory under ``<root>/.tmp/``."""

    def __init__(self, root: Path) -> None:
        self.base = Path(root) / TMP
        self.base.mkdir(parents=True, exist_ok=True)
        self.removed = clean_stale(self.base)
        name = f"{os.getpid()}-{secrets.token_hex(4)}"
        # the lock exists before the directory, so a directory without one is debris
        self._lock = FileLock(str(self.base / (name + _LOCK)), thread_local=False)
        self._lock.acquire(timeout=0)
        self.dir = self.base / name
        self.dir.mkdir()
        (self.dir / "results").mkdir()

    def upload_dir(self) -> Path:
        """A fresh directory for one upload's files (removed when the upload ends)."""
        return Path(tempfile.mkdtemp(prefix="upload-", dir=self.dir))

    def build_dir(self, prefix: str) -> Path:
        """A fresh directory on the root's disk, for a site to be renamed into place."""
        return Path(tempfile.mkdtemp(prefix=prefix, dir=self.dir))

    def results_path(self) -> Path:
        """A new, unused path for one upload's per-game results."""
        return self.dir / "results" / secrets.token_hex(8)

    def close(self) -> None:
        """Remove the directory (a normal shutdown); a killed server's is removed by the next."""
        shutil.rmtree(self.dir, ignore_errors=True)
        self._lock.release()
        Path(self._lock.lock_file).unlink(missing_ok=True)


def clean_stale(base: Path) -> list[Path]:
    """Remove the scratch directories under ``base`` whose server is no longer running."""
    removed = []
    names = {p.name.removesuffix(_LOCK) for p in base.iterdir()}
    for name in sorted(names):
        entry, lock_path = base / name, base / (name + _LOCK)
        if lock_path.exists():
            lock = FileLock(str(lock_path), thread_local=False)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                continue  # a live server's
            try:
                _remove(entry)
                lock_path.unlink(missing_ok=True)
            finally:
                lock.release()
        else:
            _remove(entry)
        if entry.exists() or entry.is_symlink():
            continue  # could not be removed (e.g. permissions); left for the administrator
        removed.append(entry)
    return removed


def _remove(entry: Path) -> None:
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry, ignore_errors=True)
    else:
        entry.unlink(missing_ok=True)
