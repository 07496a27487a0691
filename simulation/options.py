"""What fixes a simulation run (:class:`SimulationOptions`), and what a run did.

A run is fixed by its seed, number of hands, bots and sessions; hand ``i`` depends only on
(seed, i, bots), so any split of the work -- chunks, threads, Dask workers -- gives
identical output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from skatlog.engine.batch import BatchGames, bot_codes
from skatlog.engine.batch.games import check_simulated_rules, compiled_bot
from skatlog.engine.rules import ISKO, Rules
from skatlog.ingest.sim_ids import MAX_HANDS, run_base
from skatlog.ingest.sim_tables import player_names

__all__ = [
    "MAX_HANDS", "NEEDS_NUMBA", "Counts", "Progress", "SimulationError", "SimulationOptions",
    "SimulationSummary", "current_workers", "parse_bots", "set_workers", "tally",
]


class SimulationError(ValueError):
    """Bad simulation options (unknown bot, negative count, unknown output format)."""


NEEDS_NUMBA = "the simulator needs numba: pip install 'skatlog[fast]'"
#: Called with the number of hands just done.
Progress = Callable[[int], None]


@dataclass(frozen=True)
class SimulationOptions:
    """Everything that determines a run's output."""

    hands: int
    seed: int = 1
    bots: tuple[str, str, str] = ("rules", "rules", "rules")
    sessions: bool = False
    #: The rule set: ``isko``, or ``isko`` with its house options ``kontra_re``, ``ramsch``
    #: (R19, R20; :func:`skatlog.engine.batch.games.check_simulated_rules`).
    rules: Rules = ISKO
    #: The id of hand 0 (:func:`skatlog.ingest.sim_ids.run_base`), derived from the fields
    #: above and the simulator; :meth:`resolved` fills it in once, so that every thread,
    #: process and Dask worker numbers the run's hands alike.
    id_base: int | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.hands <= MAX_HANDS:
            raise SimulationError(f"--hands must be in 0 .. {MAX_HANDS:,} (about four weeks "
                                  f"at 500,000 hands/s), not {self.hands:,}")
        if not 0 <= self.seed < 2**63:
            raise SimulationError(f"--seed must be in 0 .. 2**63-1, not {self.seed}")
        try:
            bot_codes(self.bots)
            check_simulated_rules(self.rules)
            if self.rules.bock and not self.sessions:
                raise SimulationError("the option bock needs --sessions: a Bock round is a "
                                      "session's (R21), and the run is dealt in 12-hand "
                                      "sessions")
            if self.rules != ISKO and not self.compiled:
                raise SimulationError(f"the pimc bot plays {ISKO} only, not {self.rules}")
        except ValueError as err:
            raise SimulationError(str(err)) from None

    def resolved(self) -> SimulationOptions:
        """These options with :attr:`id_base` worked out."""
        if self.id_base is not None:
            return self
        return replace(self, id_base=run_base(
            self.seed, self.bots, 1 if self.sessions else 0,
            "" if self.rules == ISKO else str(self.rules)))

    @property
    def compiled(self) -> bool:
        """Whether the compiled loop plays every bot of the line-up (``pimc`` is played by
        the engine's players, :mod:`skatlog.engine.batch.reference`: seconds a hand)."""
        return all(compiled_bot(bot) for bot in self.bots)

    @property
    def player_names(self) -> tuple[str, str, str]:
        """Names of the three table positions: ``P1:rules``, ``P2:rules``, ``P3:random``."""
        return player_names(self.bots)


def parse_bots(text: str) -> tuple[str, str, str]:
    """``"rules,rules,random"`` -> three bot names; one name is used for all three seats."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    if len(names) == 1:
        names *= 3
    if len(names) != 3:
        raise SimulationError(f"--bots takes one or three names, not {text!r}")
    try:
        bot_codes(names)
    except ValueError as err:
        raise SimulationError(str(err)) from None
    return (names[0], names[1], names[2])


def set_workers(workers: int | None) -> int:
    """Use ``workers`` numba threads (default: all cores); returns the number in use."""
    try:
        import numba
    except ImportError:
        raise SimulationError(NEEDS_NUMBA) from None

    available = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    if workers is None:
        workers = available
    if workers < 1:
        raise SimulationError(f"--workers must be at least 1, not {workers}")
    workers = min(workers, available)
    numba.set_num_threads(workers)
    return workers


def current_workers() -> int:
    """The number of threads :func:`set_workers` chose for this thread (numba's setting)."""
    import numba

    return int(numba.get_num_threads())


@dataclass
class SimulationSummary:
    """What a simulation run did."""

    hands: int
    seconds: float
    stored: int = 0
    duplicates: int = 0
    target: str = ""
    ingest_id: str = ""
    played: int = 0
    declarer_won: int = 0
    #: Hand ranges not simulated because the archive held them (a re-run).
    skipped: list[tuple[int, int]] = field(default_factory=list)

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0

    @property
    def skipped_hands(self) -> int:
        """Hands of the run that were not simulated, the archive holding them already."""
        return sum(end - begin for begin, end in self.skipped)


class Counts(Protocol):
    """Anything that counts played games and declarer wins (a summary, a task's result)."""

    played: int
    declarer_won: int


def tally(counts: Counts, batch: BatchGames) -> None:
    """Add ``batch``'s played games and declarer wins to ``counts``."""
    played = batch.column("declarer") >= 0
    counts.played += int(played.sum())
    counts.declarer_won += int(batch.column("won")[played].sum())
