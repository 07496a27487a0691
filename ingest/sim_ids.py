"""The archive ids of simulated hands, derived from what decides each hand.

A simulated hand is a pure function of (simulator, seed, bots, options, hand index), so
hand ``i`` of a run gets id ``base + i`` (:func:`run_ids`), where :func:`run_base` hashes
the seed, the bots, the options and a fingerprint of what the simulator plays. The
simulation runs (:mod:`skatlog.simulation`) number their hands so, and ingest uses the
same ids for a logged record that claims to be a simulated hand (:mod:`.simulated`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

#: The most hands one run may have: far below the 2**64 ids a run numbers its hands with,
#: and small enough that the run's task list fits in memory.
MAX_HANDS = 10**12
#: Hands per bot mix in the behaviour probe of :func:`generator_fingerprint`.
PROBE_HANDS = 4096
#: Bumped by hand when the id scheme itself changes.
ID_SCHEME = b"skatlog-simulated-ids/1"


def generator_fingerprint() -> bytes:
    """A digest of what the simulator DOES: every output array of a fixed probe --
    :data:`PROBE_HANDS` hands with three random bots and as many with rules and random bots
    in every seat. It changes when a rule, a table or a bot changes the play, and not for
    an edit of comments, formatting or line endings, nor between machines (the kernel's
    output is the same everywhere, see ``engine/batch/kernel.py``). A change that touches
    none of the probe's hands goes unnoticed: a rerun then keeps the hands already stored."""
    from skatlog.engine.batch import simulate_batch  # numba: loaded when first needed

    digest = hashlib.sha256(ID_SCHEME)
    for bots in (("random", "random", "random"), ("rules", "random", "rules")):
        # the deals in dealing order, as before deals were listed in card order (a storage
        # matter that changes no play), so that run ids stay the same across that change
        probe = simulate_batch(0x5EED, 0, PROBE_HANDS, bots, threads=1, in_card_order=False)
        for array in (probe.deal, probe.n_calls, probe.calls, probe.call_seats, probe.game,
                      probe.discard, probe.cards, probe.winners):
            digest.update(np.ascontiguousarray(array).tobytes())
    return digest.digest()


def foster_fingerprint() -> bytes:
    """:func:`generator_fingerprint` of the Foster loop (``foster``'s runs only, so that the
    modern runs' ids stay what they were): the same probe played under ``foster``, its
    ``extra`` array (the turned card, gucki, Ramsch) included."""
    from skatlog.engine.batch import simulate_batch
    from skatlog.engine.rules import FOSTER

    digest = hashlib.sha256(ID_SCHEME + b"/foster")
    for bots in (("random", "random", "random"), ("rules", "random", "rules")):
        probe = simulate_batch(0x5EED, 0, PROBE_HANDS, bots, threads=1, rules=FOSTER)
        for array in (probe.deal, probe.n_calls, probe.calls, probe.call_seats, probe.game,
                      probe.discard, probe.cards, probe.winners, probe.extra):
            digest.update(np.ascontiguousarray(array).tobytes())
    return digest.digest()


_FINGERPRINT: bytes | None = None
_FOSTER_FINGERPRINT: bytes | None = None


def run_base(seed: int, bots: Sequence[str], salt: int = 0, rules: str = "") -> int:
    """The id of hand 0 of a run: 64 bits of BLAKE2b over the generator fingerprint, the
    seed, the bots by table position, ``salt`` (run options such as sessions) and
    ``rules``, the rule set when it is not ``isko`` (``isko+kontra_re+ramsch``).

    Hand ``i`` gets id ``base + i`` (mod 2**64, as int64): a rerun of the same seed
    yields the same ids (stored once), a generator that plays differently yields new ones,
    and the ids of a run are consecutive, which Parquet stores in almost no space. Two
    runs' ranges overlap with odds of about (hands of both)**2 / 2**64.
    """
    global _FINGERPRINT, _FOSTER_FINGERPRINT
    if _FINGERPRINT is None:
        _FINGERPRINT = generator_fingerprint()
    parts = [_FINGERPRINT, str(seed).encode(), ",".join(bots).encode(), str(salt).encode()]
    if rules:  # a rule set other than isko (its hands differ); isko's ids stay as they were
        parts.append(rules.encode())
    if rules == "foster":  # Foster's own loop and bots: their behaviour names the run too
        if _FOSTER_FINGERPRINT is None:
            _FOSTER_FINGERPRINT = foster_fingerprint()
        parts.append(_FOSTER_FINGERPRINT)
    key = b"\x1f".join(parts)
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")


def run_ids(base: int, start: int, count: int) -> np.ndarray:
    """int64 ids of hands ``start .. start + count - 1`` of the run whose hand 0 has id
    ``base`` (see :func:`run_base`)."""
    with np.errstate(over="ignore"):
        ids = np.uint64(base) + np.arange(start, start + count, dtype=np.uint64)
    return ids.view(np.int64)
