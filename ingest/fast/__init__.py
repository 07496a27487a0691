"""The compiled fast path for validating and ingesting huge ISS files (numba).

:func:`fast_validate_iss` streams an ISS file in chunks through a numba kernel that parses
every record and replays it with the engine's own rule tables (:mod:`.tables`); games it
accepts come back as archive-ready columns, everything else as raw records for the reference
validator (:mod:`skatlog.ingest.validate`). :func:`ingest_iss_fast` puts both into the archive:
its worker processes write the accepted games' Parquet partitions themselves (:mod:`.parts`),
the main process dedupes and commits them in one manifest commit.
The kernel is proven equal to the engine by ``tests/test_fast_iss.py`` and ``bench/ingest.py``.
"""

from __future__ import annotations

from .ingest import FastIngestSummary, ingest_iss_fast
from .runner import STATUS_NAMES, FastBatch, fast_validate_iss, iter_validation_json

__all__ = ["STATUS_NAMES", "FastBatch", "FastIngestSummary", "fast_validate_iss",
           "ingest_iss_fast", "iter_validation_json"]
