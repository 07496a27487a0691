"""Compile every numba function skatlog runs into numba's on-disk cache, ahead of first use.

numba compiles a function on its first call and caches the machine code beside the source
(``__pycache__``, keyed by a hash of the source); a cold cache makes the first run after an
install pay for it: the compiled ISS kernel takes one to two minutes to compile, the batch
simulator about a minute, the solver (``analyze``, ``solve``, the ``pimc`` bot) several
seconds in every process that uses it. :func:`warm_up` makes those calls once, each group of
kernels in its own process so that two cores compile at once, and leaves the cache warm for
every later run. ``pip install`` runs it (the build backend ``build_support/skatlog_build.py``,
on the unpacked wheel or the source tree) so that the installed package ships the cache;
``skatlog warm-up`` runs it by hand (``scripts/demo.sh`` and ``scripts/test.sh`` do after
installing, where it only loads). Without numba it does nothing: the plain-Python fallbacks
need no compiling.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

#: A minimal ISS record: the kernel compiles every path on its first call, whatever the data.
_ISS_LINE = (b"(;GM[Skat]ID[1]P0[a]P1[b]P2[c]MV[w CJ.SJ.HJ.DJ.CA.CT.CK.CQ.H7.H8.C9.C8.HA.HT"
             b".HK.HQ.H9.SA.ST.SK.C7.SQ.S9.S8.S7.DA.DT.DK.DQ.D9.D7.D8 1 p 2 p 0 18 0 CHS 0 H7"
             b" 1 HA 2 DA 1 HT 2 DT 0 H8]R[d:0 loss v:-288 m:8 bidok p:0 t:0 s:0 z:0] ;)\n")


def _iss_kernel() -> str:
    from .fast.columns import archive_tables, scan

    archive_tables(scan(_ISS_LINE), "<warm-up>")
    return "ISS kernel"


def _batch_simulator() -> str:
    from skatlog.engine.batch import simulate_batch

    from .sim_tables import batch_tables

    for bots in (("random",) * 3, ("rules",) * 3, ("rules", "random", "rules")):
        batch_tables(simulate_batch(1, 0, 30, bots, threads=1), id_base=0)
    return "batch simulator and its rows"


def _foster_simulator() -> str:
    from skatlog.engine.batch import simulate_batch
    from skatlog.engine.rules import FOSTER

    from .sim_tables import batch_tables

    for bots in (("random",) * 3, ("rules",) * 3):
        batch_tables(simulate_batch(1, 0, 30, bots, threads=1, rules=FOSTER), id_base=0)
    return "Foster simulator and its rows"


def _reference_engine() -> str:
    import random

    from skatlog.engine import ISKO_ISS, GameState, RandomPlayer, seeded_deal

    from .rows import trick_winners

    player = RandomPlayer(step_bids=True)
    rng = random.Random(1)
    for seed in range(20):
        state = GameState(seeded_deal(seed), rules=ISKO_ISS)
        while not state.finished:
            state.apply(player.choose(state, rng))
        state.result()
    import numpy as np

    trick_winners(np.zeros((1, 3), dtype=np.int64), np.zeros(1, dtype=np.int64))
    return "rules core for the reference engine"


def _solver() -> str:
    from skatlog.engine import core
    from skatlog.engine.solver import Position, Solver

    solver = Solver()
    hands = (0b111, 0b111 << 8, 0b111 << 16)  # three cards each: the search, then its endgame
    for contract in (core.GRAND, core.NULL):
        position = Position(hands, contract, 0, 0, (), 0, 0, core.N_TRICKS - 3)
        solver.solve(position)
        solver.value(position, tricks=True)
    return "perfect-information solver"


#: The groups, slowest first, so the longest compile starts at once.
GROUPS: tuple[Callable[[], str], ...] = (_iss_kernel, _batch_simulator, _foster_simulator,
                                         _solver, _reference_engine)


def _timed(group: Callable[[], str]) -> tuple[str, float]:
    start = time.perf_counter()
    name = group()
    return name, time.perf_counter() - start


def warm_up(workers: int = 2, on_done: Callable[[str, float], None] | None = None) -> float:
    """Compile every group (in ``workers`` processes); returns the wall seconds taken.
    ``on_done(group name, seconds)`` is called as each group finishes."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return 0.0
    start = time.perf_counter()
    with ProcessPoolExecutor(max(1, workers), mp_context=mp.get_context("spawn")) as pool:
        for name, seconds in pool.map(_timed, GROUPS):
            if on_done is not None:
                on_done(name, seconds)
    return time.perf_counter() - start
