"""Ctrl-C during a long write: stop at the next safe point, commit what is done, say so.

A run that writes the archive (``ingest``, ``simulate``) installs :func:`graceful_stop`
once it holds the archive's lock. The first SIGINT (or SIGTERM) then only sets a flag
(:func:`stop_requested`); the run checks it between chunks or batches, commits what it has
finished and raises :class:`RunInterrupted`, which says what was committed. A second
Ctrl-C raises :class:`KeyboardInterrupt` at once: the archive keeps its last commit (the
writer is atomic per commit), only the work since then is lost.

Runs commit as they go, at least every :func:`commit_interval` seconds, so that a
``kill -9`` also loses no more than that much work; a rerun skips or dedupes what is stored.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

#: Seconds between the commits of a long run (at the next chunk or batch boundary):
#: what a ``kill -9`` can lose at most, traded against more, smaller partition files.
COMMIT_SECONDS = 10.0
#: Test hook: ``SKATLOG_COMMIT_SECONDS=0`` commits after every chunk or batch.
COMMIT_SECONDS_ENV = "SKATLOG_COMMIT_SECONDS"

_STOP = threading.Event()


def commit_interval() -> float:
    """Seconds between a long run's commits (:data:`COMMIT_SECONDS`, or the test hook)."""
    text = os.environ.get(COMMIT_SECONDS_ENV)
    try:
        return max(0.0, float(text)) if text else COMMIT_SECONDS
    except ValueError:
        return COMMIT_SECONDS


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C after committing its finished work; ``message`` is the one
    line the CLI prints (what is stored, and that a rerun resumes)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def stop_requested() -> bool:
    """Whether a Ctrl-C asked the current run to stop at its next safe point."""
    return _STOP.is_set()


def request_stop() -> None:
    """Ask the current run to stop at its next safe point (what the first Ctrl-C does)."""
    _STOP.set()


def _handler(signum: int, frame: FrameType | None) -> None:
    if _STOP.is_set():  # the second Ctrl-C: stop now, the last commit stays
        raise KeyboardInterrupt
    _STOP.set()


@contextlib.contextmanager
def graceful_stop() -> Iterator[None]:
    """Within the block, Ctrl-C (SIGINT) and SIGTERM request a stop instead of raising.

    Only the main thread can install signal handlers: elsewhere (a web server's worker
    thread) the block changes nothing and the flag is only set by :func:`request_stop`.
    Nested blocks keep the outer one's handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    if previous[signal.SIGINT] is _handler:
        yield
        return
    _STOP.clear()
    for sig in previous:
        signal.signal(sig, _handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        _STOP.clear()
