"""Content ids: a game or a rejected record is stored once, wherever it is read from.

:func:`game_id_of` hashes a game's deal, compact move list (:mod:`.moves_codec`) and
identity (players, time, record id, session id, seed) into a signed 64-bit ``game_id``;
the source file, line and format are deliberately left out. :func:`reject_id_of` does the
same for the raw text of an invalid record. The compiled ISS path builds the same key
bytes in its kernel (:func:`.fast.columns.game_ids`), and simulated hands get ids from
their run instead (:mod:`.sim_ids`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from hashlib import blake2b


def _utc_iso(when: datetime | None) -> str:
    if when is None:
        return ""
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when.isoformat()


def _hash64(data: bytes) -> int:
    return int.from_bytes(blake2b(data, digest_size=8).digest(), "big", signed=True)


def game_id_of(
    deal: Sequence[int],
    moves: str,
    players: Sequence[str] = ("", "", ""),
    played_at: datetime | None = None,
    record_id: str = "",
    session_id: str = "",
    seed: int | None = None,
) -> int:
    """The content id of a game: 64 bits of BLAKE2b over its deal, moves and identity.

    ``moves`` is the compact notation (:func:`encode_moves`). Source file, line and format
    are deliberately left out, so a game has one id wherever it is read from.
    """
    text = "\x1f".join((moves, *players, _utc_iso(played_at), record_id, session_id,
                        "" if seed is None else str(seed)))
    return _hash64(bytes(deal) + b"\x1e" + text.encode("utf-8", "surrogatepass"))


def reject_id_of(raw: str) -> int:
    """The content id of a rejected record: 64 bits of BLAKE2b over its raw text."""
    return _hash64(raw.encode("utf-8", "surrogatepass"))
