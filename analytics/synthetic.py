"""Small archives of engine-played sessions, for tests, demos and benchmarks.

Sessions are played by the engine (:func:`~skatlog.engine.play_session`) and stored with the
archive's own row builder and writer (:mod:`skatlog.ingest.rows`,
:mod:`skatlog.ingest.archive`), so the rows are exactly what ``skatlog simulate`` and
``skatlog ingest`` store. Use the ``origin`` argument to pose as logged games.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from skatlog.engine import Player, RandomPlayer, play_session
from skatlog.engine.session import seat_players
from skatlog.ingest.archive import ArchiveWriter
from skatlog.ingest.rows import GameRowsBuilder, SimulatedMeta

DEFAULT_PLAYERS = ("Anna", "Ben", "Clara", "Dora")


def write_sessions(
    archive: Path, count: int, seed: int, *, players: Sequence[str] = DEFAULT_PLAYERS,
    bots: tuple[Player, Player, Player] | None = None, origin: str = "simulated",
    club: str | None = None,
) -> int:
    """Play ``count`` 12-hand sessions among three of ``players`` each and append them to
    ``archive``; returns the number of hands stored. ``origin="log"`` stores them as if
    they had been read from logs (for tests of log-only views)."""
    bots = bots or (RandomPlayer(step_bids=True),) * 3
    bot_names = ",".join(b.name for b in bots)
    pool = list(players)
    rng = random.Random(seed)
    builder = GameRowsBuilder()
    start = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=seed % 1000)
    for i in range(count):
        table = rng.sample(pool, 3)
        session_seed = seed * 100_003 + i
        session = play_session(table, bots, session_seed, checked=False)
        for hand in session.hands:
            names = tuple(session.players[p] for p in seat_players(hand.dealer))
            meta = SimulatedMeta(
                seed=session_seed, bots=bot_names, players=(names[0], names[1], names[2]),
                session_id=f"s{seed}-{i}", hand_no=hand.number, dealer=2,
                played_at=start + timedelta(hours=i, minutes=3 * hand.number))
            builder.add_simulated(hand.record, meta)
    tables = builder.tables()
    if origin != "simulated" or club is not None:
        import pyarrow as pa

        games = tables["games"]
        n = games.num_rows
        for name, value in (("origin", origin), ("club", club)):
            if value is not None:
                column = pa.array([value] * n).cast(games.schema.field(name).type)
                games = games.set_column(games.schema.get_field_index(name), name, column)
        tables["games"] = games
    with ArchiveWriter(archive) as writer:
        counts = writer.append_games(tables)
        writer.commit()
    return counts.stored
