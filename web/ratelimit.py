"""A limit on failed token checks per client address, so guessing tokens is slow and cheap.

Every client address has a bucket of ``burst`` failures that refills at one per
``refill_seconds``. A failed check takes one; an address with an empty bucket is answered
429 with ``Retry-After`` before its token is even hashed. Valid tokens the server has seen
before are recognised without a hash and never reach the limit (see :mod:`.auth`), so a
club sharing an address with a guesser keeps working.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable


class TooManyFailures(Exception):
    """The address used up its failed checks; ``retry_after`` seconds until the next one."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many failed log-ins from this address; try again in "
                         f"{retry_after} s")
        self.retry_after = retry_after


class FailureLimiter:
    """Token buckets of failed checks by client address (at most ``max_addresses`` kept)."""

    def __init__(self, burst: int = 10, refill_seconds: float = 6.0, *,
                 max_addresses: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst = burst
        self.refill_seconds = refill_seconds
        self.max_addresses = max_addresses
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, stamp

    def _level(self, address: str, now: float) -> float:
        tokens, stamp = self._buckets.get(address, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - stamp) / self.refill_seconds)

    def check(self, address: str) -> None:
        """Raise :class:`TooManyFailures` when ``address`` may not try another token now."""
        with self._lock:
            now = self._clock()
            level = self._level(address, now)
        if level < 1.0:
            raise TooManyFailures(max(1, math.ceil((1.0 - level) * self.refill_seconds)))

    def failed(self, address: str) -> None:
        """Count one failed check of ``address``."""
        with self._lock:
            now = self._clock()
            self._buckets[address] = (max(0.0, self._level(address, now) - 1.0), now)
            self._buckets.move_to_end(address)
            while len(self._buckets) > self.max_addresses:
                self._buckets.popitem(last=False)  # the address idle the longest
