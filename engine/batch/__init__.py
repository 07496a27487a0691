"""The batch simulator: millions of full-rules hands per minute, compiled with numba.

``simulate_batch(seed, start, count, bots)`` plays hands ``start..start+count-1`` of a run;
``verify_batch`` replays them through the engine's validated path (the differential test).
"""

from ..jit import refresh_stale_cache

refresh_stale_cache()

from .games import BOT_CODES, BatchGames, UnknownBot, bot_codes, seat_positions, simulate_batch  # noqa: E402
from .verify import Mismatch, verify_batch  # noqa: E402

__all__ = [
    "BOT_CODES", "BatchGames", "Mismatch", "UnknownBot", "bot_codes", "seat_positions",
    "simulate_batch", "verify_batch",
]
