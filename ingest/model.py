"""What a log reader hands to validation and the archive: one game as read, and its errors.

Readers (ISS, skatlog JSONL) yield :class:`LogGame` values; validation by replay fills in
``record`` (the engine's :class:`~skatlog.engine.record.GameRecord`) or ``errors``; the
archive turns valid games into rows and invalid ones into ``rejects`` rows with their raw text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from skatlog.engine.record import GameRecord

#: Stable error codes (issue "Game-log formats ..."): every diagnostic carries one.
ERROR_CODES = (
    "syntax",
    "truncated",
    "bad_deal",
    "illegal_bid",
    "wrong_player",
    "wrong_phase",
    "illegal_declaration",
    "card_not_in_hand",
    "revoke",
    "play_after_end",
    "corrupt_card",
    "score_mismatch",
)

#: How a recomputed value compares with the one the log claims.
VALUE_CHECKS = ("ok", "iss_convention", "score_mismatch", "not_recorded")


@dataclass(frozen=True, slots=True)
class GameError:
    """One diagnostic: a stable code, a readable message, where it is (1-based line; move
    number with the deal as move 0) and the rule it cites (``R8``) when there is one."""

    code: str
    message: str
    line: int
    move: int | None = None
    rule: str = ""

    def format(self, source: str) -> str:
        """``file:line: move N: message``, the compiler-style form."""
        where = f"{source}:{self.line}:"
        if self.move is not None:
            where += f" move {self.move}:"
        return f"{where} {self.message}"


@dataclass(frozen=True, slots=True)
class GameMeta:
    """What a log says about a game beyond its moves."""

    players: tuple[str, str, str] = ("", "", "")  # Forehand, Middlehand, Rearhand names
    played_at: datetime | None = None
    record_id: str = ""
    session_id: str = ""  # ISS series SE, or the skatlog session id
    hand_no: int | None = None  # 1..12 within a session when known
    club: str = ""
    table: str = ""
    dealer: int | None = None  # seat of the dealer (2 = Rearhand in three-player games)


@dataclass(frozen=True, slots=True)
class RecordedResult:
    """The result the log claims (ISS ``R[...]`` or a skatlog ``result`` object)."""

    passed: bool = False
    penalty: bool = False
    declarer: int | None = None
    won: bool | None = None
    value: int | None = None
    matadors: int | None = None
    overbid: bool | None = None
    declarer_points: int | None = None
    declarer_tricks: int | None = None
    schneider: bool | None = None
    schwarz: bool | None = None
    raw: str = ""


@dataclass(frozen=True, slots=True)
class LogGame:
    """One game as read from a log and validated by replay."""

    source: str
    line: int
    raw: str
    format: str  # "iss" or "jsonl"
    meta: GameMeta = GameMeta()
    record: GameRecord | None = None
    recorded: RecordedResult | None = None
    errors: tuple[GameError, ...] = ()
    warnings: tuple[GameError, ...] = ()
    value_check: str = "not_recorded"
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors and self.record is not None
