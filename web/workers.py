"""Uploads queue per club: one worker thread per club, a few running at once in all.

A club's uploads are stored one after the other anyway (its archive takes one writer at a
time), so each club gets a single worker thread of its own and its later uploads wait in
that worker's queue, not in the shared thread pool the reads run on. However many uploads
one club sends, the other clubs' pages and API reads keep their threads. ``parallel``
bounds how many clubs' uploads do CPU work at the same time; ``max_queued`` bounds how many
uploads one club may have in progress (429 ``busy`` beyond), so one club cannot fill the
disk with waiting uploads either.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from .errors import UploadRejected

T = TypeVar("T")


class Slot:
    """One club's place in its queue, from the start of an upload to its end; ``on_done``
    callbacks run once when it is released (the upload ended, failed or was cancelled)."""

    def __init__(self, workers: ClubWorkers, club: str) -> None:
        self.workers = workers
        self.club = club
        self._done: list[Callable[[], None]] = []
        self._released = False
        self._lock = threading.Lock()

    def on_done(self, callback: Callable[[], None]) -> None:
        self._done.append(callback)

    def release(self) -> None:
        with self._lock:
            if self._released:
                return
            self._released = True
        try:
            for callback in self._done:
                callback()
        finally:
            self.workers._leave(self.club)


class ClubWorkers:
    """The per-club upload workers of one app."""

    def __init__(self, parallel: int = 2, max_queued: int = 16) -> None:
        self.max_queued = max_queued
        self._running = threading.BoundedSemaphore(parallel)
        self._lock = threading.Lock()
        self._executors: dict[str, ThreadPoolExecutor] = {}
        self._queued: dict[str, int] = {}

    def reserve(self, club: str) -> Slot:
        """A place in ``club``'s queue, or 429 ``busy`` when it already has ``max_queued``."""
        with self._lock:
            if self._queued.get(club, 0) >= self.max_queued:
                raise UploadRejected(
                    429, "busy", f"club {club} already has {self.max_queued} uploads in "
                    "progress; wait for them to finish", headers={"Retry-After": "10"})
            self._queued[club] = self._queued.get(club, 0) + 1
        return Slot(self, club)

    def queued(self, club: str) -> int:
        with self._lock:
            return self._queued.get(club, 0)

    def _leave(self, club: str) -> None:
        with self._lock:
            left = self._queued.get(club, 1) - 1
            if left > 0:
                self._queued[club] = left
            else:
                self._queued.pop(club, None)

    def _executor(self, club: str) -> ThreadPoolExecutor:
        with self._lock:
            executor = self._executors.get(club)
            if executor is None:
                executor = ThreadPoolExecutor(max_workers=1,
                                              thread_name_prefix=f"skatlog-upload-{club}")
                self._executors[club] = executor
            return executor

    async def run(self, slot: Slot, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` in the club's worker, once a running place is free. The slot is
        released when the call ends, or at once when it is cancelled before it started."""
        try:
            future: Future[T] = self._executor(slot.club).submit(self._gated, call, *args)
        except BaseException:
            slot.release()
            raise
        future.add_done_callback(lambda _: slot.release())
        return await asyncio.wrap_future(future)

    def _gated(self, call: Callable[..., T], *args: Any) -> T:
        with self._running:
            return call(*args)

    def close(self) -> None:
        with self._lock:
            executors = list(self._executors.values())
            self._executors.clear()
        for executor in executors:
            executor.shutdown(wait=False, cancel_futures=True)
