"""Simulation runs: hands of the batch simulator into the archive or a log file.

The engine's batch simulator (:mod:`skatlog.engine.batch`) fills numpy arrays; ingest turns
them into the archive's rows (:mod:`skatlog.ingest.sim_tables`). This package runs the
work: a run's options (:mod:`.options`), chunks prefetched on a thread (:mod:`.batches`),
the archive's stored ids so that a rerun simulates nothing twice (:mod:`.stored`), the
parallel tasks of an archive run (:mod:`.to_archive`), log files (:mod:`.to_file`) and
Dask (:mod:`.cluster`, the ``skatlog[cluster]`` extra).
"""

from .options import (
    MAX_HANDS,
    SimulationError,
    SimulationOptions,
    SimulationSummary,
    parse_bots,
    set_workers,
)
from .to_archive import simulate_to_archive
from .to_file import file_format, log_games, simulate_to_file

__all__ = [
    "MAX_HANDS", "SimulationError", "SimulationOptions", "SimulationSummary", "file_format",
    "log_games", "parse_bots", "set_workers", "simulate_to_archive", "simulate_to_file",
]
